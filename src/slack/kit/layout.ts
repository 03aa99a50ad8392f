import type { ContextBlock, SectionBlock } from '@slack/types';
import { LIMITS } from './limits.js';
import { mrkdwnText } from './text-objects.js';

/** A section of mrkdwn the caller has already escaped; truncated to the section limit. */
export function section(text: string): SectionBlock {
  return { type: 'section', text: mrkdwnText(text, LIMITS.sectionText) };
}

/** A one-line context block of already-escaped mrkdwn. */
export function context(text: string): ContextBlock {
  return { type: 'context', elements: [mrkdwnText(text)] };
}
