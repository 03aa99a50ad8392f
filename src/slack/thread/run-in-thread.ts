import type { AgentStream, ApprovalRequest, RecoveredRun, DeniedCall } from '../../agent/api-types.js';
import { paragraphs, type AnnouncedRequest } from '../../agent/stream.js';
import { hasAgentErrorCode } from '../../agent/errors.js';
import { childLogger } from '../../agent/child-logger.js';
import { showCard, showApprovalCards } from '../card/show-card.js';
import { markCardsDrawn, showCardUpdate } from '../card/show-card-update.js';
import { markRunShown } from './kept-results.js';
import { showAnswer, showError, AnswerStream } from './answer-stream.js';
import { storedRequest, findRequest, recipientOf, type DrawnMark, type SlackContext, type StreamRecipient, type ThreadTarget, type Person } from '../context.js';
import { workingReaction, type WorkingReaction, clearAssistantStatus, clearWaitingStatus, showWaitingStatus } from './assistant-status.js';
import { unreachable } from '../../unreachable.js';
import type { Request } from '../../agent/request.js';
import type { CardRow } from '../card/cards.js';
import { findThread, targetForAction, threadTarget } from '../card/cards.js';
import { context, oneLine, truncate } from '../kit/limits.js';
import { escapeMrkdwn, inlineCode, slackDate } from '../kit/mrkdwn/escape-mrkdwn.js';

interface RunInThreadOptions {
  /** The message that asked for this work; it carries the working reaction meanwhile. */
  reactTo?: { channel: string; ts: string };
  /** A working reaction the caller already added; removed when the stream ends. */
  working?: WorkingReaction;
  /** Cards the caller drew whose marks ride on this stream's last statement (see DrawnMark). */
  drawn?: DrawnMark[];
  /** Who the run answers, for a streamed answer outside a DM (SLACK_ASSISTANT). */
  recipient?: StreamRecipient;
}

/**
 * Shows a run (or a continuation of one) in its thread: text as it is
 * complete up to each card, a card for every approval or question it stops
 * on, the card of a call stopped at the gate redrawn as blocked, a call the
 * policy refused said as such (the tool and the policy's reason), and an error
 * with a reference when it fails. When the run's outcome is in the thread, its
 * kept answer is let go and the thread is free for the next run (markRunShown);
 * an answer that could not be posted stays kept, for the sweep to post.
 * Resolves when the stream has ended.
 */
export async function runInThread(
  ctx: SlackContext,
  stream: AgentStream,
  target: ThreadTarget,
  options: RunInThreadOptions = {},
): Promise<void> {
  const log = childLogger(ctx.logger, { runId: stream.runId, channel: target.channel });
  const reaction = options.working ?? (options.reactTo ? workingReaction(ctx, options.reactTo) : undefined);
  const drawn = options.drawn ?? [];
  // What is shown stays shown: a failed write is the sweep's to make good (it skips parts already posted).
  const bookkeeping = (write: Promise<void>) =>
    write.catch((error: unknown) => log.warn({ err: error }, 'could not record what was shown; the sweep will check it'));
  let text = '';
  let stepEnded = false;
  let failure: unknown;
  // With SLACK_ASSISTANT: the text streamed as it comes; a stream Slack refuses leaves it to showAnswer.
  let streamed: AnswerStream | undefined;
  const waitingOn: Request[] = [];
  const flush = async (answer?: { runId: string }) => {
    const pending = text;
    text = '';
    const stream = streamed;
    streamed = undefined;
    if (stream && (await stream.finish(answer))) return;
    if (pending.trim() !== '') await showAnswer(ctx, target, pending, answer);
  };
  // The approvals a pause announces arrive together; the calls of one step share a card (showApprovalCards).
  let approvals: ApprovalRequest[] = [];
  const postApprovals = async () => {
    const requests = approvals;
    approvals = [];
    if (requests.length > 0) await showApprovalCards(ctx, requests, target, (continuation) => runInThread(ctx, continuation, target));
  };
  try {
    // A status this process set ("waiting for approval") is over once the run moves on.
    const statusCleared = ctx.assistant ? await clearWaitingStatus(ctx, target) : false;
    // One request of a pause as it always showed: approvals gather for postApprovals, a question gets its card.
    const show = async (request: AnnouncedRequest) => {
      await flush();
      if (request.kind === 'suspension') {
        await postApprovals();
        await showCard(ctx, request.payload.actionId, target, (continuation) => runInThread(ctx, continuation, target), storedRequest(ctx, request.payload));
        return;
      }
      approvals.push(request.payload);
      if (ctx.assistant?.tries('status', target)) {
        // The row is read only when the status is configured and this process did not just store it.
        const stored = storedRequest(ctx, request.payload);
        const waiting = stored?.id === request.payload.actionId ? stored : await findRequest(ctx, request.payload.actionId);
        if (waiting) waitingOn.push(waiting);
      }
    };
    for await (const chunk of stream.fullStream) {
      if (chunk.type !== 'tool-call-approval' && chunk.type !== 'tool-call-suspended') await postApprovals();
      switch (chunk.type) {
        case 'text-delta': {
          // The first text of a step starts a paragraph of its own.
          const piece = stepEnded ? paragraphs(text, chunk.payload.text).slice(text.length) : chunk.payload.text;
          stepEnded = false;
          text += piece;
          if (ctx.assistant) {
            streamed ??= AnswerStream.open(ctx, target, options.recipient);
            await streamed?.push(piece);
          }
          break;
        }
        case 'tool-call-approval':
        case 'tool-call-suspended': {
          // A stream announces one call of a pause; every request the pause stored is shown at once
          // (the calls of one step share a batch card). A reminder of a call shown before shows nothing.
          const pause = ctx.agent.requestsOfPause(chunk.payload);
          for (const request of pause ?? []) await show(request);
          break;
        }
        case 'tool-call-blocked':
          await redrawBlocked(ctx, chunk.payload.runId, chunk.payload.toolCallId);
          break;
        case 'tool-call-remembered':
          await flush();
          await ctx.showRememberedUse(target, chunk.payload);
          break;
        case 'tool-output-denied':
          if (chunk.payload.policy) {
            await flush();
            await postPolicyRefusal(ctx, target, chunk.payload);
          }
          break;
        case 'error':
          failure = chunk.payload.error;
          break;
        case 'step-finish':
          stepEnded = true;
          break;
        case 'start':
        case 'finish':
        case 'tool-call':
        case 'tool-result':
        case 'tool-call-resumed':
          break;
        default:
          unreachable(chunk, 'agent chunk');
      }
    }
    await postApprovals();
    // A paused stream ends without a finish chunk (as Mastra's); the stream says why it ended.
    const finishReason = await stream.finishReason;
    if (hasAgentErrorCode(failure, 'LEASE_LOST')) {
      // Another instance took the run over and shows it in this thread; anything more from here would be a duplicate.
      log.warn('run taken over by another instance; nothing more is posted from here');
      return;
    }
    if (failure === undefined && finishReason === 'suspended') {
      await flush();
      await bookkeeping(markCardsDrawn(ctx.slackDb, drawn));
      if (waitingOn.length > 0) await showWaitingStatus(ctx, target, waitingOn);
      else if (!statusCleared) await clearAssistantStatus(ctx, target);
      return;
    }
    // The run's answer, marked as this run's, so the sweep can tell what of it was posted if this process stops.
    await flush(failure === undefined ? { runId: stream.runId } : undefined);
    if (failure !== undefined) await showError(ctx, target, failure, 'run failed');
    // Cleared here too when another instance (or this one before a restart) set it.
    if (!statusCleared) await clearAssistantStatus(ctx, target);
    await bookkeeping(markRunShown(ctx.slackDb, stream.runId, drawn));
  } catch (error) {
    await showError(ctx, target, error, 'showing the run in Slack failed');
  } finally {
    await streamed?.abort();
    await reaction?.done();
    log.debug('stream shown');
  }
}

