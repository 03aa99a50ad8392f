import type { Decision, RememberedCall } from '../../agent/api-types.js';
import { requestOf } from '../../agent/request.js';
import { context } from '../kit/text-objects.js';
import type { KnownBlock } from '@slack/types';
import { escapeMrkdwn, slackDate } from '../kit/mrkdwn/escape-mrkdwn.js';
import { truncate } from '../kit/limits.js';
import { mention } from '../kit/mention.js';
import type { SlackContext, ThreadTarget } from '../context.js';

/**
 * A call that ran under a remembered approval is said in its thread, so people there see that
 * it ran without a card and who allowed it. A failure to post is logged: the audit log has it.
 */
export async function showRememberedUse(ctx: SlackContext, target: ThreadTarget, call: RememberedCall): Promise<void> {
  const data = { toolName: call.toolName, actionId: call.actionId, allowedBy: call.allowedBy, rememberedGrantId: call.rememberedGrantId, expiresAt: new Date(call.expiresAt) };
  try {
    await ctx.client.chat.postMessage({
      channel: target.channel,
      ...(target.threadTs ? { thread_ts: target.threadTs } : {}),
      text: rememberedUseText(data),
      blocks: rememberedUseBlocks(data),
    });
  } catch (error) {
    ctx.logger.warn({ err: error, actionId: call.actionId }, 'remembered use could not be told in the thread');
  }
}

/** An approval that was remembered is said in the thread where the run goes on, once. */
export async function showRememberedCreated(ctx: SlackContext, target: ThreadTarget, decision: Decision): Promise<void> {
  if (decision.outcome !== 'approved' || !decision.remembered) return;
  const action = requestOf(decision.action);
  if (!action.requester || !action.decidedBy) return;
  const text = rememberedCreatedText({
    toolName: action.toolName,
    allowedBy: action.decidedBy,
    requester: action.requester,
    rememberedGrantId: decision.remembered.id,
    expiresAt: decision.remembered.expiresAt,
  });
  try {
    await ctx.client.chat.postMessage({ channel: target.channel, ...(target.threadTs ? { thread_ts: target.threadTs } : {}), text, blocks: [context(text)] });
  } catch (error) {
    ctx.logger.warn({ err: error, actionId: action.id }, 'remembered approval could not be told in the thread');
  }
}

interface RememberedUseData {
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

function rememberedUseText(d: RememberedUseData): string {
  return (
    `:repeat: *${escapeMrkdwn(truncate(d.toolName, 80))}* ran under a remembered approval by ${mention(d.allowedBy)} ` +
    `(request #${d.actionId}; allowed until ${slackDate(d.expiresAt)}, revocable in the Home tab)`
  );
}
