import { takeOverWhileFull, takeWhileFull } from '../agent/sweeps.js';
import type { SlackContext } from './context.js';
import { cardStateKey, loadCardState } from './card/cards.js';
import { PacedClientStoppedError, type PacedWebClient } from './transport/paced-web-client.js';
import { TaskLane } from './transport/background-tasks.js';
import { showExpired } from './approval/show-decision.js';
import { showRecovered } from './thread/run-in-thread.js';
import { showCardUpdate } from './card/show-card-update.js';

/** Cards being redrawn at once; chat.update's pace, not this, decides how fast they go. */
const REDRAWS_AT_ONCE = 8;

export interface BacklogSwept {
  expired: number;
  recovered: number;
  /** Work was left for lack of time or room: sweep again soon. */
  more: boolean;
}

/** A stop lets go of the calls not sent yet; what they would have shown is on record for the sweep. */
function quietOnStop(error: unknown): void {
  if (!(error instanceof PacedClientStoppedError)) throw error;
}

/**
 * What the sweep finds in bulk (requests that expired together, runs a stopped instance left, cards
 * that do not show their request), shown in Slack as fast as Slack allows without holding up what
 * people are waiting on:
 * - its Slack calls go through a client of their own, each method at the pace Slack allows
 *   (PacedWebClient): a 429 slows the backlog, never the app's own calls;
 * - expired requests are handled maxConcurrentRuns at a time, each run
 *   starting when its request's turn comes, so the runs go at the concurrency limit but never
 *   outpace what can be shown of them (an answer left unshown for CARD_REPAIR_AFTER_MS would be
 *   posted by the sweep as well);
 * - their cards are redrawn beside that, at chat.update's pace, each card once however often it is
 *   handed in, and not at all if it shows its request by its turn (another instance redrew it).
 * What waits here is on record: an expired request's run is decided (another instance takes it over
 * after the lease if this one stops first), a card not redrawn is repaired by the sweep. Only the
 * requester's notice of an expiry not yet handled is lost at a stop.
 */
export class SweepBacklog {
  /** Made at the first sweep: its width is the agent's maxConcurrentRuns, known once the agent has storage. */
  private lane: TaskLane | undefined;
  private readonly cards = new Set<number>();
  private redrawing = 0;
  private stopped = false;
  private idlers: Array<() => void> = [];

  constructor(
    private readonly ctx: SlackContext,
    private readonly client: PacedWebClient,
  ) {}

  /** Expires what is due and takes over what was left, batch after batch (see takeWhileFull). */
  async sweep(): Promise<BacklogSwept> {
    const ctx = this.view();
    const { agent } = ctx;
    const lane = (this.lane ??= new TaskLane(ctx.tasks, agent.runtime.runSlots.limit));
    const turns = new Map<number, () => void>();
    const expired = await takeWhileFull(
      (limit) => agent.sweepExpired(limit, { startAfter: (action) => new Promise<void>((go) => turns.set(action.id, go)) }),
      (batch) => {
        for (const e of batch) {
          // Stopping: the request is expired on record, and its run, decided, is another instance's to take over.
          if (this.stopped) continue;
          const go = turns.get(e.action.id);
          turns.delete(e.action.id);
          lane.add('expired', async () => {
            go?.();
            await showExpired(ctx, e, (actionId) => this.redraw([actionId])).catch(quietOnStop);
          });
        }
      },
    );
    // A run taken over is already running (claimed, waiting for a run slot): its thread shows it at once.
    const recovered = await takeOverWhileFull(agent, (batch) => {
      // Stopping: the run is claimed and its continuation under way; the answer is kept until shown, by another instance if need be.
      for (const r of batch) if (!this.stopped) ctx.tasks.run('recovered', () => showRecovered(ctx, r).catch(quietOnStop));
    });
    return { expired: expired.taken, recovered: recovered.taken, more: expired.more || recovered.more };
  }

  /** Cards to redraw at chat.update's pace. */
  redraw(actionIds: readonly number[]): void {
    if (this.stopped) return;
    for (const id of actionIds) this.cards.add(id);
    this.pumpRedraws();
  }

  /** Drops what waits (a stop): the calls not sent fail quietly, the rest is on record for the sweep. */
  stop(): void {
    this.stopped = true;
    this.lane?.clear();
    this.cards.clear();
    this.client.stop();
    this.settle();
  }

  /** Nothing of the backlog is running or waiting. */
  get isIdle(): boolean {
    return (this.lane?.size ?? 0) === 0 && this.cards.size === 0 && this.redrawing === 0;
  }

  /** Resolves once nothing of the backlog is running or waiting. */
  async idle(): Promise<void> {
    // A lane task hands in a redraw; a redraw ends after the lane's task did.
    while (!this.isIdle) {
      await Promise.all([this.lane?.idle(), new Promise<void>((resolve) => (this.cards.size + this.redrawing === 0 ? resolve() : this.idlers.push(resolve)))]);
    }
  }

  /** The app's context with the backlog's own client; made per sweep, since start() fills in the workspace. */
  private view(): SlackContext {
    return { ...this.ctx, client: this.client };
  }

  private pumpRedraws(): void {
    while (this.redrawing < REDRAWS_AT_ONCE && this.cards.size > 0) {
      const actionId = this.cards.values().next().value!;
      this.cards.delete(actionId);
      this.redrawing += 1;
      this.ctx.tasks.run('backlog card', async () => {
        try {
          await this.redrawOne(actionId);
        } finally {
          this.redrawing -= 1;
          this.pumpRedraws();
          this.settle();
        }
      });
    }
  }

  private async redrawOne(actionId: number): Promise<void> {
    const ctx = this.view();
    const state = await loadCardState(ctx.slackDb, actionId);
    // Already showing its request (redrawn by another instance, or a decision here): Slack's allowance is spent elsewhere.
    if (state?.card && !state.card.batch?.length && state.card.drawn === cardStateKey(state.action, state.blocked)) return;
    await showCardUpdate(ctx, actionId).catch(quietOnStop);
  }

  private settle(): void {
    if (this.cards.size + this.redrawing > 0) return;
    for (const resolve of this.idlers.splice(0)) resolve();
  }
}
