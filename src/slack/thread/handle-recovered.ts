import type { RecoveredRun } from '../../agent/api-types.js';
import { runInThread } from './run-in-thread.js';
import type { SlackContext } from '../context.js';
import { findThread, threadTarget } from './threads.js';

/** A run taken over from a stopped instance goes on in its own thread, where people expect it. */
export async function handleRecovered(ctx: SlackContext, recovered: RecoveredRun): Promise<void> {
  const thread = await findThread(ctx.slackDb, recovered.rootRunId);
  if (!thread) {
    ctx.logger.warn({ runId: recovered.runId, rootRunId: recovered.rootRunId }, 'recovered run has no thread; continuation not shown');
    await recovered.stream.result;
    return;
  }
  // The message that asked for the run shows it working again, and the stopped process's reaction goes at the end.
  await runInThread(ctx, recovered.stream, threadTarget(thread), {
    ...(thread.message_ts ? { reactTo: { channel: thread.channel, ts: thread.message_ts } } : {}),
  });
}
