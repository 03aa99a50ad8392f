import type { RememberedCall } from '../../agent/api-types.js';
import type { Decision } from '../../agent/api-types.js';
import { context } from '../kit/layout.js';
import { rememberedCreatedText, rememberedUseBlocks, rememberedUseText } from './remember-blocks.js';
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
  if (decision.outcome !== 'approved' || !decision.remembered || !decision.action.requester || !decision.action.decided_by) return;
  const text = rememberedCreatedText({
    toolName: decision.action.tool_name,
    allowedBy: decision.action.decided_by,
    requester: decision.action.requester,
    rememberedGrantId: decision.remembered.id,
    expiresAt: decision.remembered.expiresAt,
  });
  try {
    await ctx.client.chat.postMessage({ channel: target.channel, ...(target.threadTs ? { thread_ts: target.threadTs } : {}), text, blocks: [context(text)] });
  } catch (error) {
    ctx.logger.warn({ err: error, actionId: decision.action.id }, 'remembered approval could not be told in the thread');
  }
}
