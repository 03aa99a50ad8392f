import type { KnownBlock, MrkdwnElement } from '@slack/types';
import { escapeMrkdwn } from './mrkdwn/escape-mrkdwn.js';
import type { CardField } from './describe-args.js';
import { LIMITS, truncateMrkdwn } from './limits.js';
import { scaled } from './fit-message.js';
import { section } from './layout.js';

/**
 * A call's fields as label/value pairs: a section's two-column `fields` when they fit Slack's
 * limits (10 fields, 2000 characters each), else one text list, cut to the section's limit.
 * Values are mrkdwn already; labels are escaped here (a key the model made up is a label too).
 */
export function callFieldBlocks(fields: readonly CardField[], scale: number): KnownBlock[] {
  if (fields.length === 0) return [];
  const valueBudget = scaled(LIMITS.sectionFieldText - 100, scale, 150);
  const asField = fields.map((f) => `*${escapeMrkdwn(f.label)}*\n${f.value}`);
  if (fields.length <= LIMITS.sectionFields && asField.every((text) => text.length <= valueBudget)) {
    const elements: MrkdwnElement[] = asField.map((text) => ({ type: 'mrkdwn', text, verbatim: true }));
    return [{ type: 'section', fields: elements }];
  }
  const list = fields.map((f) => `*${escapeMrkdwn(f.label)}:* ${f.value.replace(/\n+/g, ' ')}`).join('\n');
  return [section(truncateMrkdwn(list, scaled(LIMITS.sectionText - 200, scale, 300)))];
}
