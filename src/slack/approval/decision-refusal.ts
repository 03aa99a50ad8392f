import type { PendingAction } from '../../db/rows.js';
import { escapeMrkdwn } from '../kit/mrkdwn/escape-mrkdwn.js';
import { actorOf, type Click, type Person, type SlackContext } from '../context.js';
import type { GenuineButton } from '../card/genuine-button.js';
import { describeOutcome } from '../card/refusal-text.js';
import { onItsCard, refusalSeenBy } from '../card/unseen-request.js';

/**
 * Why the clicker may not decide the request a genuine button names, as it stands, said before a
 * form opens (so nobody fills one in for a request they cannot decide), or undefined. The runtime
 * checks again on submit. `as` is what the form is for: Decline asks the decline rule, Approve
 * and Edit the approve rule (the refusal worded for Edit). `groupLookupMayRetry` lets a group that
 * could not be checked now through to the submission, which checks it again. Off the request's
 * card, the refusal names the request only to someone who may see it (refusalSeenBy).
 */
export async function decisionRefusal(
  ctx: SlackContext,
  click: Click,
  button: GenuineButton,
  options: { as: 'approve' | 'decline' | 'edit'; groupLookupMayRetry?: boolean },
): Promise<string | undefined> {
  const row = button.row;
  const refusal = row ? await refusalOf(ctx, row, click, button.value.fingerprintPrefix, options) : 'I could not find that request; its run may have ended. Nothing was changed.';
  return refusal === undefined ? undefined : refusalSeenBy(ctx, click, row, refusal, onItsCard(click, button.card));
}

async function refusalOf(
  ctx: SlackContext,
  row: PendingAction,
  who: Person,
  fingerprintPrefix: string,
  options: { as: 'approve' | 'decline' | 'edit'; groupLookupMayRetry?: boolean },
): Promise<string | undefined> {
  if (row.kind !== 'approval') return 'That button is not for an approval request. Nothing was changed.';
  if (row.status !== 'pending') return `This request was ${describeOutcome(row)}. Nothing was changed.`;
  if (!(row.fingerprint ?? '').startsWith(fingerprintPrefix)) {
    return 'This button does not match the pending request (its arguments differ from what was asked). Nothing was changed.';
  }
  if (row.expires_at && new Date(row.expires_at).getTime() <= Date.now()) return 'This request has expired. Nothing was changed.';
  const verdict = await ctx.agent.mayDecide(row, actorOf(who), options.as === 'decline' ? 'decline' : 'approve');
  if (verdict.allowed || (options.groupLookupMayRetry === true && verdict.why === 'group-lookup-failed')) return undefined;
  const message = options.as === 'approve' ? verdict.message : verdict.message.replace(/\bapprove\b/, options.as);
  return `${escapeMrkdwn(message)} Nothing was changed.`;
}
