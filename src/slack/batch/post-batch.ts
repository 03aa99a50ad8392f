import type { AgentStream } from '../../agent/api-types.js';
import type { Request } from '../../agent/request.js';
import { batchParts, renderBatchCard } from './batch-card.js';
import { findRequest, type SlackContext, type ThreadTarget } from '../context.js';
import { againOnDeadlock, cardsLockedInOrder, cardStateKey, cardMetadata, type CardRow, cardStateKeySql, loadCardStates, sameBatch, type CardState } from '../card/cards.js';
import { blocksAsJson } from '../transport/slack-web-client.js';
import { refreshHomesFor } from '../card/lifecycle.js';
import { errorReference } from '../kit/error-reference.js';
import { showCard, privateWithoutApprovers } from '../card/show-card.js';
import { approversAt } from '../../approvals/approvers-at.js';
import { sql } from 'kysely';
import type { SlackDb } from '../context.js';

/**
 * Posts one card for the parallel approval calls of one model step (the batch card, in parts of
 * BATCH_PART_SIZE calls), and stores each member's card row at its part's message with the
 * batch's members, so a click on any of them, a restart or the sweep redraws the whole batch.
 * Each call stays its own request: its buttons are a single card's. Calls the batch cannot show
 * (see batchable; a part Slack refused) get the card of their own that showCard posts, with its
 * fallbacks.
 */
export async function postBatchCard(
  ctx: SlackContext,
  actionIds: readonly number[],
  target: ThreadTarget,
  onCancelled: (stream: AgentStream) => Promise<void>,
  stored: ReadonlyArray<Request | undefined>,
): Promise<void> {
  const requests: Request[] = [];
  for (const [i, id] of actionIds.entries()) {
    const request = stored[i]?.id === id ? stored[i] : await findRequest(ctx, id);
    if (request) requests.push(request);
  }
  if (requests.length < 2 || !(await batchable(ctx, requests, target))) {
    for (const id of actionIds) await showCard(ctx, id, target, onCancelled, requests.find((r) => r.id === id));
    return;
  }
  let settle!: () => void;
  const posted = new Promise<void>((resolve) => (settle = resolve));
  const inFlight = ctx.cards.startPosting(requests.map((r) => r.id), posted, posted);
  const alone: Request[] = [];
  let decidedMeanwhile = false;
  let batch: number[] = [];
  try {
    const parts = batchParts(requests);
    const rendered = renderBatchCard(ctx.agent, parts.map((p) => p.map((action) => ({ action, blocked: false }))));
    const placed: Array<{ part: Request[]; ts: string }> = [];
    for (const [i, part] of parts.entries()) {
      try {
        const message = await ctx.client.chat.postMessage({
          channel: target.channel,
          ...(target.threadTs ? { thread_ts: target.threadTs } : {}),
          text: rendered[i]!.text,
          blocks: blocksAsJson(rendered[i]!.blocks),
          metadata: cardMetadata({ actionIds: part.map((r) => r.id), batch: requests.map((r) => r.id) }),
        });
        if (!message.ts) throw new Error('chat.postMessage returned no ts');
        placed.push({ part, ts: message.ts });
      } catch (error) {
        ctx.logger.warn({ err: error, ref: errorReference(), actionIds: part.map((r) => r.id) }, 'batch card could not be posted; its calls get cards of their own');
        alone.push(...part);
      }
    }
    batch = placed.flatMap((p) => p.part.map((r) => r.id));
    if (batch.length > 0) {
      try {
        const saved = await saveBatchCards(
          ctx.slackDb,
          placed.flatMap(({ part, ts }) =>
            part.map((action) => ({
              action_id: action.id,
              channel: target.channel,
              ts,
              thread_ts: target.threadTs ?? null,
              kind: 'approval' as const,
              drawn: cardStateKey(action, false),
              batch,
            })),
          ),
        );
        decidedMeanwhile = saved.decidedMeanwhile;
        for (const { part } of placed) for (const action of part) refreshHomesFor(ctx, action);
      } catch (error) {
        // The cards are visible and their buttons work (they carry the action ids). Each part's metadata names its
        // calls and the batch, so a redraw or the sweep finds the parts in the thread and adopts them (adoptCard).
        ctx.logger.error({ err: error, ref: errorReference(), batch }, 'batch card posted but its location could not be stored');
        batch = [];
      }
    }
  } finally {
    settle();
    inFlight.finish();
  }
  const waitingRedraw = inFlight.redrawWaiting || requests.some((r) => ctx.cards.isDeciding(r.id));
  if (decidedMeanwhile && !waitingRedraw && batch.length > 0) {
    await redrawBatch(ctx, batch, requests[0]!.runId);
  }
  for (const action of alone) await showCard(ctx, action.id, target, onCancelled, action);
}

