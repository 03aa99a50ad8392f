import type { AgentStream, ApprovalRequest } from '../../agent/api-types.js';
import type { Request } from '../../agent/request.js';
import { childLogger } from '../../agent/child-logger.js';
import { escapeMrkdwn } from '../kit/mrkdwn/escape-mrkdwn.js';
import { errorReference } from '../kit/error-reference.js';
import { truncate } from '../kit/limits.js';
import { findRequest, type SlackContext, type ThreadTarget, storedRequest } from '../context.js';
import { saveCard, cardStateKey, findThread, threadTarget, cardMetadata } from './cards.js';
import { showCardUpdate } from './show-card-update.js';
import { refreshHomesFor, cardViewOf } from './lifecycle.js';
import { renderCard } from './render-card.js';
import { blocksAsJson, slackErrorCode } from '../transport/slack-web-client.js';
import { settleCardRepair, adoptCard } from './card-repairs.js';

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

/** Private channels are read this many members at a time, and at most this many pages. */
const MEMBERS_PAGE = 200;
const MEMBERS_PAGES_MAX = 5;
/**
 * A public channel is believed public this long: a channel made private since then keeps its
 * cards in the channel for at most this while. Private channels are never remembered, since their
 * members are what counts and they change.
 */
const PUBLIC_FOR_MS = 10 * 60_000;
const PUBLIC_CHANNELS_MAX = 1000;

function knownPublic(ctx: SlackContext, channel: string): boolean {
  const since = ctx.publicChannels?.get(channel);
  if (since === undefined) return false;
  if (Date.now() - since < PUBLIC_FOR_MS) return true;
  ctx.publicChannels?.delete(channel);
  return false;
}

function rememberPublic(ctx: SlackContext, channel: string): void {
  const known = ctx.publicChannels;
  if (!known) return;
  // Oldest first (insertion order): the map stays small however many channels the bot is in.
  if (known.size >= PUBLIC_CHANNELS_MAX) known.delete(known.keys().next().value!);
  known.set(channel, Date.now());
}

/**
 * Whether `channel` is private and none of its members may approve `action`, each asked with the
 * rule every decision is checked with (Agent.mayDecide: listed users, group members, self-approval,
 * never the bot). A private channel's members are asked afresh for every request: they change,
 * and a stale answer would hide a card or send it needlessly. When Slack cannot be asked (missing
 * `groups:read`, a channel too large to list) or a group cannot be read, the card stays in the
 * channel as before.
 */
export async function privateWithoutApprovers(ctx: SlackContext, action: Request, channel: string): Promise<boolean> {
  if (knownPublic(ctx, channel)) return false;
  try {
    const info = await ctx.client.conversations.info({ channel });
    if (!info.channel?.is_private) {
      rememberPublic(ctx, channel);
      return false;
    }
    const members: string[] = [];
    let cursor: string | undefined;
    for (let pages = 0; ; pages++) {
      if (pages === MEMBERS_PAGES_MAX) return false;
      const page = await ctx.client.conversations.members({ channel, limit: MEMBERS_PAGE, ...(cursor ? { cursor } : {}) });
      members.push(...(page.members ?? []));
      cursor = page.response_metadata?.next_cursor || undefined;
      if (!cursor) break;
    }
    for (const userId of members) {
      if (userId === ctx.botUserId) continue;
      const verdict = await ctx.agent.mayDecide(action, { userId }, 'approve');
      if (verdict.allowed) return false;
      if (verdict.why === 'group-lookup-failed') {
        ctx.logger.warn({ actionId: action.id, channel }, 'could not tell whether anyone in the channel may approve; the card stays there');
        return false;
      }
    }
    return true;
  } catch (error) {
    // conversations.info on a public channel needs channels:read, which the bot does not ask for:
    // Slack's refusal is itself the answer "not private".
    if (slackErrorCode(error) === 'missing_scope') {
      rememberPublic(ctx, channel);
      return false;
    }
    ctx.logger.warn({ err: error, actionId: action.id, channel }, 'could not tell whether anyone in the channel may approve; the card stays there');
    return false;
  }
}
