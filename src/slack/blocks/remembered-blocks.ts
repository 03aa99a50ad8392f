import type { KnownBlock } from '@slack/types';
import { escapeMrkdwn } from '../mrkdwn/escape-mrkdwn.js';
import { inlineCode } from '../mrkdwn/inline-code.js';
import { isActionId } from '../../db/is-action-id.js';
import { ACTION_IDS } from './action-ids.js';
import { context, section } from './layout.js';
import { LIMITS, truncate } from './limits.js';
import { mention } from './mention.js';
import { slackDate } from './slack-date.js';
import { plainText } from './text-objects.js';

/** One remembered approval as the Home tab lists it. */
export interface RememberedItem {
  id: number;
  toolName: string;
  args: unknown;
  requester: string;
  createdBy: string;
  expiresAt: Date;
}

const SUMMARY_CHARS = 200;

/**
 * "Remembered approvals": each live one the viewer may revoke (tool, arguments, for whom, who
 * allowed it, until when) with its Revoke button; "and N more" past `max`. Two blocks at least.
 */
export function rememberedBlocks(items: readonly RememberedItem[], max: number): KnownBlock[] {
  const blocks: KnownBlock[] = [section(`*Remembered approvals* (${items.length})`)];
  if (items.length === 0) return [...blocks, context('No remembered approvals you can revoke.')];
  const shown = items.slice(0, Math.max(0, max));
  for (const item of shown) {
    blocks.push({
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
    });
  }
  if (items.length > shown.length) blocks.push(context(`…and ${items.length - shown.length} more.`));
  return blocks;
}

function rememberedText(item: RememberedItem): string {
  const facts = `for ${mention(item.requester)} · allowed by ${mention(item.createdBy)} · until ${slackDate(item.expiresAt)}`;
  return `*${escapeMrkdwn(truncate(item.toolName, 80))}* #${item.id}\n${facts}\n${inlineCode(summary(item.args))}`;
}

function summary(args: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(args) ?? 'no arguments';
  } catch {
    text = 'arguments that cannot be shown';
  }
  return truncate(text, SUMMARY_CHARS);
}

export function rememberedBlockId(id: number): string {
  return `remembered:${id}`;
}

/** The remembered grant a Revoke button names, or undefined for anything else. */
export function parseRevokeValue(value: string | undefined): number | undefined {
  const m = /^[1-9]\d{0,9}$/.exec(value ?? '');
  const id = Number(m?.[0]);
  return m && isActionId(id) ? id : undefined;
}
