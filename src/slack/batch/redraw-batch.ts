import type { SlackContext } from '../context.js';
import { markBatchDrawn } from './batch-cards.js';
import { loadCardStates, cardStateKey, type CardState } from '../card/cards.js';
import { blocksAsJson } from '../transport/slack-web-client.js';
import { errorReference } from '../kit/error-reference.js';
import { renderBatchCard } from './render-batch-card.js';

/** How often a redraw draws again because a member moved on while the batch was being drawn. */
const MAX_DRAWS = 3;

/**
 * Redraws every message of the batch `members` (a card row's `batch`) from its members' current rows. A click
 * on any member (or Approve all, the inbox, the sweep) lands here through updateCard, so the
 * whole batch shows each call's state and what the run still waits for. Redraws of one batch in
 * this process run one after the other, each drawing the rows as they are when its turn comes;
 * after a draw the members' keys are recorded and compared with their requests' keys, and a batch
 * that moved on meanwhile (decided on another instance) is drawn again, as updateCard does for a card.
 */
export async function redrawBatch(ctx: SlackContext, members: readonly number[]): Promise<void> {
  const lead = members[0];
  if (lead === undefined) return;
  await ctx.cards.batchRedrawInTurn(lead, () => redraw(ctx, members));
}

async function redraw(ctx: SlackContext, batch: readonly number[]): Promise<void> {
  for (let draws = 1; ; draws++) {
    const states = await loadCardStates(ctx.slackDb, batch);
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
    const current = await markBatchDrawn(
      ctx.slackDb,
      parts.flat().map((s) => ({ actionId: s.action.id, key: cardStateKey(s.action, s.blocked) })),
    );
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
