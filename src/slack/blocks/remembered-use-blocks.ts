import type { KnownBlock } from '@slack/types';
import { escapeMrkdwn } from '../mrkdwn/escape-mrkdwn.js';
import { context } from './layout.js';
import { truncate } from './limits.js';
import { mention } from './mention.js';
import { slackDate } from './slack-date.js';

export interface RememberedUseData {
  toolName: string;
  actionId: number;
  allowedBy: string;
  rememberedGrantId: number;
  expiresAt: Date;
}

/** The thread is told an approval was remembered: who allowed what, for whom, until when, and where to revoke it. */
export function rememberedCreatedText(d: { toolName: string; allowedBy: string; requester: string; rememberedGrantId: number; expiresAt: Date }): string {
  return (
    `:repeat: ${mention(d.allowedBy)} allowed identical *${escapeMrkdwn(truncate(d.toolName, 80))}* calls by ${mention(d.requester)} ` +
    `until ${slackDate(d.expiresAt)} without asking again (remembered approval #${d.rememberedGrantId}; revocable in the Home tab)`
  );
}

/** The thread is told a call ran without a card, and whose remembered approval let it. */
export function rememberedUseBlocks(d: RememberedUseData): KnownBlock[] {
  return [context(rememberedUseText(d))];
}

export function rememberedUseText(d: RememberedUseData): string {
  return (
    `:repeat: *${escapeMrkdwn(truncate(d.toolName, 80))}* ran under a remembered approval by ${mention(d.allowedBy)} ` +
    `(request #${d.actionId}; allowed until ${slackDate(d.expiresAt)}, revocable in the Home tab)`
  );
}