/**
 * A batch card is shown where the run talks and nowhere else, so it is used only when no call
 * would have its card sent elsewhere (routeCard's rule): no `route` in the policy, and none that
 * the requester may not approve in a DM, or in a private channel without anyone else who may.
 * Those keep a card each, which routeCard sends to the approvers. So do calls of `risk: 'high'`
 * or `requireReason`, whose own card asks for what Approve all would skip.
 */
async function batchable(ctx: SlackContext, requests: readonly Request[], target: ThreadTarget): Promise<boolean> {
  for (const request of requests) {
    if (request.kind !== 'approval' || request.status !== 'pending') return false;
    // Read loosely: a high-risk call, or one whose decision needs a reason, keeps the card of its own that asks for them.
    const requirement: { reach: { route: unknown }; risk?: unknown; requireReason?: unknown } = ctx.agent.requirementOf(request);
    if (requirement.reach.route !== 'thread' || requirement.risk === 'high' || requirement.requireReason === true) return false;
  }
  const dm = target.channel.startsWith('D');
  for (const request of requests) {
    const requirement = ctx.agent.requirementOf(request);
    const approvers = approversAt(requirement, request.createdAt, new Date());
    if (!dm && approvers.length === 0) continue;
    if (request.requester && (await ctx.agent.mayDecide(request, { userId: request.requester }, 'approve')).allowed) continue;
    if (dm || (await privateWithoutApprovers(ctx, request, target.channel))) return false;
  }
  return true;
}

/** How often a redraw draws again because a member moved on while the batch was being drawn. */
const MAX_DRAWS = 3;

/**
 * Redraws every message of the batch `members` (a card row's `batch`) from its members' current rows. A click
 * on any member (or Approve all, the inbox, the sweep) lands here through showCardUpdate, so the
 * whole batch shows each call's state and what the run still waits for. Redraws of one batch in
 * this process (of run `runId`: the batch's calls are one step of it) run one after the other,
 * each drawing the rows as they are when its turn comes, members included: an edit since the
 * caller read `members` put its new request in the edited one's place. After a draw the members'
 * keys are recorded and compared with their requests' keys, and a batch that moved on meanwhile
 * (decided on another instance) is drawn again, as showCardUpdate does for a card.
 */
export async function redrawBatch(ctx: SlackContext, members: readonly number[], runId: string): Promise<void> {
  if (members.length === 0) return;
  await ctx.cards.batchRedrawInTurn(runId, () => redraw(ctx, members));
}

async function redraw(ctx: SlackContext, members: readonly number[]): Promise<void> {
  let batch = members;
  for (let draws = 1; ; draws++) {
    let states = await loadCardStates(ctx.slackDb, batch);
    // Every row of the batch's calls holds its membership as it is now (carryCard), the edited ones' too.
    const now = states.find((s) => s.card?.batch)?.card!.batch;
    if (now && !sameBatch(now, batch)) {
      batch = now;
      states = await loadCardStates(ctx.slackDb, batch);
    }
    // Members whose card is elsewhere (posted on its own after the batch's post failed) are not on it.
    const parts = messagesOf(states.filter((s) => s.card?.batch));
    if (parts.length === 0) return;
    // Every member already shows its state (another member's redraw, or the sweep claiming each member, got there first).
    if (draws === 1 && parts.flat().every((s) => s.card!.drawn === cardStateKey(s.action, s.blocked))) return;
    const rendered = renderBatchCard(ctx.agent, parts);
    try {
      for (const [i, part] of parts.entries()) {
        const where = part[0]!.card!;
        await ctx.client.chat.update({ channel: where.channel, ts: where.ts, text: rendered[i]!.text, blocks: blocksAsJson(rendered[i]!.blocks) });
      }
    } catch (error) {
      // The old keys stay recorded: the sweep draws the batch again.
      ctx.logger.warn({ err: error, batch, ref: errorReference() }, 'batch card could not be updated');
      return;
    }
    const marks = parts.flat().map((s) => ({ actionId: s.action.id, key: cardStateKey(s.action, s.blocked) }));
    const current = await againOnDeadlock(() => markBatchDrawn(ctx.slackDb, marks));
    if (current) return;
    if (draws >= MAX_DRAWS) {
      ctx.logger.warn({ batch }, 'batch kept changing while being drawn; the sweep draws it again');
      return;
    }
  }
}

