import type { Request } from '../../agent/request.js';
import type { SlackContext, ThreadTarget, SlackDb } from '../context.js';
import { findCard, type CardRow, blockedSql, cardStateKeySql, sameBatch, findThread, threadTarget, type ThreadRow, CARD_EVENT_TYPE, parseCardMetadata, type CardMessageFacts } from './cards.js';
import { refreshHomesFor, cardViewOf } from './lifecycle.js';
import { cardKindOf, renderCard } from './render-card.js';
import { errorReference } from '../kit/error-reference.js';
import { sql, type RawBuilder } from 'kysely';

/** How long before its request was written a card is looked for: the database's clock and Slack's may disagree a little. */
const CLOCK_SKEW_S = 300;

/**
 * What looking for a request's card in its thread found: the card (now on record), none (it was
 * never posted), or nothing known (Slack could not be read; the request is then on the sweep's
 * list, see flagLostCard).
 */
type Adoption = 'adopted' | 'none' | 'failed';

/**
 * A request without a card row may still have a card in Slack: its process posted it and then
 * could not store where it went (the database connection dropped in between, or the process
 * stopped). Every card carries the ids of its requests in its message metadata (cardMetadata), so
 * the card is looked for among the bot's messages in the run's thread and, when found, stored as
 * the request's card (for a batch card, every part found, for all its members): from then on it
 * is redrawn, clicked and swept like any other. Nothing is drawn here; the caller draws. A card
 * adopted while its approval request is still pending was never routed (routing follows the
 * store), so its copies go to the approvers now, as showCard would have sent them.
 * `thread` is the run's thread when the caller has read it already.
 */
export async function adoptCard(ctx: SlackContext, action: Request, thread?: ThreadRow): Promise<Adoption> {
  if (action.kind !== 'approval' && action.kind !== 'suspension') return 'none';
  // The members of one batch are claimed together; one lookup of their thread adopts them all.
  return ctx.cards.threadLookupInTurn(action.rootRunId, () => adopt(ctx, action, thread));
}

