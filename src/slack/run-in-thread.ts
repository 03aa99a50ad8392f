import { sql } from 'kysely';
import type { AgentStream } from '../agent/agent-stream.js';
import { announcedAction } from '../agent/announced-action.js';
import { ClaimLostError } from '../agent/errors.js';
import { postCard } from './cards/post-card.js';
import { updateCard } from './cards/update-card.js';
import { postAnswer } from './post-answer.js';
import { postError } from './post-error.js';
import type { SlackContext, ThreadTarget } from './slack-context.js';
import { workingReaction, type WorkingReaction } from './working-reaction.js';

export interface RunInThreadOptions {
  /** The message that asked for this work; it carries the working reaction meanwhile. */
  reactTo?: { channel: string; ts: string };
  /** A working reaction the caller already added; removed when the stream ends. */
  working?: WorkingReaction;
}

/**
 * Shows a run (or a continuation of one) in its thread: text as it is
 * complete up to each card, a card for every approval or question it stops
 * on, the card of a call stopped at the gate redrawn as blocked, and an error
 * with a reference when it fails. Resolves when the stream has ended.
 */
export async function runInThread(
  ctx: SlackContext,
  stream: AgentStream,
  target: ThreadTarget,
  options: RunInThreadOptions = {},
): Promise<void> {
  const log = ctx.logger.child({ runId: stream.runId, channel: target.channel });
  const reaction = options.working ?? (options.reactTo ? workingReaction(ctx, options.reactTo) : undefined);
  let text = '';
  let failure: unknown;
  const flush = async () => {
    const pending = text;
    text = '';
    if (pending.trim() !== '') await postAnswer(ctx, target, pending);
  };
  try {
    for await (const chunk of stream.fullStream) {
      switch (chunk.type) {
        case 'text-delta':
          text += chunk.payload.text;
          break;
        case 'tool-call-approval':
        case 'tool-call-suspended':
          await flush();
          await postCard(ctx, chunk.payload.actionId, target, (continuation) => runInThread(ctx, continuation, target), announcedAction(chunk.payload));
          break;
        case 'tool-call-blocked':
          await redrawBlocked(ctx, chunk.payload.runId, chunk.payload.toolCallId);
          break;
        case 'error':
          failure = chunk.payload.error;
          break;
        default:
          break;
      }
    }
    if (failure instanceof ClaimLostError) {
      // Another instance took the run over and shows it in this thread; anything more from here would be a duplicate.
      log.warn('run taken over by another instance; nothing more is posted from here');
      return;
    }
    await flush();
    if (failure !== undefined) await postError(ctx, target, failure, 'run failed');
  } catch (error) {
    await postError(ctx, target, error, 'showing the run in Slack failed');
  } finally {
    await reaction?.done();
    log.debug('stream shown');
  }
}

/** `runId` owns the call: the stream's own run, or a sub-agent's run under it. */
async function redrawBlocked(ctx: SlackContext, runId: string, toolCallId: string): Promise<void> {
  const row = await sql<{ id: number }>`
    SELECT id FROM pending_actions
    WHERE run_id = ${runId} AND tool_call_id = ${toolCallId} AND kind = 'approval'
    ORDER BY id DESC LIMIT 1
  `.execute(ctx.db);
  const id = row.rows[0]?.id;
  if (id !== undefined) await updateCard(ctx, id);
}
