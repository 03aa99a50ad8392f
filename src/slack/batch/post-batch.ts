import type { AgentStream } from '../../agent/api-types.js';
import type { Request } from '../../agent/request.js';
import { batchParts, renderBatchCard } from './batch-card.js';
import { redrawBatch, saveBatchCards } from './batch-cards.js';
import { findRequest, type SlackContext, type ThreadTarget } from '../context.js';
import { cardStateKey } from '../card/cards.js';
import { blocksAsJson } from '../transport/slack-web-client.js';
import { refreshHomesFor } from '../card/inbox-refresh.js';
import { cardMetadata } from '../card/card-metadata.js';
import { errorReference } from '../kit/error-reference.js';
import { showCard } from '../card/show-card.js';
import { privateWithoutApprovers } from '../card/private-without-approvers.js';
import { approversAt } from '../../approvals/approvers-at.js';

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