async function adopt(ctx: SlackContext, action: Request, known: ThreadRow | undefined): Promise<Adoption> {
  const log = ctx.logger.child({ actionId: action.id, runId: action.runId });
  try {
    if (await findCard(ctx.slackDb, action.id)) return 'adopted';
    const thread = known ?? (await findThread(ctx.slackDb, action.rootRunId));
    if (!thread) return 'none';
    const target = threadTarget(thread);
    const oldest = String(Math.floor(new Date(action.createdAt).getTime() / 1000) - CLOCK_SKEW_S);
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
      const rendered = renderCard(ctx.agent, action, { blocked: false, ...(await cardViewOf(ctx, action)) });
      await ctx.routeCard(ctx, action, target, rendered).catch((error: unknown) => log.warn({ err: error }, 'adopted card could not be routed to the approvers'));
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
  const parts = cards.filter((c) => c.batch !== undefined && sameBatch(c.batch, batch));
  const shown = new Map(parts.flatMap((p) => p.actionIds.map((id) => [id, p.ts] as const)));
  const members = batch.filter((id) => shown.has(id));
  return members.map((id) => ({ action_id: id, ...where, ts: shown.get(id)!, kind: 'approval' as const, batch: members }));
}

/** The Slack store's repair claims: which instance posts what a stopped process left unposted. */
type RepairTable = { table: 'slack_card_repairs'; key: 'action_id' } | { table: 'slack_result_repairs'; key: 'run_id' };

/**
 * One statement that claims, for this caller, up to `limit` of `candidates` (a query returning
 * `id` and `sort`) that nobody claimed in the last `graceMs`, oldest `sort` first. A claim older
 * than `graceMs` is taken over: the instance that held it stopped too. Returns the claimed keys
 * as `{ [key]: … }` rows (RETURNING), so it can stand alone or in a CTE.
 *
 * Candidates of one `sort` (answers of runs that ended in the same microsecond) are taken in the
 * order of their keys: two instances' sweeps then claim shared rows in one order, and one waits
 * for the other instead of each holding a row the other waits for.
 */
export function claimRepairs({ table, key }: RepairTable, candidates: RawBuilder<unknown>, graceMs: number, limit: number): RawBuilder<unknown> {
  const grace = sql`make_interval(secs => ${graceMs} / 1000.0)`;
  return sql`
    INSERT INTO ${sql.table(table)} (${sql.ref(key)})
    SELECT c.id FROM (${candidates}) c
    WHERE NOT EXISTS (SELECT 1 FROM ${sql.table(table)} x WHERE x.${sql.ref(key)} = c.id AND x.claimed_at >= now() - ${grace})
    ORDER BY c.sort, c.id
    LIMIT ${limit}
    ON CONFLICT (${sql.ref(key)}) DO UPDATE SET claimed_at = now()
      WHERE ${sql.ref(`${table}.claimed_at`)} < now() - ${grace}
    RETURNING ${sql.ref(key)}
  `;
}

/**
 * Cards of `agentId` that do not show their request as it is: a redraw that
 * failed every retry, landed before an older one, or never happened because
 * its process stopped between the decision and the redraw. Only changes older
 * than `graceMs` count (a redraw may still be under way), and each card
 * returned is claimed for this caller in the same statement, so one instance
 * redraws it; a claim is retried once it is `graceMs` old. Cards that show a
 * request that can change no more are marked settled in passing, and are not
 * looked at again: the scan only ever covers recent cards.
 *
 * A card another statement holds (a click redrawing it, another instance's
 * sweep) is passed over until a later sweep (SKIP LOCKED), so the sweep never
 * waits on a click, nor two sweeps on each other in opposite orders. What a
 * card shows and its claim are checked on the card as it is once locked, not
 * as the statement first read it: a card another instance claimed and
 * committed meanwhile is not claimed a second time.
 */
export async function claimStaleCards(db: SlackDb, agentId: string, graceMs: number, limit = 50): Promise<number[]> {
  const grace = sql`make_interval(secs => ${graceMs} / 1000.0)`;
  const result = await sql<{ action_id: number }>`
    WITH cards AS (
      SELECT c.action_id, ${cardStateKeySql('p')} AS key,
        (p.status <> 'pending' AND (p.status <> 'approved' OR ${blockedSql('p')}
          OR NOT EXISTS (SELECT 1 FROM run_snapshots s WHERE s.run_id = p.run_id))) AS final,
        COALESCE(p.decided_at, (SELECT max((a->>'at')::timestamptz) FROM jsonb_array_elements(p.approvals) a), p.created_at) AS changed_at
      FROM slack_cards c JOIN pending_actions p ON p.id = c.action_id
      WHERE NOT c.settled AND p.path->>0 = ${agentId}
    ), settle AS (
      UPDATE slack_cards c SET settled = true
      FROM (
        SELECT l.action_id FROM slack_cards l JOIN cards x ON x.action_id = l.action_id
        WHERE x.final AND l.drawn = x.key
        ORDER BY l.action_id
        FOR NO KEY UPDATE OF l SKIP LOCKED
      ) x
      WHERE c.action_id = x.action_id
    )
    UPDATE slack_cards c SET repair_claimed_at = now()
    FROM (
      SELECT l.action_id FROM slack_cards l JOIN cards x ON x.action_id = l.action_id
      WHERE l.drawn IS DISTINCT FROM x.key AND x.changed_at < now() - ${grace}
        AND (l.repair_claimed_at IS NULL OR l.repair_claimed_at < now() - ${grace})
      ORDER BY l.action_id
      LIMIT ${limit}
      FOR NO KEY UPDATE OF l SKIP LOCKED
    ) x
    WHERE c.action_id = x.action_id
    RETURNING c.action_id
  `.execute(db);
  return result.rows.map((r) => r.action_id);
}

/**
 * Stores where cards found in Slack are (see adoptCard): cards that were posted but whose
 * location was never stored. Only where a request has no card row yet: another instance may have
 * adopted the same message a moment before, and only one of them may go on to route it. `drawn`
 * is left unknown, so whatever draws next draws the request as it is. Every caller draws the card
 * it adopted, so the row is stored with its redraw claimed (as claimStaleCards claims one): a
 * sweep in between would otherwise find it undrawn and redraw it a second time; a draw that fails
 * leaves the claim to lapse, and the sweep draws it then. One statement for a card of its own and
 * a batch's members alike; returns the ids this call stored.
 */
async function recordFoundCards(db: SlackDb, cards: ReadonlyArray<Omit<CardRow, 'drawn' | 'copies'>>): Promise<number[]> {
  if (cards.length === 0) return [];
  const values = sql.join(
    cards.map((c) => sql`(${c.action_id}::integer, ${c.channel}, ${c.ts}, ${c.thread_ts}, ${c.kind}, ${c.batch ? JSON.stringify(c.batch) : null}::jsonb, now())`),
  );
  const result = await sql<{ action_id: number }>`
    INSERT INTO slack_cards (action_id, channel, ts, thread_ts, kind, batch, repair_claimed_at)
    VALUES ${values}
    ON CONFLICT (action_id) DO NOTHING
    RETURNING action_id
  `.execute(db);
  return result.rows.map((r) => r.action_id);
}

/**
 * Requests of `agentId` written more than `graceMs` ago that have no card row: their process
 * stopped between writing them and posting the card, or posted it and could not store where it
 * went (the database connection dropped in between; the message's metadata names the request, so
 * the repair finds it, see adoptCard); a card that could not be posted at all got a notice, and
 * its repair tries again. Pending requests are found by their missing card; a request decided
 * meanwhile only when a repair of it is on record (flagLostCard, or a claim made while it was
 * pending), since most decided requests without a card never had one (remembered approvals,
 * notices). Each id returned was claimed for this caller in the same statement, so exactly one
 * instance repairs each card.
 *
 * A repair is claimed again once its own claim is `graceMs` old and the card is still missing:
 * the instance repairing it stopped too, and the request would otherwise wait unseen until it
 * expired. `graceMs` is well past the Web API's retries, so a repair still under way is not repeated.
 */
export async function claimUnpostedCards(db: SlackDb, agentId: string, graceMs: number, limit = 50): Promise<number[]> {
  const old = sql`p.created_at < now() - make_interval(secs => ${graceMs} / 1000.0)`;
  const cardless = sql`
    SELECT p.id, p.id AS sort FROM pending_actions p
    WHERE p.status = 'pending' AND p.kind IN ('approval', 'suspension')
      AND ${old} AND p.path->>0 = ${agentId}
      AND NOT EXISTS (SELECT 1 FROM slack_cards c WHERE c.action_id = p.id)
    UNION ALL
    SELECT p.id, p.id AS sort FROM slack_card_repairs r JOIN pending_actions p ON p.id = r.action_id
    WHERE p.status <> 'pending' AND p.kind IN ('approval', 'suspension')
      AND ${old} AND p.path->>0 = ${agentId}
      AND NOT EXISTS (SELECT 1 FROM slack_cards c WHERE c.action_id = p.id)
  `;
  const result = await sql<{ action_id: number }>`${claimRepairs({ table: 'slack_card_repairs', key: 'action_id' }, cardless, graceMs, limit)}`.execute(db);
  return result.rows.map((r) => r.action_id);
}

/**
 * Puts a request whose card may be in Slack without a row on the sweep's list (see
 * claimUnpostedCards), for when looking for it failed (Slack answered with an error). Dated far
 * back, so the next sweep takes it; a claim already there is left as it is.
 */
export async function flagLostCard(db: SlackDb, actionId: number): Promise<void> {
  await sql`
    INSERT INTO slack_card_repairs (action_id, claimed_at) VALUES (${actionId}, to_timestamp(0))
    ON CONFLICT (action_id) DO NOTHING
  `.execute(db);
}

/** The repair of a request's card is over (its card is on record, or there is none to find): it is off the sweep's list. */
export async function settleCardRepair(db: SlackDb, actionId: number): Promise<void> {
  await db.deleteFrom('slack_card_repairs').where('action_id', '=', actionId).execute();
}

/** Pages read at the most while looking through a conversation. */
const MAX_PAGES = 10;
const PAGE_SIZE = 200;

interface MetadataMessage {
  ts: string;
  payload: Record<string, unknown>;
}

/**
 * The bot's own messages in `target` (a thread, read with conversations.replies; a DM's top
 * level, with conversations.history) whose Slack message metadata is of `eventType`, oldest
 * first. Slack returns metadata only when asked for it (include_all_metadata). Only the bot's own
 * messages count: another app could post metadata that claims to be ours. `window` bounds the
 * messages read by their ts, as Slack's oldest, latest and inclusive do.
 */
export async function botMessagesWithMetadata(
  ctx: SlackContext,
  target: ThreadTarget,
  eventType: string,
  window: { oldest?: string; latest?: string; inclusive?: boolean } = {},
): Promise<MetadataMessage[]> {
  const found: MetadataMessage[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const common = { channel: target.channel, include_all_metadata: true, limit: PAGE_SIZE, ...window, ...(cursor ? { cursor } : {}) };
    const response = target.threadTs
      ? await ctx.client.conversations.replies({ ...common, ts: target.threadTs })
      : await ctx.client.conversations.history(common);
    for (const message of response.messages ?? []) {
      if (ctx.botUserId !== undefined && message.user !== ctx.botUserId) continue;
      const metadata = (message as { metadata?: { event_type?: unknown; event_payload?: unknown } }).metadata;
      const payload = metadata?.event_payload;
      if (metadata?.event_type !== eventType || typeof message.ts !== 'string' || !payload || typeof payload !== 'object' || Array.isArray(payload)) continue;
      found.push({ ts: message.ts, payload: payload as Record<string, unknown> });
    }
    cursor = response.response_metadata?.next_cursor || undefined;
    if (!response.has_more || !cursor) break;
  }
  // Slack ts are seconds and six-digit micros: as strings of one length they sort as they compare.
  return found.sort((a, b) => (a.ts.padStart(17, '0') < b.ts.padStart(17, '0') ? -1 : a.ts === b.ts ? 0 : 1));
}