/** Members grouped by the message that shows them, in the batch's order. */
function messagesOf(states: CardState[]): CardState[][] {
  const byTs = new Map<string, CardState[]>();
  for (const s of states) {
    const key = `${s.card!.channel}\u0000${s.card!.ts}`;
    const part = byTs.get(key);
    if (part) part.push(s);
    else byTs.set(key, [s]);
  }
  return [...byTs.values()];
}

/**
 * Stores where the members of one part of a batch card went, in one statement, and says whether
 * any of them is no longer pending (decided on another instance between the post and this write,
 * when it could not find the card to redraw); the caller then redraws the batch. The shared lock
 * on the requests makes the two meet, as saveCard's does for a single card.
 */
async function saveBatchCards(db: SlackDb, cards: ReadonlyArray<CardRow & { batch: number[] }>): Promise<{ decidedMeanwhile: boolean }> {
  if (cards.length === 0) return { decidedMeanwhile: false };
  const values = sql.join(
    cards.map(
      (c) => sql`(${c.action_id}::integer, ${c.channel}, ${c.ts}, ${c.thread_ts}, ${c.kind}, ${c.drawn}, ${JSON.stringify(c.batch)}::jsonb)`,
    ),
  );
  const ids = cards.map((c) => c.action_id);
  const result = await sql<{ status: string }>`
    WITH saved AS (
      INSERT INTO slack_cards (action_id, channel, ts, thread_ts, kind, drawn, batch)
      VALUES ${values}
      ON CONFLICT (action_id) DO UPDATE
        SET channel = EXCLUDED.channel, ts = EXCLUDED.ts, thread_ts = EXCLUDED.thread_ts, kind = EXCLUDED.kind,
            drawn = EXCLUDED.drawn, batch = EXCLUDED.batch, drawn_at = now(), settled = false, repair_claimed_at = NULL
      RETURNING action_id
    )
    SELECT p.status FROM pending_actions p
    WHERE p.id = ANY(${sql.val(ids)}::integer[]) AND p.id IN (SELECT action_id FROM saved)
    FOR SHARE OF p
  `.execute(db);
  return { decidedMeanwhile: result.rows.some((r) => r.status !== 'pending') };
}

/**
 * Records the key each member's card was drawn with, in one statement, and says whether every
 * member's request still has that key (else the batch moved on while drawn and is drawn again).
 * The members' cards are locked in the order of their ids first (cardsLockedInOrder), not in
 * the order the marks come: a run shown elsewhere may be marking some of the same cards.
 */
export async function markBatchDrawn(db: SlackDb, marks: ReadonlyArray<{ actionId: number; key: string }>): Promise<boolean> {
  if (marks.length === 0) return true;
  const values = sql.join(marks.map((m) => sql`(${m.actionId}::integer, ${m.key}::text)`));
  const result = await sql<{ action_id: number; key: string; current: string }>`
    WITH m (action_id, key) AS (VALUES ${values}),
    upd AS (
      UPDATE slack_cards c SET drawn = m.key, drawn_at = now(), repair_claimed_at = NULL
      FROM m, ${cardsLockedInOrder(sql`l.action_id IN (SELECT action_id FROM m)`)}
      WHERE c.action_id = m.action_id AND l.action_id = c.action_id
      RETURNING c.action_id
    )
    SELECT m.action_id, m.key, ${cardStateKeySql('p')} AS current
    FROM m JOIN pending_actions p ON p.id = m.action_id
    WHERE EXISTS (SELECT 1 FROM upd)
  `.execute(db);
  return result.rows.every((r) => r.key === r.current);
}
