import type { KnownBlock } from '@slack/types';
import { escapeMrkdwn } from '../kit/mrkdwn/escape-mrkdwn.js';
import { inlineCode } from '../kit/mrkdwn/inline-code.js';
import { ACTION_IDS } from '../kit/action-ids.js';
import { context, section } from '../kit/layout.js';
import { LIMITS, truncate, truncateMrkdwn } from '../kit/limits.js';
import { callFieldsLine, type CallInWords } from '../kit/describe-args.js';
import { mention } from '../kit/mention.js';
import { slackDate } from '../kit/slack-date.js';
import { plainText } from '../kit/text-objects.js';

/** One remembered approval as the Home tab lists it. */
export interface RememberedItem {
  id: number;
  toolName: string;
  /** The calls it allows, in words, as the card of the request it came from described them. */
  call: CallInWords;
  requester: string;
  createdBy: string;
  expiresAt: Date;
}

const FIELDS_CHARS = 400;

/**
 * "Remembered approvals": each live one the viewer may revoke (the calls it allows in words, for
 * whom, who allowed it, until when) with its Revoke button; past `max`, the inbox's "and N more"
 * (`more`, drawn by the inbox, whose list it opens). Two blocks at least.
 */
export function rememberedBlocks(items: readonly RememberedItem[], max: number, more: (hidden: number, total: number) => KnownBlock): KnownBlock[] {
  const blocks: KnownBlock[] = [section(`*Remembered approvals* (${items.length})`)];
  if (items.length === 0) return [...blocks, context('No remembered approvals you can revoke.')];
  const shown = items.slice(0, Math.max(0, max));
  blocks.push(...shown.map(rememberedSection));
  if (items.length > shown.length) blocks.push(more(items.length - shown.length, items.length));
  return blocks;
}

/** One remembered approval with its Revoke button. */
export function rememberedSection(item: RememberedItem): KnownBlock {
  return {
    type: 'section',
    block_id: rememberedBlockId(item.id),
    text: { type: 'mrkdwn', text: rememberedText(item) },
    accessory: {
      type: 'button',
      action_id: ACTION_IDS.revokeRemembered,
      text: plainText('Revoke', LIMITS.buttonText),
      style: 'danger',
      value: String(item.id),
    },
  };
}

function rememberedText(item: RememberedItem): string {
  const facts = `${inlineCode(truncate(item.toolName, 80))} · for ${mention(item.requester)} · allowed by ${mention(item.createdBy)} · until ${slackDate(item.expiresAt)}`;
  const lines = [`*${escapeMrkdwn(truncate(item.call.title, 150))}* #${item.id}`, facts];
  if (item.call.fields.length > 0) lines.push(truncateMrkdwn(callFieldsLine(item.call.fields), FIELDS_CHARS));
  return lines.join('\n');
}

export function rememberedBlockId(id: number): string {
  return `remembered:${id}`;
}
