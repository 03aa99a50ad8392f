import type { CardPosting, CardsInFlight, SlackContext } from '../context.js';
import type { RequestView } from '../../agent/request-view.js';
import type { Request } from '../../agent/request.js';
import { approversAt } from '../../approvals/approvers-at.js';
import { isUserGroupId, isUserId } from '../kit/mention.js';

interface InFlight {
  /** Settles once the card is posted and its location stored (or that failed), and it was routed. */
  readonly done: Promise<unknown>;
  /** Settles once the card's location is stored, or could not be (the post failed, or the save). */
  readonly stored: Promise<unknown>;
  redrawWaiting: boolean;
}

/**
 * What this process is doing with its cards right now, and the order it does it in: cards being
 * posted (a redraw or a click that arrives before the card's location is stored waits for it),
 * requests being decided (a card still being stored leaves their redraw to the decision), and one
 * redraw of a card, of a batch, or lookup of a run's thread at a time (the next waits its turn).
 * The one owner of these in-flight maps: callers say what they do, never touch the maps. Every
 * view of a SlackContext (`{ ...ctx, client }`) shares its lifecycle; the sweep's backlog works
 * with one of its own.
 */
export class CardLifecycle implements CardsInFlight {
  private readonly posting = new Map<number, InFlight>();
  private readonly deciding = new Map<number, number>();
  private readonly redraws = new Map<number, Promise<unknown>>();
  private readonly batchRedraws = new Map<string, Promise<unknown>>();
  private readonly threadLookups = new Map<string, Promise<unknown>>();

  /**
   * These requests' card is being posted: `done` settles when the post (and its routing) is over,
   * `stored` when where it went is stored (or could not be). Call finish() when the post is over.
   */
  startPosting(actionIds: readonly number[], done: Promise<unknown>, stored: Promise<unknown>): CardPosting {
    const entries = actionIds.map((id) => [id, { done, stored, redrawWaiting: false }] as const);
    for (const [id, entry] of entries) this.posting.set(id, entry);
    return {
      get redrawWaiting() {
        return entries.some(([, entry]) => entry.redrawWaiting);
      },
      finish: () => {
        for (const [id, entry] of entries) if (this.posting.get(id) === entry) this.posting.delete(id);
      },
    };
  }

  /** A redraw waits for a post of the card under way here (and tells the poster it will redraw); whether there was one. */
  async redrawAfterPost(actionId: number): Promise<boolean> {
    const entry = this.posting.get(actionId);
    if (!entry) return false;
    entry.redrawWaiting = true;
    await entry.done;
    return true;
  }

  /**
   * A click can arrive between chat.postMessage returning and the card's location being stored
   * (one statement later): waits until these requests' cards being posted here are stored. Costs
   * nothing for any other card.
   */
  async whenStored(actionIds: readonly number[]): Promise<void> {
    for (const id of actionIds) await this.posting.get(id)?.stored;
  }

  /**
   * Marks a request as being decided in this process, from the decision until the redraw of its
   * card; call the returned function when done (more than once is harmless). A card this process
   * is still storing then leaves the redraw to this decision instead of drawing it too.
   */
  markDeciding(actionId: number): () => void {
    this.deciding.set(actionId, (this.deciding.get(actionId) ?? 0) + 1);
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const left = (this.deciding.get(actionId) ?? 1) - 1;
      if (left > 0) this.deciding.set(actionId, left);
      else this.deciding.delete(actionId);
    };
  }

  /** Whether a decision of this request is under way in this process (see markDeciding). */
  isDeciding(actionId: number): boolean {
    return this.deciding.has(actionId);
  }

  /** Runs a redraw of this request's card after any under way here; `waited`: there was one. */
  redrawInTurn<T>(actionId: number, work: (waited: boolean) => Promise<T>): Promise<T> {
    return inTurn(this.redraws, actionId, work);
  }

  /** Runs a redraw of the batch card of this run after any under way here (see CardsInFlight). */
  batchRedrawInTurn<T>(runId: string, work: () => Promise<T>): Promise<T> {
    return inTurn(this.batchRedraws, runId, () => work());
  }

  /** Runs a lookup of this run's thread (for cards to adopt) after any under way here. */
  threadLookupInTurn<T>(rootRunId: string, work: () => Promise<T>): Promise<T> {
    return inTurn(this.threadLookups, rootRunId, () => work());
  }
}

