import { sql } from 'kysely';
import type { CardKind } from '../kit/action-ids.js';
import type { SlackDb, SlackTables, ThreadTarget, SlackContext } from '../context.js';
import { pendingActionColumns, type PendingAction } from '../../db/rows.js';
import { requestOf, type Request } from '../../agent/request.js';
import { CachedStatement, oneOrAny } from '../../db/cached-statement.js';
import { expiredGrant, noMatchingGrant } from '../../db/grants.js';
import type { RawBuilder, Selectable } from 'kysely';
import type { MessageMetadata } from '@slack/types';
import { isActionId } from '../../db/is-action-id.js';

export interface CardRow {
  action_id: number;
  channel: string;
  ts: string;
  thread_ts: string | null;
  kind: CardKind;
  /** The state key (cardStateKey) the card was last seen to show. */
  drawn: string | null;
  /** Copies routed to approvers (DMs, an approvals channel), redrawn with the card. */
  copies?: CardCopy[];
  /** The members of the batch card this request is on (see postBatchCard); absent or null for a card of its own. */
  batch?: number[] | null;
}

/** Whether two batch memberships (CardRow.batch) are the same calls in the same order. */
export function sameBatch(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((id, i) => id === b[i]);
}

/** PostgreSQL's SQLSTATE for a transaction it ended to break a deadlock, which may simply be run again. */
const DEADLOCK_DETECTED = '40P01';

/**
 * `work` (one statement or one transaction of the card rows), run again when PostgreSQL ends it to
 * break a deadlock. Statements that take several cards lock them in id order (cardsLockedInOrder),
 * but an edit's move of a batch's card cannot lock a row another member's edit inserted while it
 * waited: the two can meet in a deadlock, and the one ended has lost nothing by being run again,
 * now on what the other committed.
 */
export async function againOnDeadlock<T>(work: () => Promise<T>, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if ((error as { code?: unknown }).code !== DEADLOCK_DETECTED || attempt >= attempts) throw error;
    }
  }
}

/**
 * The cards `which` (a condition on `l.action_id`) locked in the order of their ids, as a FROM
 * item named `l` to join the cards to update with: two statements that take several of the same
 * cards (a run's cards marked drawn here, a batch's members redrawn on another instance) then
 * wait for each other at most, never each on the other until PostgreSQL ends one as a deadlock.
 * FOR NO KEY UPDATE is the lock the UPDATE itself takes.
 */
export const cardsLockedInOrder = (which: RawBuilder<unknown>) =>
  sql`(SELECT l.action_id FROM slack_cards l WHERE ${which} ORDER BY l.action_id FOR NO KEY UPDATE) l`;

export interface CardCopy {
  channel: string;
  ts: string;
  /** The approver a DM copy went to; absent for a copy in an approvals channel. */
  user?: string;
}

/**
 * Stores where a card went and says whether its request is still pending.
 * Another instance may have decided the request between the post and this
 * write, when it could not find the card to redraw; the caller then redraws
 * it. The shared lock on the request makes the two meet: a decision either
 * lands before this read (and is seen here) or waits until the card is
 * stored (and its redraw finds it).
 */
export async function saveCard(db: SlackDb, card: CardRow): Promise<{ decidedMeanwhile: boolean }> {
  const result = await cardSave.execute<{ status: string }>(db, '', card);
  const status = result.rows[0]?.status;
  return { decidedMeanwhile: status !== undefined && status !== 'pending' };
}

const cardSave = new CachedStatement<Pick<CardRow, 'action_id' | 'channel' | 'ts' | 'thread_ts' | 'kind' | 'drawn'>>(
  (card) => sql`
    WITH saved AS (
      INSERT INTO slack_cards (action_id, channel, ts, thread_ts, kind, drawn)
      VALUES (${card.action_id}, ${card.channel}, ${card.ts}, ${card.thread_ts}, ${card.kind}, ${card.drawn})
      ON CONFLICT (action_id) DO UPDATE
        SET channel = EXCLUDED.channel, ts = EXCLUDED.ts, thread_ts = EXCLUDED.thread_ts, kind = EXCLUDED.kind,
            drawn = EXCLUDED.drawn, drawn_at = now(), settled = false, repair_claimed_at = NULL
      RETURNING action_id
    )
    SELECT p.status FROM pending_actions p WHERE p.id = ${card.action_id} AND EXISTS (SELECT 1 FROM saved) FOR SHARE OF p
  `,
);

