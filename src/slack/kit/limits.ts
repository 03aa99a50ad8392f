import type { KnownBlock, ContextBlock, MrkdwnElement, PlainTextElement, SectionBlock } from '@slack/types';

/**
 * Block Kit limits the builders fit their text to.
 *
 * Slack rejects a whole message (`invalid_blocks`, `msg_blocks_too_long`) when a single field
 * is one character too long, and a rejected approval card means a run that waits forever.
 * Builders therefore truncate with these numbers; tests check their output with the
 * simulator's checker (`blockLimitErrors` / `checkedView` in src/simulator/block-limits.ts).
 */
export const LIMITS = {
  messageBlocks: 50,
  modalBlocks: 100,
  /** Not documented as a hard number; messages near it have been refused with msg_blocks_too_long. */
  messageBlocksJson: 13_000,
  textObject: 3000,
  sectionText: 3000,
  sectionFields: 10,
  sectionFieldText: 2000,
  headerText: 150,
  buttonText: 75,
  buttonValue: 2000,
  buttonUrl: 3000,
  actionId: 255,
  blockId: 255,
  actionsElements: 25,
  contextElements: 10,
  selectOptions: 100,
  checkboxOptions: 10,
  radioOptions: 10,
  overflowOptions: 5,
  optionText: 75,
  optionDescription: 75,
  /** The docs say 150; @slack/types says 75. Builders use short index values, so either holds. */
  optionValue: 150,
  placeholder: 150,
  /** Cumulative for `markdown` blocks in one message; applied per block to `rich_text`. */
  markdownText: 12_000,
  richText: 12_000,
  inputLabel: 2000,
  inputHint: 2000,
  plainTextInputInitial: 3000,
  plainTextInputMaxLength: 3000,
  modalTitle: 24,
  modalButton: 24,
  privateMetadata: 3000,
  callbackId: 255,
  confirmTitle: 100,
  confirmText: 300,
  confirmButton: 30,
} as const;

const ELLIPSIS = '…';

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/** Cuts at `end` but never between the two halves of a surrogate pair. */
function safeSlice(text: string, end: number): string {
  if (end <= 0) return '';
  if (end < text.length && isHighSurrogate(text.charCodeAt(end - 1))) return text.slice(0, end - 1);
  return text.slice(0, end);
}

/**
 * Shortens `text` to at most `max` characters (UTF-16 code units, the stricter count),
 * ending with '…' so a reader can see something was cut.
 */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  if (max <= 0) return '';
  if (max === 1) return ELLIPSIS;
  return safeSlice(text, max - 1).trimEnd() + ELLIPSIS;
}

/**
 * `truncate` for text that is already mrkdwn: it never leaves half an entity (`&am…`) or
 * half a `<…>` token behind, and closes a code block the cut left open.
 */
export function truncateMrkdwn(text: string, max: number): string {
  if (text.length <= max) return text;
  if (max <= 0) return '';
  const fence = '\n```';
  const cut = (reserve: number): string => {
    let head = safeSlice(text, Math.max(0, max - 1 - reserve));
    head = head.replace(/&[a-zA-Z#0-9]*$/, '');
    const open = head.lastIndexOf('<');
    if (open > head.lastIndexOf('>')) head = head.slice(0, open);
    return head.trimEnd();
  };
  let head = cut(0);
  if (countFences(head) % 2 === 1) {
    head = cut(fence.length);
    if (countFences(head) % 2 === 1) return head + ELLIPSIS + fence;
  }
  return head + ELLIPSIS;
}

function countFences(text: string): number {
  return text.split('```').length - 1;
}

/** Successively smaller budgets for the variable-sized parts of a card. */
const SCALES = [1, 0.85, 0.7, 0.55, 0.4, 0.25, 0.1] as const;

/**
 * Renders a card at full size and, while the serialized blocks are too long for one message
 * (each field within its own limit can still add up to msg_blocks_too_long), again with
 * smaller budgets. A shorter card beats a card Slack refuses.
 */
export function fitMessage(render: (scale: number) => KnownBlock[]): KnownBlock[] {
  let blocks: KnownBlock[] = [];
  for (const scale of SCALES) {
    blocks = render(scale);
    if (JSON.stringify(blocks).length <= LIMITS.messageBlocksJson) return blocks;
  }
  return blocks;
}

/** `base` scaled, but never below `min`. */
export function scaled(base: number, scale: number, min: number): number {
  return Math.max(min, Math.floor(base * scale));
}

/** Slack refuses empty (and blank) text objects, which would sink the whole message. */
const EMPTY = '—';

/** Headers, option labels and input labels are single lines; a newline there only garbles them. */
export function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** plain_text is never parsed for mentions or formatting, so it is not escaped; only truncated. */
export function plainText(text: string, max: number = LIMITS.textObject): PlainTextElement {
  return { type: 'plain_text', text: truncate(text.trim() === '' ? EMPTY : text, max) };
}

/**
 * mrkdwn for text the caller has already escaped or built from escaped parts.
 * `verbatim: true` turns off Slack's automatic parsing, which would otherwise link-ify bare
 * channel names and some mention-like text on its own.
 */
export function mrkdwnText(text: string, max: number = LIMITS.textObject): MrkdwnElement {
  return { type: 'mrkdwn', text: truncateMrkdwn(text.trim() === '' ? EMPTY : text, max), verbatim: true };
}

/** A section of mrkdwn the caller has already escaped; truncated to the section limit. */
export function section(text: string): SectionBlock {
  return { type: 'section', text: mrkdwnText(text, LIMITS.sectionText) };
}

/** A one-line context block of already-escaped mrkdwn. */
export function context(text: string): ContextBlock {
  return { type: 'context', elements: [mrkdwnText(text)] };
}
