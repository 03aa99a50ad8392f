import type { BlockAction, ButtonAction } from '@slack/bolt';
import type { AgentStream, Decision } from '../../agent/api-types.js';
import { requestOf, type Request } from '../../agent/request.js';
import { isActionId } from '../../db/is-action-id.js';
import { BATCH_PART_SIZE, batchDeclineModal, batchDeclineMessage, batchDeclineReason } from './batch-card.js';
import { FINGERPRINT_PREFIX_LENGTH, ACTION_IDS, CALLBACK_IDS } from '../kit/action-ids.js';
import { inlineCode } from '../kit/mrkdwn/escape-mrkdwn.js';
import { truncate, truncateMrkdwn } from '../kit/limits.js';
import { actorOf, type Click, type SlackContext, type ThreadTarget, teamOfClicker, clickOf, tellUser } from '../context.js';
import { loadCardStates, type CardState, type CardRow, targetForAction } from '../card/cards.js';
import { placesStored, tamperedButton, tellClicker, refusalText } from '../card/button-check.js';
import { markDecisionInFlight, refreshHomesFor } from '../card/lifecycle.js';
import { showCardUpdate } from '../card/show-card-update.js';
import type { InteractionRoutes } from '../kit/action-ids.js';
import { recordThenAck } from '../ack.js';

/** What a batch decision shows that is another feature's, passed in by the app (app.ts), so batch/ imports neither. */
export interface BatchDeps {
  /** After a vote short of the quorum, what is left said in the card's thread, as for a single card (approval/). */
  showQuorumProgress(ctx: SlackContext, action: Request, known?: CardRow): Promise<void>;
  /** The run a decision carried on, shown in its thread (thread/). */
  runInThread(ctx: SlackContext, stream: AgentStream, target: ThreadTarget): Promise<void>;
}

type RecordedBatch =
  | { kind: 'no-click' }
  | { kind: 'tampered'; click: Click }
  | { kind: 'decided'; click: Click; members: CardState[]; decisions: Decision[]; done: () => void };

const FINGERPRINT = new RegExp(`^[0-9a-f]{${FINGERPRINT_PREFIX_LENGTH}}$`);

/** Approve all / Decline all's value: the part's pending calls as `[actionId, fingerprintPrefix]`; undefined if malformed. */
export function parseBatchButtonValue(value: string | undefined): Array<{ actionId: number; fingerprintPrefix: string }> | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value ?? '');
  } catch {
    return undefined;
  }
  const m = (parsed as { m?: unknown } | null)?.m;
  if (!Array.isArray(m) || m.length === 0 || m.length > BATCH_PART_SIZE) return undefined;
  const members: Array<{ actionId: number; fingerprintPrefix: string }> = [];
  for (const entry of m) {
    if (!Array.isArray(entry) || entry.length !== 2) return undefined;
    const [a, f] = entry as [unknown, unknown];
    if (!isActionId(a) || typeof f !== 'string' || !FINGERPRINT.test(f)) return undefined;
    if (members.some((x) => x.actionId === a)) return undefined;
    members.push({ actionId: a, fingerprintPrefix: f });
  }
  return members;
}

/** What Approve all / Decline all names: its value (or the modal's metadata) and, for a button, its block id. */
interface BatchPress {
  value: string | undefined;
  /** The button's block id; absent for the Decline all modal's submission. */
  blockId?: string;
}

/** The calls a batch button names, each on the very batch message clicked; undefined (logged) when not. */
async function namedMembers(ctx: SlackContext, click: Click, press: BatchPress): Promise<Array<{ state: CardState; fingerprintPrefix: string }> | undefined> {
  const named = parseBatchButtonValue(press.value);
  if (named) await placesStored(ctx, named.map((m) => m.actionId));
  const members = named ? await loadCardStates(ctx.slackDb, named.map((m) => m.actionId)) : [];
  const genuine =
    named !== undefined &&
    (press.blockId === undefined || /^batch:[1-9]\d{0,9}$/.test(press.blockId)) &&
    members.length === named.length &&
    // Only ever clicked on the batch message itself, so the click must name it.
    click.messageTs !== undefined &&
    // A batch posted whose location could not be stored has no rows yet, as a card of its own may not
    // (see clickedCard): its calls are decided, and the redraw finds the batch by its metadata (adoptCard).
    (members.every((s) => s.card?.batch && s.card.channel === click.channel && s.card.ts === click.messageTs) || members.every((s) => !s.card));
  if (!genuine) {
    ctx.logger.warn({ user: click.user, value: press.value, blockId: press.blockId }, 'batch button refused: value does not match a batch card');
    return undefined;
  }
  return members.map((state, i) => ({ state, fingerprintPrefix: named![i]!.fingerprintPrefix }));
}