export async function findCard(db: SlackDb, actionId: number): Promise<CardRow | undefined> {
  return db
    .selectFrom('slack_cards')
    .select(['action_id', 'channel', 'ts', 'thread_ts', 'kind', 'drawn', 'copies', 'batch'])
    .where('action_id', '=', actionId)
    .executeTakeFirst();
}

/**
 * Records copies of a card posted to the approvers. Only routed requests write this, after their
 * card is stored, so the default path costs nothing more.
 */
export async function addCardCopies(db: SlackDb, actionId: number, copies: CardCopy[]): Promise<void> {
  if (copies.length === 0) return;
  await sql`UPDATE slack_cards SET copies = copies || ${JSON.stringify(copies)}::jsonb WHERE action_id = ${actionId}`.execute(db);
}

/** Where the cards of these requests are, by action id (requests without a card are absent). */
export async function findCards(db: SlackDb, actionIds: readonly number[]): Promise<Map<number, CardRow>> {
  if (actionIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('slack_cards')
    .select(['action_id', 'channel', 'ts', 'thread_ts', 'kind', 'drawn', 'copies', 'batch'])
    .where('action_id', 'in', [...new Set(actionIds)])
    .execute();
  return new Map(rows.map((r) => [r.action_id, r]));
}

/** Everything drawing a card needs, read together. */
export interface CardState {
  action: Request;
  /** Where the card was posted; absent when it never was (or its location could not be stored). */
  card?: CardRow;
  /**
   * An approved call stopped at the gate because what was about to run no
   * longer matched what was approved. The audit log is where the runtime
   * records that, so any instance draws the card the same way.
   */
  blocked: boolean;
  /**
   * Why it was blocked, in words (blockedReasonText of the latest `blocked` audit event of its call,
   * `detail.reason`); absent for arguments that no longer match, which the card says in its usual words.
   */
  blockedReason?: string;
}

/**
 * The request's current row, its card's location and whether it was blocked,
 * in one read: a click and a redraw each need all three, and a round trip
 * costs more than the join.
 */
export async function loadCardState(db: SlackDb, actionId: number): Promise<CardState | undefined> {
  return (await loadCardStates(db, [actionId]))[0];
}

/** The same for several requests (a batch card's members) in one read, in the order asked; unknown ids are left out. */
export async function loadCardStates(db: SlackDb, actionIds: readonly number[]): Promise<CardState[]> {
  if (actionIds.length === 0) return [];
  const one = actionIds.length === 1;
  const result = await cardStates.execute<PendingAction & { card: CardRow | null; blocked: boolean; blocked_reason: string | null }>(
    db,
    one ? 'one' : 'many',
    { ids: one ? actionIds[0]! : [...actionIds] },
  );
  const byId = new Map(
    result.rows.map((row) => {
      const { card, blocked, blocked_reason, ...stored } = row;
      const reason = blocked && blocked_reason ? blockedReasonText(blocked_reason) : undefined;
      const action = requestOf(stored);
      return [action.id, { action, ...(card ? { card } : {}), blocked, ...(reason !== undefined ? { blockedReason: reason } : {}) } satisfies CardState];
    }),
  );
  return actionIds.flatMap((id) => byId.get(id) ?? []);
}

/** One request (a click, a redraw) is asked for alone, so the statement keeps its plan (oneOrAny). */
const cardStates = new CachedStatement<{ ids: number | number[] }, 'one' | 'many'>(
  (p, shape) => sql`
    SELECT ${pendingActionColumns('p')},
      (SELECT jsonb_build_object('action_id', c.action_id, 'channel', c.channel, 'ts', c.ts, 'thread_ts', c.thread_ts, 'kind', c.kind, 'drawn', c.drawn, 'copies', c.copies, 'batch', c.batch)
       FROM slack_cards c WHERE c.action_id = p.id) AS card,
      ${blockedSql('p')} AS blocked,
      (SELECT a.detail->>'reason' FROM audit_events a
       WHERE p.kind = 'approval' AND p.status = 'approved' AND a.run_id = p.run_id AND a.tool_call_id = p.tool_call_id AND a.event = 'blocked'
       ORDER BY a.id DESC LIMIT 1) AS blocked_reason
    FROM pending_actions p
    WHERE ${oneOrAny('p.id', p.ids, shape === 'many', 'integer[]')}
  `,
);

/**
 * What a card shows of its request, as a short key: the status, how many
 * approvals it has, and whether the approved call was blocked at the gate.
 * Two draws with the same key look the same; slack_cards.drawn holds the key
 * a card was last seen to show, so a card whose key differs from its
 * request's (a redraw that failed, landed out of order or never happened) is
 * found and redrawn. cardStateKeySql computes the same key in SQL.
 */
export function cardStateKey(action: Pick<Request, 'status' | 'approvals'>, blocked: boolean): string {
  return `${action.status}:${action.approvals.length}${blocked ? ':blocked' : ''}`;
}

/** Whether the approved call of the request in `p` was stopped at its grant check (see loadCardState). */
export const blockedSql = (p: string) =>
  sql.raw(`(${p}.kind = 'approval' AND ${p}.status = 'approved' AND EXISTS (
        SELECT 1 FROM audit_events a
        WHERE a.run_id = ${p}.run_id AND a.tool_call_id = ${p}.tool_call_id AND a.event = 'blocked'))`);

/** cardStateKey of the pending_actions row aliased `p`. */
export const cardStateKeySql = (p: string) =>
  sql`(${sql.raw(p)}.status || ':' || jsonb_array_length(${sql.raw(p)}.approvals) || CASE WHEN ${blockedSql(p)} THEN ':blocked' ELSE '' END)`;

/** The reasons the runtime writes on a `blocked` audit event besides a grant that does not match, in words. */
const blockedWords: Record<string, string> = {
  'preview failed': 'its preview failed right before it was to run, so the state it was approved for could not be checked',
  'tool definition unreadable': "its MCP server's definition of the tool could not be checked right before it ran",
  'tool gone': 'its MCP server no longer offers the tool',
  'tool definition changed': 'its MCP server changed the tool after it was approved, and the arguments no longer fit it',
  [expiredGrant]: 'the approval expired before the call ran; it was asked again',
};

/**
 * Why an approved call was stopped, in words (plain text), from its `blocked` audit event's
 * reason: undefined for arguments that no longer match (the card's usual words); a reason of a
 * `beforeToolCall` hook's, or any other, quoted.
 */
export function blockedReasonText(reason: string | undefined): string | undefined {
  if (reason === undefined || reason === noMatchingGrant) return undefined;
  return Object.hasOwn(blockedWords, reason) ? blockedWords[reason] : `a check right before it ran refused it (${reason})`;
}

/**
 * Where a top-level run talks: its channel and thread (null thread: a DM's top level), who asked
 * and the message that asked (it carries the working reaction meanwhile).
 */
export type ThreadRow = Omit<Selectable<SlackTables['slack_threads']>, 'created_at'>;

/** Where to post in a run's thread. */
export function threadTarget(thread: Pick<ThreadRow, 'channel' | 'thread_ts'>): ThreadTarget {
  return { channel: thread.channel, ...(thread.thread_ts ? { threadTs: thread.thread_ts } : {}) };
}

export async function findThread(db: SlackDb, runId: string): Promise<ThreadRow | undefined> {
  return db
    .selectFrom('slack_threads')
    .select(['run_id', 'channel', 'thread_ts', 'team_id', 'requester', 'message_ts'])
    .where('run_id', '=', runId)
    .executeTakeFirst();
}

/** The threads of these top-level runs, by run id (one statement; none for no runs). */
export async function findThreads(db: SlackDb, runIds: readonly string[]): Promise<Map<string, ThreadRow>> {
  if (runIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('slack_threads')
    .select(['run_id', 'channel', 'thread_ts', 'team_id', 'requester', 'message_ts'])
    .where('run_id', 'in', [...new Set(runIds)])
    .execute();
  return new Map(rows.map((r) => [r.run_id, r]));
}

/** Records a run's thread on its own (claimEventStartingRun does it with the claim on the common path). */
export async function recordThread(db: SlackDb, thread: ThreadRow): Promise<void> {
  await db.insertInto('slack_threads').values(thread).onConflict((oc) => oc.column('run_id').doNothing()).execute();
}

/**
 * Where a run's continuation talks: beside the card, else in the run's thread,
 * else where the click was. `known` is the card as the caller just read it
 * (showCardUpdate returns it), to save reading it again.
 */
export async function targetForAction(
  ctx: SlackContext,
  action: Pick<Request, 'id' | 'rootRunId'>,
  fallback?: ThreadTarget,
  known?: { card: CardRow | undefined },
): Promise<ThreadTarget | undefined> {
  const card = known ? known.card : await findCard(ctx.slackDb, action.id);
  if (card) return { channel: card.channel, ...(card.thread_ts ? { threadTs: card.thread_ts } : {}) };
  const thread = await findThread(ctx.slackDb, action.rootRunId);
  if (thread) return threadTarget(thread);
  return fallback;
}

/** The message metadata event type that marks a message as a card (see cardMetadata). */
export const CARD_EVENT_TYPE = 'approval_bot_card';

/** What a card message says it shows, as its metadata carries it. */
export interface CardMessageFacts {
  /** The requests the message shows: one for a card of its own, a part's calls for a batch card. */
  actionIds: number[];
  /** Every call of the batch this message is a part of, in order; absent for a card of its own. */
  batch?: number[];
  /** A copy routed to approvers (a DM, an approvals channel), not the card in the run's thread. */
  copy?: boolean;
}

/**
 * Slack message metadata for a card. The card's location is stored after it is posted; when that
 * store fails (the database connection dropped between the two) the message itself still says
 * which requests it shows, so the card can be found in its thread and adopted instead of being
 * posted a second time (see adoptCard).
 */
export function cardMetadata(facts: CardMessageFacts): MessageMetadata {
  return {
    event_type: CARD_EVENT_TYPE,
    // Lists as text: the payload's values are strings, numbers, booleans or objects.
    event_payload: { action_ids: facts.actionIds.join(','), ...(facts.batch ? { batch: facts.batch.join(',') } : {}), ...(facts.copy ? { copy: true } : {}) },
  };
}

/** The facts of a card message's metadata payload; undefined when it is not one of ours as cardMetadata writes it. */
export function parseCardMetadata(payload: Record<string, unknown>): CardMessageFacts | undefined {
  const ids = idList(payload.action_ids);
  if (!ids) return undefined;
  const batch = payload.batch === undefined ? undefined : idList(payload.batch);
  if (payload.batch !== undefined && (!batch || !ids.every((id) => batch.includes(id)))) return undefined;
  if (payload.copy !== undefined && payload.copy !== true) return undefined;
  return { actionIds: ids, ...(batch ? { batch } : {}), ...(payload.copy === true ? { copy: true } : {}) };
}

function idList(value: unknown): number[] | undefined {
  if (typeof value !== 'string' || !/^\d{1,10}(,\d{1,10})*$/.test(value)) return undefined;
  const ids = value.split(',').map(Number);
  return ids.every(isActionId) && new Set(ids).size === ids.length ? ids : undefined;
}