/** `work` once the one before it under `key` has settled (however it did); the queue forgets each when it is done. */
async function inTurn<K, T>(queue: Map<K, Promise<unknown>>, key: K, work: (waited: boolean) => Promise<T>): Promise<T> {
  const before = queue.get(key);
  const mine = (async () => {
    if (before) await before.catch(() => undefined);
    return work(before !== undefined);
  })();
  queue.set(key, mine);
  try {
    return await mine;
  } finally {
    if (queue.get(key) === mine) queue.delete(key);
  }
}

/** Marks a request as being decided in this process (see CardLifecycle.markDeciding). */
export function markDecisionInFlight(ctx: { readonly cards: CardsInFlight }, actionId: number): () => void {
  return ctx.cards.markDeciding(actionId);
}

/** What drawing an approval card takes besides its row: the request's view and whether its quorum can be reached. */
interface CardView {
  view?: RequestView;
  unreachableQuorum?: { eligible: number };
}

/**
 * The view a card is drawn from (one policy evaluation, see Agent.viewRequest) and, for a pending
 * approval, whether it can never reach its quorum under the policy in force (the approvers who
 * may decide it, as decisions are checked, counted against the quorum it was asked with): what
 * the card warns about. Costs nothing unless the listed users fall short; then user groups are
 * looked up through the workspace's cached resolver. Other kinds of request need no view.
 */
export async function cardViewOf(ctx: SlackContext, action: Request): Promise<CardView> {
  if (action.kind !== 'approval') return {};
  const view = ctx.agent.viewRequest(action);
  const unreachableQuorum = await view.unreachableQuorum(ctx.botUserId);
  return { view, ...(unreachableQuorum ? { unreachableQuorum } : {}) };
}

/** Members of one approver group listed at most; a larger group sees its Home update when it is opened. */
const GROUP_MEMBERS_MAX = 200;

/**
 * Whose inbox shows this request: its requester, whoever decided or voted, and who may decide it
 * under the policy at `now` (listed users, members of listed groups, and those an escalation has
 * added by then; `everyone` when anyone may).
 */
export async function affectedUsers(ctx: SlackContext, action: Request, now = new Date()): Promise<{ users: string[]; everyone: boolean }> {
  const users = new Set<string>();
  if (action.requester) users.add(action.requester);
  if (action.decidedBy) users.add(action.decidedBy);
  for (const vote of Array.isArray(action.approvals) ? action.approvals : []) {
    const id = (vote as { userId?: unknown } | null)?.userId;
    if (typeof id === 'string') users.add(id);
  }
  const approvers = approversAt(ctx.agent.requirementOf(action), new Date(action.createdAt), now);
  const resolve = ctx.agent.groupResolver;
  for (const id of approvers) {
    if (isUserId(id)) users.add(id);
    else if (isUserGroupId(id) && resolve) {
      try {
        for (const member of (await resolve(id)).slice(0, GROUP_MEMBERS_MAX)) users.add(member);
      } catch (error) {
        ctx.logger.warn({ err: error, group: id }, 'approver group could not be read for Home updates');
      }
    }
  }
  if (ctx.botUserId) users.delete(ctx.botUserId);
  return { users: [...users].filter(isUserId), everyone: approvers.length === 0 };
}

/** Queues a Home refresh for everyone whose inbox shows `action`; never throws (a Home is a view, not the record). */
export function refreshHomesFor(ctx: SlackContext, action: Request | undefined): void {
  if (!ctx.home || !action || action.kind !== 'approval') return;
  const home = ctx.home;
  affectedUsers(ctx, action).then(
    ({ users, everyone }) => home.refresh(users, everyone),
    (error: unknown) => ctx.logger.warn({ err: error, actionId: action.id }, 'Home refresh failed'),
  );
}