/**
 * Approve all / Decline all, up to the recorded decisions: every call the button names must be
 * on the very batch message clicked; each still pending is then decided on its own through the
 * Agent facade (authorised, bound to its fingerprint, its own grant and audit), one after the
 * other. Calls decided meanwhile are skipped. The run's continuation (started by whichever
 * decision was the last it waited for, once) waits for `startAfter`, which settles after the ack,
 * so nothing here waits on a continuation: deciding in sequence cannot deadlock.
 */
async function recordBatchDecision(
  ctx: SlackContext,
  click: Click | undefined,
  press: BatchPress,
  decision: 'approve' | 'decline',
  startAfter: Promise<void>,
  reason?: string,
): Promise<RecordedBatch> {
  if (!click) {
    ctx.logger.warn('batch click without user or channel');
    return { kind: 'no-click' };
  }
  const named = await namedMembers(ctx, click, press);
  if (!named) return { kind: 'tampered', click };
  const members = named.map((m) => m.state);
  // A modal's submission knows the message, not its thread: what the clicker is told goes beside the card.
  const thread = members[0]?.card?.thread_ts;
  if (click.threadTs === undefined && thread) click = { ...click, threadTs: thread };
  const dones = members.map((s) => markDecisionInFlight(ctx, s.action.id));
  const done = () => dones.forEach((d) => d());
  try {
    const decisions: Decision[] = [];
    for (const { state, fingerprintPrefix } of named) {
      // Decided already (by someone else's click, say): nothing to ask, and nothing to refuse.
      if (state.action.status !== 'pending') continue;
      decisions.push(
        await ctx.agent.decideToolCall(
          { actionId: state.action.id, fingerprint: fingerprintPrefix, actor: actorOf(click), decision, ...(reason ? { reason } : {}) },
          { action: state.action, startAfter },
        ),
      );
    }
    ctx.logger.info({ user: click.user, decision, outcomes: decisions.map((d) => d.outcome) }, `${decision} all clicked`);
    return { kind: 'decided', click, members, decisions, done };
  } catch (error) {
    done();
    throw error;
  }
}

/**
 * Decline all, as Decline: the calls are checked first, then a modal asks for one optional
 * reason (its submission decides, see recordBatchDecision). When the modal cannot open (the
 * trigger expired, Slack is down) the calls are still declined, without a reason.
 */
async function openDeclineAll(ctx: SlackContext, click: Click | undefined, press: BatchPress, deps: BatchDeps): Promise<void> {
  if (!click) return void ctx.logger.warn('decline all click without user or channel');
  const named = await namedMembers(ctx, click, press);
  if (!named) return tellUser(ctx, click, tamperedButton);
  const pending = named.filter((m) => m.state.action.status === 'pending');
  if (pending.length === 0) return tellUser(ctx, click, 'Every call on this card was already decided. Nothing was changed.');
  try {
    if (!click.triggerId) throw new Error('no trigger_id');
    await ctx.client.views.open({
      trigger_id: click.triggerId,
      view: batchDeclineModal({
        members: pending.map((m) => ({ actionId: m.state.action.id, fingerprint: m.state.action.fingerprint, toolName: m.state.action.toolName })),
        channel: click.channel,
        ts: click.messageTs!,
      }),
    });
  } catch (error) {
    ctx.logger.warn({ err: error }, 'decline all modal could not open; declining without a reason');
    await showBatchDecision(ctx, await recordBatchDecision(ctx, click, press, 'decline', Promise.resolve()), deps);
  }
}

/**
 * Shows what Approve all / Decline all did: the batch redrawn once, the clicker told (in one
 * ephemeral) about each call that was not changed and why, and the run's continuation.
 */