/** `runId` owns the call: the stream's own run, or a sub-agent's run under it. */
async function redrawBlocked(ctx: SlackContext, runId: string, toolCallId: string): Promise<void> {
  const id = await ctx.agent.latestApprovalId(runId, toolCallId);
  if (id !== undefined) await showCardUpdate(ctx, id);
}

/**
 * A run an answer resumed (a Respond form, a choice, Yes / No, a reply) goes on in the thread
 * of its card, answering whoever started it.
 */
export async function goOnAfterAnswer(
  ctx: SlackContext,
  answered: { stream: AgentStream; action: Request; who: ThreadTarget & Person },
  card: CardRow | undefined,
  options: { reactTo?: { channel: string; ts: string } },
): Promise<void> {
  const target = (await targetForAction(ctx, answered.action, answered.who, { card })) ?? answered.who;
  await runInThread(ctx, answered.stream, target, { ...options, ...recipientOf(answered.action.requester, answered.who) });
}

/** A run taken over from a stopped instance goes on in its own thread, where people expect it. */
export async function showRecovered(ctx: SlackContext, recovered: RecoveredRun): Promise<void> {
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

/** A call the policy refused, as the thread hears it. */
interface PolicyRefusal {
  toolName: string;
  reason: string;
  freeze?: { name: string; until?: Date };
}

/**
 * ":no_entry: `delete_record` refused by policy: <reason>": the tool, the policy's reason
 * (escaped: a policy file is text someone wrote) and the change freeze that refused it, if one did.
 */
export function policyRefusalText(r: PolicyRefusal): string {
  const during = r.freeze ? ` during change freeze ${inlineCode(truncate(r.freeze.name, 80))}${r.freeze.until ? ` (until ${slackDate(r.freeze.until)})` : ''}` : '';
  const reason = escapeMrkdwn(truncate(oneLine(r.reason), 1500));
  const stop = /[.!?…]$/.test(reason) ? '' : '.';
  return `:no_entry: ${inlineCode(truncate(r.toolName, 100))} refused by policy${during}: ${reason}${stop} It did not run, and nobody was asked.`;
}

/**
 * A call the policy refused is said in its run's thread (people there would otherwise see only
 * what the model makes of it). A failure to post is logged: the audit log has the denial.
 */
async function postPolicyRefusal(ctx: SlackContext, target: ThreadTarget, denied: DeniedCall): Promise<void> {
  if (!denied.policy) return;
  const freeze = denied.policy.freeze;
  const text = policyRefusalText({
    toolName: denied.toolName,
    reason: denied.policy.reason,
    ...(freeze ? { freeze: { name: freeze.name, ...(freeze.until ? { until: new Date(freeze.until) } : {}) } } : {}),
  });
  try {
    await ctx.client.chat.postMessage({ channel: target.channel, ...(target.threadTs ? { thread_ts: target.threadTs } : {}), text, blocks: [context(text)] });
  } catch (error) {
    ctx.logger.warn({ err: error, toolCallId: denied.toolCallId }, 'a call refused by policy could not be told in the thread');
  }
}
