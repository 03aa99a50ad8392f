/**
 * Block Kit limits and a checker for them.
 *
 * Slack rejects a whole message (`invalid_blocks`, `msg_blocks_too_long`) when a single field
 * is one character too long, and a rejected approval card means a run that waits forever.
 * Builders therefore truncate with these numbers, and tests run every builder's output
 * through `checkBlocks` / `checkView`.
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

export type Surface = 'message' | 'modal';

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

type Obj = Record<string, unknown>;

function isObj(value: unknown): value is Obj {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

class Violations {
  readonly list: string[] = [];

  add(path: string, message: string): void {
    this.list.push(`${path}: ${message}`);
  }

  maxLength(path: string, value: unknown, max: number, what: string): void {
    if (typeof value === 'string' && value.length > max) {
      this.add(path, `${what} is ${value.length} characters (max ${max})`);
    }
  }

  /** A text object: required shape, non-empty text, a maximum length, optionally plain_text only. */
  text(path: string, value: unknown, max: number, what: string, plainOnly = false): void {
    if (!isObj(value) || typeof value.text !== 'string') {
      this.add(path, `${what} is not a text object`);
      return;
    }
    if (value.type !== 'plain_text' && value.type !== 'mrkdwn') {
      this.add(path, `${what} has unknown text type ${String(value.type)}`);
    } else if (plainOnly && value.type !== 'plain_text') {
      this.add(path, `${what} must be plain_text`);
    }
    if (value.text.trim().length === 0) this.add(path, `${what} is empty`);
    this.maxLength(`${path}.text`, value.text, max, what);
  }
}

function checkOption(v: Violations, path: string, option: unknown, plainOnly: boolean): void {
  if (!isObj(option)) {
    v.add(path, 'option is not an object');
    return;
  }
  v.text(`${path}.text`, option.text, LIMITS.optionText, 'option text', plainOnly);
  if (option.description !== undefined) {
    v.text(`${path}.description`, option.description, LIMITS.optionDescription, 'option description');
  }
  v.maxLength(`${path}.value`, option.value, LIMITS.optionValue, 'option value');
}

function checkOptions(
  v: Violations,
  path: string,
  options: unknown,
  max: number,
  kind: string,
  plainOnly: boolean,
): void {
  if (!Array.isArray(options)) {
    v.add(path, `${kind} has no options array`);
    return;
  }
  if (options.length === 0) v.add(path, `${kind} has no options`);
  if (options.length > max) v.add(path, `${kind} has ${options.length} options (max ${max})`);
  options.forEach((option, i) => checkOption(v, `${path}[${i}]`, option, plainOnly));
}

function checkConfirm(v: Violations, path: string, confirm: unknown): void {
  if (!isObj(confirm)) return;
  v.text(`${path}.title`, confirm.title, LIMITS.confirmTitle, 'confirm title', true);
  v.text(`${path}.text`, confirm.text, LIMITS.confirmText, 'confirm text');
  v.text(`${path}.confirm`, confirm.confirm, LIMITS.confirmButton, 'confirm button', true);
  v.text(`${path}.deny`, confirm.deny, LIMITS.confirmButton, 'deny button', true);
}

