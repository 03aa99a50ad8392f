import type { AgentStream, ApprovalRequest } from '../../agent/api-types.js';
import type { Request } from '../../agent/request.js';
import { childLogger } from '../../agent/child-logger.js';
import { escapeMrkdwn } from '../kit/mrkdwn/escape-mrkdwn.js';
import { errorReference } from '../kit/error-reference.js';
import { truncate } from '../kit/limits.js';
import { findRequest, type SlackContext, type ThreadTarget, storedRequest } from '../context.js';
import { saveCard, cardStateKey } from './cards.js';
import { showCardUpdate } from './show-card-update.js';
import { renderCard } from './render-card.js';
import { cardViewOf } from './card-view.js';
import { blocksAsJson } from '../transport/slack-web-client.js';
import { refreshHomesFor } from './inbox-refresh.js';
import { cardMetadata } from './card-metadata.js';
import { settleCardRepair, adoptCard } from './card-repairs.js';
import { findThread, threadTarget } from './threads.js';

type PostCardOutcome = 'posted' | 'fallback' | 'cancelled' | 'missing';

/**
 * Posts the card for a pending action and remembers where it went. A card that
 * cannot be posted must not leave a run waiting on a button nobody can see:
 * first a plain-text notice is tried, and when even that fails the request is
 * cancelled (the run then continues with a denied result) and logged with a reference.
 * `onCancelled` receives that continuation so the caller can show its outcome.
 * `stored` is the row as the runtime stored it moments ago, when it was this
 * process (see storedActionOf); otherwise the row is read. Drawing the card
 * from it is safe: a decision made meanwhile elsewhere is caught when the
 * card's location is saved, and the card is then redrawn.
 */
export async function showCard(
  ctx: SlackContext,
  actionId: number,
  target: ThreadTarget,
  onCancelled?: (stream: AgentStream) => Promise<void>,
  stored?: Request,
): Promise<PostCardOutcome> {
  let located!: () => void;
  const placed = new Promise<void>((resolve) => (located = resolve));
  const posting = post(ctx, actionId, target, stored?.id === actionId ? stored : undefined, located);
  const inFlight = ctx.cards.startPosting([actionId], posting.catch(() => undefined), placed);
  let result: Awaited<typeof posting>;
  try {
    result = await posting;
  } finally {
    located();
    inFlight.finish();
  }
  // Decided by another instance before the card's location was stored: nobody else can redraw it.
  if (result.decidedMeanwhile && !inFlight.redrawWaiting && !ctx.cards.isDeciding(actionId)) await showCardUpdate(ctx, actionId);
  if (result.continuation) {
    if (onCancelled) await onCancelled(result.continuation);
    else await result.continuation.result;
  }
  return result.outcome;
}

async function post(
  ctx: SlackContext,
  actionId: number,
  target: ThreadTarget,
  stored: Request | undefined,
  located: () => void,
): Promise<{ outcome: PostCardOutcome; continuation?: AgentStream; decidedMeanwhile?: boolean }> {
  const action = stored ?? (await findRequest(ctx, actionId));
  if (!action) {
    ctx.logger.error({ actionId }, 'announced pending action not found');
    return { outcome: 'missing' };
  }
  const log = childLogger(ctx.logger, { actionId, runId: action.runId });
  const { view, unreachableQuorum } = await cardViewOf(ctx, action);
  if (unreachableQuorum) {
    log.warn({ toolName: action.toolName, quorum: action.quorum, eligible: unreachableQuorum.eligible, policyVersion: action.policyVersion }, 'request can never be approved: fewer people may approve it than its quorum');
  }
  const rendered = renderCard(ctx.agent, action, { blocked: false, unreachableQuorum, ...(view ? { view } : {}) });
  try {
    const posted = await ctx.client.chat.postMessage({
      channel: target.channel,
      ...(target.threadTs ? { thread_ts: target.threadTs } : {}),
      text: rendered.text,
      blocks: blocksAsJson(rendered.blocks),
      metadata: cardMetadata({ actionIds: [action.id] }),
    });
    if (!posted.ts) throw new Error('chat.postMessage returned no ts');
    try {
      const saved = await saveCard(ctx.slackDb, {
        action_id: action.id,
        channel: target.channel,
        ts: posted.ts,
        thread_ts: target.threadTs ?? null,
        kind: rendered.kind,
        drawn: cardStateKey(action, false),
      });
      located();
      // The request is in Slack now: the inboxes of who may decide it, and of who asked, show it too.
      refreshHomesFor(ctx, action);
      if (rendered.kind === 'approval' && !saved.decidedMeanwhile) {
        await ctx.routeCard(ctx, action, target, rendered).catch((error: unknown) => log.warn({ err: error }, 'card could not be routed to the approvers'));
      }
      return { outcome: 'posted', decidedMeanwhile: saved.decidedMeanwhile };
    } catch (error) {
      // The card is visible and its buttons work (they carry the action id). Its metadata names the request, so a
      // redraw, or the sweep after CARD_REPAIR_AFTER_MS, finds it in the thread and adopts it (adoptCard).
      log.error({ err: error, ref: errorReference(), ts: posted.ts }, 'card posted but its location could not be stored');
    }
    return { outcome: 'posted' };
  } catch (error) {
    const ref = errorReference();
    log.warn({ err: error, ref }, 'card could not be posted; trying a plain-text notice');
    const what = action.kind === 'approval' ? 'an approval' : 'an answer';
    const notice =
      `:warning: This run is waiting for ${what} on \`${escapeMrkdwn(truncate(action.toolName, 100))}\` (request #${action.id}), ` +
      `but I could not post its card (reference \`${ref}\`). Say \`cancel\` in this thread to stop the run.`;
    try {
      await ctx.client.chat.postMessage({
        channel: target.channel,
        ...(target.threadTs ? { thread_ts: target.threadTs } : {}),
        text: notice,
      });
      return { outcome: 'fallback' };
    } catch (fallbackError) {
      const cancelled = await ctx.agent.cancelRequest(action.id, `The request could not be shown in Slack (reference ${ref}), so it was cancelled.`);
      log.error({ err: fallbackError, ref }, 'neither card nor notice could be posted; request cancelled');
      return cancelled ? { outcome: 'cancelled', continuation: cancelled.stream } : { outcome: 'cancelled' };
    }
  }
}