async function showBatchDecision(ctx: SlackContext, recorded: RecordedBatch, deps: BatchDeps): Promise<void> {
  if (recorded.kind === 'no-click') return;
  if (recorded.kind === 'tampered') return tellUser(ctx, recorded.click, tamperedButton);
  const { click, members } = recorded;
  try {
    // Each decision with its request as slack/ reads it (a Decision carries the stored row).
    const decisions = recorded.decisions.flatMap((d) => (d.outcome === 'not-found' ? [] : [{ d, action: requestOf(d.action) }]));
    const refusals: string[] = [];
    for (const { d, action } of decisions) {
      // Someone else decided it between the read and the vote: skipped, as a call decided before the click is.
      if (d.outcome === 'already-decided') continue;
      const why = refusalText(d, click.user);
      if (why) refusals.push(`• #${action.id} ${inlineCode(truncate(action.toolName, 100))}: ${why}`);
    }
    if (refusals.length > 0) {
      const head = refusals.length === 1 ? 'One call was not changed:' : `${refusals.length} calls were not changed:`;
      await tellUser(ctx, click, truncateMrkdwn(`${head}\n${refusals.join('\n')}`, 2900));
    }
    const changed = decisions.filter(({ d }) => d.outcome !== 'already-decided' && d.outcome !== 'not-allowed' && d.outcome !== 'fingerprint-mismatch');
    const first = members[0];
    const card = first ? await showCardUpdate(ctx, first.action.id) : undefined;
    for (const { action } of changed) refreshHomesFor(ctx, action);
    for (const { d, action } of changed) if (d.outcome === 'approval-recorded' && !d.alreadyCounted) await deps.showQuorumProgress(ctx, action, card);
    // A decision that was not the run's last wait ends its stream at once; the last one carries the run on.
    const shown = changed.flatMap(({ d, action }) => ('stream' in d && d.stream ? [{ action, stream: d.stream }] : []));
    await Promise.all(
      shown.map(async ({ action, stream }) => {
        const target = await targetForAction(ctx, action, click, { card });
        if (target) await deps.runInThread(ctx, stream, target);
        else await stream.result;
      }),
    );
  } finally {
    recorded.done();
  }
}

/**
 * A batch card's buttons, as a single card's: Approve all decides, recorded before the click is
 * acknowledged (within RECORD_BEFORE_ACK_MS; a long batch is acknowledged first); Decline all
 * first asks for an optional reason in a modal, whose submission decides.
 */
export function registerBatchActions(routes: InteractionRoutes, ctx: SlackContext, deps: BatchDeps): void {
  routes.action<BlockAction<ButtonAction>>(ACTION_IDS.batchApproveAll, async ({ ack, body, action }) => {
    await recordThenAck(ctx, ack, {
      name: 'approve all',
      record: (startAfter) => recordBatchDecision(ctx, clickOf(body), { value: action.value, blockId: action.block_id }, 'approve', startAfter),
      show: (recorded) => showBatchDecision(ctx, recorded, deps),
      onError: tellClicker(ctx, clickOf(body)),
    });
  });
  routes.action<BlockAction<ButtonAction>>(ACTION_IDS.batchDeclineAll, async ({ ack, body, action }) => {
    await ack();
    ctx.tasks.run('decline all', () => openDeclineAll(ctx, clickOf(body), { value: action.value, blockId: action.block_id }, deps), tellClicker(ctx, clickOf(body)));
  });
  routes.view(CALLBACK_IDS.batchDeclineModal, async ({ ack, body, view }) => {
    // The submission stands for the click on the batch message its metadata names (checked again there).
    const message = batchDeclineMessage(view.private_metadata);
    const click: Click | undefined = message ? { user: body.user.id, teamId: teamOfClicker(body), channel: message.channel, messageTs: message.ts } : undefined;
    await recordThenAck(ctx, () => ack(), {
      name: 'decline all submit',
      record: (startAfter) => recordBatchDecision(ctx, click, { value: view.private_metadata }, 'decline', startAfter, batchDeclineReason(view.state.values)),
      show: (recorded) => showBatchDecision(ctx, recorded, deps),
      onError: tellClicker(ctx, click),
    });
  });
}