function checkElement(v: Violations, path: string, element: unknown): void {
  if (!isObj(element)) {
    v.add(path, 'element is not an object');
    return;
  }
  v.maxLength(`${path}.action_id`, element.action_id, LIMITS.actionId, 'action_id');
  if (element.placeholder !== undefined) {
    v.text(`${path}.placeholder`, element.placeholder, LIMITS.placeholder, 'placeholder', true);
  }
  if (element.confirm !== undefined) checkConfirm(v, `${path}.confirm`, element.confirm);
  switch (element.type) {
    case 'button':
      v.text(`${path}.text`, element.text, LIMITS.buttonText, 'button text', true);
      v.maxLength(`${path}.value`, element.value, LIMITS.buttonValue, 'button value');
      v.maxLength(`${path}.url`, element.url, LIMITS.buttonUrl, 'button url');
      break;
    case 'static_select':
    case 'multi_static_select':
      if (element.option_groups === undefined) {
        checkOptions(v, `${path}.options`, element.options, LIMITS.selectOptions, String(element.type), true);
      }
      break;
    case 'checkboxes':
      checkOptions(v, `${path}.options`, element.options, LIMITS.checkboxOptions, 'checkboxes', false);
      break;
    case 'radio_buttons':
      checkOptions(v, `${path}.options`, element.options, LIMITS.radioOptions, 'radio_buttons', false);
      break;
    case 'overflow':
      checkOptions(v, `${path}.options`, element.options, LIMITS.overflowOptions, 'overflow', true);
      break;
    case 'plain_text_input':
      v.maxLength(`${path}.initial_value`, element.initial_value, LIMITS.plainTextInputInitial, 'initial_value');
      if (typeof element.max_length === 'number' && element.max_length > LIMITS.plainTextInputMaxLength) {
        v.add(`${path}.max_length`, `max_length is ${element.max_length} (max ${LIMITS.plainTextInputMaxLength})`);
      }
      break;
    default:
      break;
  }
}

/** Sums the text in a rich_text tree, which has no per-field limit of its own. */
function richTextLength(node: unknown): number {
  if (Array.isArray(node)) return node.reduce<number>((sum, child) => sum + richTextLength(child), 0);
  if (!isObj(node)) return 0;
  let total = typeof node.text === 'string' ? node.text.length : 0;
  if (node.elements !== undefined) total += richTextLength(node.elements);
  return total;
}

function checkBlock(v: Violations, path: string, block: unknown, state: { markdown: number; blockIds: Set<string> }): void {
  if (!isObj(block)) {
    v.add(path, 'block is not an object');
    return;
  }
  if (typeof block.block_id === 'string') {
    v.maxLength(`${path}.block_id`, block.block_id, LIMITS.blockId, 'block_id');
    if (state.blockIds.has(block.block_id)) v.add(`${path}.block_id`, `duplicate block_id ${block.block_id}`);
    state.blockIds.add(block.block_id);
  }
  switch (block.type) {
    case 'section': {
      if (block.text === undefined && block.fields === undefined) v.add(path, 'section has neither text nor fields');
      if (block.text !== undefined) v.text(`${path}.text`, block.text, LIMITS.sectionText, 'section text');
      if (block.fields !== undefined) {
        if (!Array.isArray(block.fields)) {
          v.add(`${path}.fields`, 'section fields is not an array');
        } else {
          if (block.fields.length > LIMITS.sectionFields) {
            v.add(`${path}.fields`, `section has ${block.fields.length} fields (max ${LIMITS.sectionFields})`);
          }
          block.fields.forEach((f, i) =>
            v.text(`${path}.fields[${i}]`, f, LIMITS.sectionFieldText, 'section field'),
          );
        }
      }
      if (block.accessory !== undefined) checkElement(v, `${path}.accessory`, block.accessory);
      break;
    }
    case 'header':
      v.text(`${path}.text`, block.text, LIMITS.headerText, 'header text', true);
      break;
    case 'actions': {
      if (!Array.isArray(block.elements)) {
        v.add(`${path}.elements`, 'actions block has no elements array');
        break;
      }
      if (block.elements.length > LIMITS.actionsElements) {
        v.add(`${path}.elements`, `actions block has ${block.elements.length} elements (max ${LIMITS.actionsElements})`);
      }
      const actionIds = new Set<string>();
      block.elements.forEach((el, i) => {
        checkElement(v, `${path}.elements[${i}]`, el);
        if (isObj(el) && typeof el.action_id === 'string') {
          if (actionIds.has(el.action_id)) v.add(`${path}.elements[${i}]`, `duplicate action_id ${el.action_id}`);
          actionIds.add(el.action_id);
        }
      });
      break;
    }
    case 'context': {
      if (!Array.isArray(block.elements)) {
        v.add(`${path}.elements`, 'context block has no elements array');
        break;
      }
      if (block.elements.length > LIMITS.contextElements) {
        v.add(`${path}.elements`, `context block has ${block.elements.length} elements (max ${LIMITS.contextElements})`);
      }
      block.elements.forEach((el, i) => {
        if (isObj(el) && el.type !== 'image') v.text(`${path}.elements[${i}]`, el, LIMITS.textObject, 'context text');
      });
      break;
    }
    case 'input':
      v.text(`${path}.label`, block.label, LIMITS.inputLabel, 'input label', true);
      if (block.hint !== undefined) v.text(`${path}.hint`, block.hint, LIMITS.inputHint, 'input hint', true);
      checkElement(v, `${path}.element`, block.element);
      break;
    case 'markdown':
      if (typeof block.text !== 'string' || block.text.length === 0) {
        v.add(`${path}.text`, 'markdown block text is empty');
      } else {
        state.markdown += block.text.length;
        if (state.markdown > LIMITS.markdownText) {
          v.add(`${path}.text`, `markdown blocks total ${state.markdown} characters (max ${LIMITS.markdownText})`);
        }
      }
      break;
    case 'rich_text': {
      const length = richTextLength(block.elements);
      if (length > LIMITS.richText) v.add(path, `rich_text is ${length} characters (max ${LIMITS.richText})`);
      break;
    }
    default:
      break;
  }
}

