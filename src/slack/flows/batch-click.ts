import type { ButtonAction } from '@slack/bolt';
import type { Decision } from '../../agent/types.js';
import { isActionId } from '../../db/is-action-id.js';
import { BATCH_PART_SIZE } from '../blocks/batch-card.js';
import { FINGERPRINT_PREFIX_LENGTH } from '../blocks/button-value.js';
import { inlineCode } from '../mrkdwn/inline-code.js';
import { truncate, truncateMrkdwn } from '../blocks/limits.js';
import type { Click, SlackContext } from '../slack-context.js';
import { loadBatchStates } from '../store/batch-cards.js';
import type { CardState } from '../store/card-state.js';
import { tamperedButton } from './clicked-card.js';
import { markDecisionInFlight } from './decisions-in-flight.js';
import { postQuorumProgress } from './post-quorum-progress.js';
import { refusalText } from './refusal-text.js';
import { runInThread } from './run-in-thread.js';
import { targetForAction } from './target-for-action.js';
import { tellUser } from './tell-user.js';
import { updateCard } from './update-card.js';
import { refreshHomesFor } from '../home/affected-users.js';

export type RecordedBatch =
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

/**
 * Approve all / Decline all, up to the recorded decisions: every call the button names must be
 * on the very batch message clicked; each still pending is then decided on its own through the
 * Agent facade (authorised, bound to its fingerprint, its own grant and audit), one after the
 * other. Calls decided meanwhile are skipped. The run's continuation (started by whichever
 * decision was the last it waited for, once) waits for `startAfter`, which settles after the ack,
 * so nothing here waits on a continuation: deciding in sequence cannot deadlock.
 */
export async function recordBatchDecision(
  ctx: SlackContext,
  click: Click | undefined,
  action: ButtonAction,
  decision: 'approve' | 'decline',
  startAfter: Promise<void>,
): Promise<RecordedBatch> {
  if (!click) {
    ctx.logger.warn('batch click without user or channel');
    return { kind: 'no-click' };
  }
  const named = parseBatchButtonValue(action.value);
  const members = named ? await loadBatchStates(ctx.slackDb, named.map((m) => m.actionId)) : [];
  const genuine =
    named !== undefined &&
    /^batch:[1-9]\d{0,9}$/.test(action.block_id ?? '') &&
    members.length === named.length &&
    // Only ever clicked on the batch message itself, so the click must name it.
    click.messageTs !== undefined &&
    members.every((s) => s.card?.batch && s.card.channel === click.channel && s.card.ts === click.messageTs);
  if (!genuine) {
    ctx.logger.warn({ user: click.user, value: action.value, blockId: action.block_id }, 'batch button refused: value does not match a batch card');
    return { kind: 'tampered', click };
  }
  const dones = members.map((s) => markDecisionInFlight(ctx, s.action.id));
  const done = () => dones.forEach((d) => d());
  try {
    const decisions: Decision[] = [];
    for (const [i, state] of members.entries()) {
      // Decided already (by someone else's click, say): nothing to ask, and nothing to refuse.
      if (state.action.status !== 'pending') continue;
      decisions.push(
        await ctx.agent.decideToolCall(
          { actionId: state.action.id, fingerprint: named![i]!.fingerprintPrefix, actor: { userId: click.user }, decision },
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
 * Shows what Approve all / Decline all did: the batch redrawn once, the clicker told (in one
 * ephemeral) about each call that was not changed and why, and the run's continuation.
 */
export async function showBatchDecision(ctx: SlackContext, recorded: RecordedBatch): Promise<void> {
  if (recorded.kind === 'no-click') return;
  if (recorded.kind === 'tampered') return tellUser(ctx, recorded.click, tamperedButton);
  const { click, decisions, members } = recorded;
  try {
    const refusals: string[] = [];
    for (const d of decisions) {
      // Someone else decided it between the read and the vote: skipped, as a call decided before the click is.
      if (d.outcome === 'already-decided' || d.outcome === 'not-found') continue;
      const why = refusalText(d, click.user);
      if (why) refusals.push(`• #${d.action.id} ${inlineCode(truncate(d.action.tool_name, 100))}: ${why}`);
    }
    if (refusals.length > 0) {
      const head = refusals.length === 1 ? 'One call was not changed:' : `${refusals.length} calls were not changed:`;
      await tellUser(ctx, click, truncateMrkdwn(`${head}\n${refusals.join('\n')}`, 2900));
    }
    const changed = decisions.filter((d) => d.outcome !== 'already-decided' && d.outcome !== 'not-found' && d.outcome !== 'not-allowed' && d.outcome !== 'fingerprint-mismatch');
    const first = members[0];
    const card = first ? await updateCard(ctx, first.action.id) : undefined;
    for (const d of changed) refreshHomesFor(ctx, d.action);
    for (const d of changed) if (d.outcome === 'approval-recorded' && !d.alreadyCounted) await postQuorumProgress(ctx, d.action, card);
    // A decision that was not the run's last wait ends its stream at once; the last one carries the run on.
    const shown = changed.flatMap((d) => ('stream' in d && d.stream ? [{ d, stream: d.stream }] : []));
    await Promise.all(
      shown.map(async ({ d, stream }) => {
        const target = await targetForAction(ctx, d.action, click, { card });
        if (target) await runInThread(ctx, stream, target);
        else await stream.result;
      }),
    );
  } finally {
    recorded.done();
  }
}
