import { failureText } from '../kit/error-reference.js';
import { tellUser, actorOf, type Click, type Person, type SlackContext } from '../context.js';
import { addCardCopies, type CardCopy, type CardRow, loadCardState, type CardState, CARD_EVENT_TYPE, parseCardMetadata } from './cards.js';
import { botMessagesWithMetadata } from './card-repairs.js';
import { showCardUpdate } from './show-card-update.js';
import type { ButtonAction } from '@slack/bolt';
import { requestOf, type Request } from '../../agent/request.js';
import { parseCardBlockId, parseButtonValue, type ButtonValue } from '../kit/action-ids.js';
import type { Decision } from '../../agent/api-types.js';
import { mention } from '../kit/mention.js';
import { escapeMrkdwn } from '../kit/mrkdwn/escape-mrkdwn.js';
import { unreachable } from '../../unreachable.js';

/**
 * A button's value names the request it decides; a value copied from another
 * card (or made up) names a request that card is not. When we know where the
 * request's card is, the click must have come from that very message, or from
 * a copy of it: one on record, or one the bot posted whose location could not
 * be stored (see unrecordedCopy). Reads the request with its card: false when
 * the click is not from the request's card, else the request as read
 * (undefined when there is no such request), which the handler starts from
 * instead of reading it again.
 */
export async function clickedCard(ctx: SlackContext, click: Click, actionId: number): Promise<{ state: CardState | undefined } | false> {
  await placesStored(ctx, [actionId]);
  const state = await loadCardState(ctx.slackDb, actionId);
  if (cameFromCard(click, state?.card)) return { state };
  const copy = state?.card ? await unrecordedCopy(ctx, click, actionId) : undefined;
  if (!state?.card || !copy) return false;
  await addCardCopies(ctx.slackDb, actionId, [copy]);
  ctx.logger.warn({ actionId, channel: copy.channel, ts: copy.ts }, 'click on a copy of a card whose location had not been stored; the copy is on record now');
  const card: CardRow = { ...state.card, copies: [...(state.card.copies ?? []), copy] };
  // Nothing this click decides redraws a request decided already: the copy is drawn as it is now here.
  if (state.action.status !== 'pending') ctx.tasks.run('recorded copy', () => showCardUpdate(ctx, actionId));
  return { state: { ...state, card } };
}

/**
 * A click can reach us between chat.postMessage returning and the card's location being stored
 * (one statement later): a card this process is posting is waited for, so the click is judged
 * against where its card is, as every later click is. Costs nothing for any other card.
 */
export function placesStored(ctx: Pick<SlackContext, 'cards'>, actionIds: readonly number[]): Promise<void> {
  return ctx.cards.whenStored(actionIds);
}

function cameFromCard(click: Click, card: CardRow | undefined): boolean {
  if (!card) return true;
  // A copy routed to an approver is the request's card as much as the one in the thread.
  return [card, ...(card.copies ?? [])].some((c) => c.channel === click.channel && (click.messageTs === undefined || c.ts === click.messageTs));
}

/**
 * The clicked message as a copy of the request's card, when it is one the bot posted (its
 * metadata says so) but whose location could not be stored after posting (the database
 * connection dropped in between): copies are routed after the card is stored, each recorded once
 * posted. Asked of Slack only for a click from no message on record. A DM copy is its person's.
 */
async function unrecordedCopy(ctx: SlackContext, click: Click, actionId: number): Promise<CardCopy | undefined> {
  if (click.messageTs === undefined) return undefined;
  try {
    const ts = click.messageTs;
    const messages = await botMessagesWithMetadata(ctx, { channel: click.channel }, CARD_EVENT_TYPE, { oldest: ts, latest: ts, inclusive: true });
    const facts = messages.find((m) => m.ts === ts);
    const copy = facts && parseCardMetadata(facts.payload);
    if (!copy?.copy || copy.actionIds.length !== 1 || copy.actionIds[0] !== actionId) return undefined;
    return { channel: click.channel, ts, ...(click.channel.startsWith('D') ? { user: click.user } : {}) };
  } catch (error) {
    ctx.logger.warn({ err: error, actionId }, 'could not read the clicked message to tell whether it is a copy of the card');
    return undefined;
  }
}

export const tamperedButton = 'This button does not belong to a request I know, so nothing was changed.';

/** For BackgroundTasks: a failed click handler tells the clicker, with the log reference. */
export function tellClicker(ctx: SlackContext, click: Click | undefined): (ref: string) => Promise<void> {
  return async (ref) => {
    if (click) await tellUser(ctx, click, failureText(ref));
  };
}

export interface GenuineButton {
  value: Required<ButtonValue>;
  /** The request as read while checking the button. */
  row: Request | undefined;
  /** Where its card is, as read with it. */
  card: CardRow | undefined;
}