/**
 * Returns every limit the blocks break (empty when Slack should accept them).
 * `surface` picks the block count (50 in a message, 100 in a modal) and whether the
 * serialized size of a message applies.
 */
export function checkBlocks(blocks: unknown[], surface: Surface = 'message'): string[] {
  const v = new Violations();
  const maxBlocks = surface === 'message' ? LIMITS.messageBlocks : LIMITS.modalBlocks;
  if (blocks.length > maxBlocks) v.add('blocks', `${blocks.length} blocks (max ${maxBlocks})`);
  if (surface === 'message') {
    const size = JSON.stringify(blocks).length;
    if (size > LIMITS.messageBlocksJson) {
      v.add('blocks', `serialized blocks are ${size} characters (max ${LIMITS.messageBlocksJson}, msg_blocks_too_long)`);
    }
  }
  const state = { markdown: 0, blockIds: new Set<string>() };
  blocks.forEach((block, i) => checkBlock(v, `blocks[${i}]`, block, state));
  return v.list;
}

/** `checkBlocks` for a modal view plus the view's own fields. */
export function checkView(view: unknown): string[] {
  if (!isObj(view)) return ['view: not an object'];
  const v = new Violations();
  if (view.type !== 'modal') v.add('view.type', `expected modal, got ${String(view.type)}`);
  v.text('view.title', view.title, LIMITS.modalTitle, 'modal title', true);
  if (view.submit !== undefined) v.text('view.submit', view.submit, LIMITS.modalButton, 'modal submit', true);
  if (view.close !== undefined) v.text('view.close', view.close, LIMITS.modalButton, 'modal close', true);
  v.maxLength('view.private_metadata', view.private_metadata, LIMITS.privateMetadata, 'private_metadata');
  v.maxLength('view.callback_id', view.callback_id, LIMITS.callbackId, 'callback_id');
  if (!Array.isArray(view.blocks)) {
    v.add('view.blocks', 'not an array');
    return v.list;
  }
  const hasInput = view.blocks.some((b) => isObj(b) && b.type === 'input');
  if (hasInput && view.submit === undefined) v.add('view.submit', 'a modal with input blocks needs a submit button');
  return [...v.list, ...checkBlocks(view.blocks, 'modal').map((m) => `view.${m}`)];
}
