import type { ContextBlock, MrkdwnElement, PlainTextElement, SectionBlock } from '@slack/types';
import { LIMITS, truncate, truncateMrkdwn } from './limits.js';

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
