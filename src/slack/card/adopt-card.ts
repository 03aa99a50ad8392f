import type { PendingAction } from '../../db/rows.js';
import type { SlackContext } from '../context.js';
import { findCard } from './cards.js';
import { flagLostCard } from './claim-unposted-cards.js';
import { recordFoundCards } from './record-found-cards.js';
import { findThread, threadTarget, type ThreadRow } from './threads.js';
import { refreshHomesFor } from './inbox-refresh.js';
import { CARD_EVENT_TYPE, parseCardMetadata, type CardMessageFacts } from './card-metadata.js';
import { cardKindOf } from './card-subject.js';
import { errorReference } from '../kit/error-reference.js';
import { botMessagesWithMetadata } from './metadata-messages.js';
import { renderCard } from './render-card.js';
import { routeCard } from '../routing/card-copies.js';
import { unreachableQuorumOf } from './unreachable-quorum-of.js';

/** How long before its request was written a card is looked for: the database's clock and Slack's may disagree a little. */
const CLOCK_SKEW_S = 300;

/**
 * What looking for a request's card in its thread found: the card (now on record), none (it was
 * never posted), or nothing known (Slack could not be read; the request is then on the sweep's
 * list, see flagLostCard).
 */
export type Adoption = 'adopted' | 'none' | 'failed';

/**
 * The lookup of each run's thread under way in this process: the next one for the same thread
 * waits for it. Kept by the process's map of card redraws, which every view of its context shares
 * (the sweep's backlog works with one of its own, on another client).
 */
const lookups = new WeakMap<SlackContext['cardRedraws'], Map<string, Promise<unknown>>>();

/**
 * A request without a card row may still have a card in Slack: its process posted it and then
 * could not store where it went (the database connection dropped in between, or the process
 * stopped). Every card carries the ids of its requests in its message metadata (cardMetadata), so
 * the card is looked for among the bot's messages in the run's thread and, when found, stored as
 * the request's card (for a batch card, every part found, for all its members): from then on it
 * is redrawn, clicked and swept like any other. Nothing is drawn here; the caller draws. A card
 * adopted while its approval request is still pending was never routed (routing follows the
 * store), so its copies go to the approvers now, as postCard would have sent them.
 * `thread` is the run's thread when the caller has read it already.
 */
export async function adoptCard(ctx: SlackContext, action: PendingAction, thread?: ThreadRow): Promise<Adoption> {
  if (action.kind !== 'approval' && action.kind !== 'suspension') return 'none';
  let queue = lookups.get(ctx.cardRedraws);
  if (!queue) lookups.set(ctx.cardRedraws, (queue = new Map()));
  // The members of one batch are claimed together; one lookup of their thread adopts them all.
  const key = action.root_run_id;
  const before = queue.get(key);
  const mine = (async () => {
    if (before) await before.catch(() => undefined);
    return adopt(ctx, action, thread);
  })();
  queue.set(key, mine);
  try {
    return await mine;
  } finally {
    if (queue.get(key) === mine) queue.delete(key);
  }
}

async function adopt(ctx: SlackContext, action: PendingAction, known: ThreadRow | undefined): Promise<Adoption> {
  const log = ctx.logger.child({ actionId: action.id, runId: action.run_id });
  try {
    if (await findCard(ctx.slackDb, action.id)) return 'adopted';
    const thread = known ?? (await findThread(ctx.slackDb, action.root_run_id));
    if (!thread) return 'none';
    const target = threadTarget(thread);
    const oldest = String(Math.floor(new Date(action.created_at).getTime() / 1000) - CLOCK_SKEW_S);
    const cards = (await botMessagesWithMetadata(ctx, target, CARD_EVENT_TYPE, { oldest })).flatMap(({ ts, payload }) => {
      const facts = parseCardMetadata(payload);
      return facts && !facts.copy ? [{ ts, ...facts }] : [];
    });
    // The first card that shows it: a second one could only be a copy posted by a repair of old.
    const found = cards.find((c) => c.actionIds.includes(action.id));
    if (!found) return 'none';
    const where = { channel: thread.channel, thread_ts: thread.thread_ts };
    const stored = await recordFoundCards(ctx.slackDb, found.batch ? batchRows(cards, found.batch, where) : [{ action_id: action.id, ...where, ts: found.ts, kind: cardKindOf(ctx.agent, action), batch: null }]);
    log.warn({ ts: found.ts, batch: found.batch, stored }, 'card found in its thread by its metadata and adopted: where it went had not been stored');
    refreshHomesFor(ctx, action);
    if (!found.batch && stored.includes(action.id) && action.kind === 'approval' && action.status === 'pending') {
      const rendered = renderCard(ctx.agent, action, { blocked: false, unreachableQuorum: await unreachableQuorumOf(ctx, action) });
      await routeCard(ctx, action, target, rendered).catch((error: unknown) => log.warn({ err: error }, 'adopted card could not be routed to the approvers'));
    }
    return 'adopted';
  } catch (error) {
    log.warn({ err: error, ref: errorReference() }, 'could not look for a card whose location is not on record; the sweep looks again');
    await flagLostCard(ctx.slackDb, action.id).catch((flagError: unknown) => log.error({ err: flagError }, 'a card whose location is not on record could not be put on the sweep\'s list'));
    return 'failed';
  }
}

/**
 * The rows of a batch card's members, at the part that shows each: the parts of `batch` found in
 * the thread. Calls whose part is not there were posted on cards of their own (their part's post
 * failed) and are left out of the batch, as postBatchCard leaves them out.
 */
function batchRows(cards: ReadonlyArray<CardMessageFacts & { ts: string }>, batch: readonly number[], where: { channel: string; thread_ts: string | null }) {
  const parts = cards.filter((c) => c.batch !== undefined && sameList(c.batch, batch));
  const shown = new Map(parts.flatMap((p) => p.actionIds.map((id) => [id, p.ts] as const)));
  const members = batch.filter((id) => shown.has(id));
  return members.map((id) => ({ action_id: id, ...where, ts: shown.get(id)!, kind: 'approval' as const, batch: members }));
}

function sameList(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}