/** A click on a genuine button whose request the clicker may decide as it stands: a form may open. */
export interface CheckedClick {
  click: Click;
  button: GenuineButton;
  row: Request;
}

/** The request a button is for, or undefined (logged) when the button is not genuine. */
export async function genuineButton(ctx: SlackContext, click: Click, action: ButtonAction): Promise<GenuineButton | undefined> {
  const value = parseButtonValue(action.value);
  const block = parseCardBlockId(action.block_id);
  const checked =
    value?.fingerprintPrefix !== undefined && block?.kind === 'approval' && block.actionId === value.actionId
      ? await clickedCard(ctx, click, value.actionId)
      : false;
  if (!checked) {
    ctx.logger.warn({ user: click.user, actionId: action.action_id, value: action.value, blockId: action.block_id }, 'approval button refused: value does not match a card');
    return undefined;
  }
  return { value: value as Required<ButtonValue>, row: checked.state?.action, card: checked.state?.card };
}

const nothingChanged = 'Nothing was changed.';

/** What happened to a request, in words, for someone whose click came too late. */
export function describeOutcome(action: Request): string {
  const by = action.decidedBy ? ` by ${mention(action.decidedBy)}` : '';
  switch (action.status) {
    case 'approved':
      return `already approved${by}`;
    case 'declined':
      return `already declined${by}`;
    case 'expired':
      return 'expired before anyone decided';
    case 'superseded':
      return 'replaced by a new request after the approval policy changed';
    case 'cancelled':
      return `cancelled${by}`;
    case 'resumed':
      return `already answered${by}`;
    case 'edited':
      return `edited${by}: its card now shows the edited request`;
    case 'pending':
    case 'resolved':
    case 'failed':
      return `no longer pending (${escapeMrkdwn(action.status)})`;
    default:
      return unreachable(action.status, 'request status');
  }
}

/**
 * The ephemeral answer to a click that changed nothing, or undefined when the
 * decision went through. Text only: model- or user-controlled parts are escaped.
 */
export function refusalText(decision: Decision, actor: string): string | undefined {
  switch (decision.outcome) {
    case 'approved':
    case 'declined':
      return undefined;
    case 'approval-recorded':
      if (!decision.alreadyCounted) return undefined;
      return decision.approvals.includes(actor)
        ? `Your approval is already counted (${decision.approvals.length} of ${decision.quorum}). Someone else has to approve too.`
        : 'Your approval could not be recorded just now; please try again.';
    case 'not-allowed':
      return `${escapeMrkdwn(decision.message)} ${nothingChanged}`;
    case 'already-decided':
      return `This request was ${describeOutcome(requestOf(decision.action))}. ${nothingChanged}`;
    case 'expired':
      return decision.stream ? 'This request has expired, so it can no longer be decided.' : `This request has expired. ${nothingChanged}`;
    case 'policy-changed':
      return decision.stream
        ? 'The approval policy changed since this card was posted, so the request is being asked again under the new policy. Nothing was run.'
        : `This request was ${describeOutcome(requestOf(decision.action))}. ${nothingChanged}`;
    case 'fingerprint-mismatch':
      return `This button does not match the pending request (its arguments differ from what was asked). ${nothingChanged}`;
    case 'not-found':
      return `I could not find that request; its run may have ended. ${nothingChanged}`;
    default:
      return unreachable(decision, 'decision outcome');
  }
}

/**
 * What anyone is told about a request they may not see, and about an id that names no request:
 * the same words, so that neither can be told from the other.
 */
export const UNSEEN_REQUEST = 'I could not find that request, or it is not one you may see. Nothing was changed.';

/**
 * Whether a click was made on the request's own card (not the inbox, not a button naming a
 * request that has no card): there the clicker sees what the card shows anyway.
 */
export function onItsCard(click: Pick<Click, 'answerAt'>, card: CardRow | undefined): boolean {
  return card !== undefined && click.answerAt === undefined;
}

/**
 * A refusal as this person may hear it: on the request's own card, as it is; anywhere else only
 * someone who may see the request (Agent.maySee) is told about it (who decided, its status, its
 * tool), and everyone else gets UNSEEN_REQUEST.
 */
export async function refusalSeenBy(ctx: SlackContext, who: Person, row: Request | undefined, text: string, onCard: boolean): Promise<string> {
  if (onCard) return text;
  if (!row) return UNSEEN_REQUEST;
  try {
    return (await ctx.agent.maySee(row, actorOf(who))) ? text : UNSEEN_REQUEST;
  } catch (error) {
    ctx.logger.warn({ err: error, actionId: row.id, user: who.user }, 'who may see a request could not be checked; the refusal says nothing of it');
    return UNSEEN_REQUEST;
  }
}