/**
 * The cards for the approval requests a run announced together when it paused: the calls of one
 * run's step (two or more) share one batch card; a lone call gets the card it always had.
 */
export async function showApprovalCards(
  ctx: SlackContext,
  requests: readonly ApprovalRequest[],
  target: ThreadTarget,
  onCancelled: (stream: AgentStream) => Promise<void>,
): Promise<void> {
  const byRun = new Map<string, ApprovalRequest[]>();
  for (const r of requests) {
    const group = byRun.get(r.runId);
    if (group) group.push(r);
    else byRun.set(r.runId, [r]);
  }
  for (const group of byRun.values()) {
    const stored = group.map((r) => storedRequest(ctx, r));
    if (group.length === 1) await showCard(ctx, group[0]!.actionId, target, onCancelled, stored[0]);
    else await ctx.batches.post(ctx, group.map((r) => r.actionId), target, onCancelled, stored);
  }
}

/**
 * Repairs the card of a request that has none on record (see claimUnpostedCards). A card that was
 * posted but whose location could not be stored is found in the run's thread and adopted, then
 * drawn as its request is now (buttons gone if it was decided meanwhile); only when there is none
 * is the card posted, in the run's thread, as the process that wrote the request would have
 * (and only while the request still waits). Takes off the working reaction that process left on
 * the message that asked.
 */
export async function showUnpostedCard(ctx: SlackContext, actionId: number): Promise<void> {
  const action = await findRequest(ctx, actionId);
  const thread = action ? await findThread(ctx.slackDb, action.rootRunId) : undefined;
  const log = ctx.logger.child({ actionId, runId: action?.runId });
  if (!action || !thread) {
    log.warn('request without a card has no thread on record; its card cannot be posted');
    if (action && action.status !== 'pending') await settleCardRepair(ctx.slackDb, actionId);
    return;
  }
  const adoption = await adoptCard(ctx, action, thread);
  // Slack could not be read: the claim lapses and a later sweep looks again, rather than posting a second card.
  if (adoption === 'failed') return;
  // A notice instead of the card leaves the claim on record: the card is tried again once it lapses.
  let settled = true;
  if (adoption === 'adopted') {
    await showCardUpdate(ctx, actionId);
    log.warn('card adopted by the sweep: it was posted, but where it went had not been stored');
  } else if (action.status !== 'pending') {
    log.info({ status: action.status }, 'request decided without a card: there was none to find');
  } else {
    const target = threadTarget(thread);
    const outcome = await showCard(ctx, actionId, target, (continuation) => ctx.runs.show(ctx, continuation, target), action);
    log.warn({ outcome }, 'card posted by the sweep: the process that wrote the request stopped before posting it');
    settled = outcome !== 'fallback';
  }
  if (settled) await settleCardRepair(ctx.slackDb, actionId);
  if (thread.message_ts) await ctx.runs.clearWorkingReaction(ctx, { channel: thread.channel, ts: thread.message_ts });
}
