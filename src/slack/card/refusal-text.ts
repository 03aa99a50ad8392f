import type { Decision } from '../../agent/api-types.js';
import type { PendingAction } from '../../db/rows.js';
import { mention } from '../kit/mention.js';
import { escapeMrkdwn } from '../kit/mrkdwn/escape-mrkdwn.js';
import { unreachable } from '../../unreachable.js';

const nothingChanged = 'Nothing was changed.';

/** What happened to a request, in words, for someone whose click came too late. */
export function describeOutcome(action: PendingAction): string {
  const by = action.decided_by ? ` by ${mention(action.decided_by)}` : '';
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
      return `This request was ${describeOutcome(decision.action)}. ${nothingChanged}`;
    case 'expired':
      return decision.stream ? 'This request has expired, so it can no longer be decided.' : `This request has expired. ${nothingChanged}`;
    case 'policy-changed':
      return decision.stream
        ? 'The approval policy changed since this card was posted, so the request is being asked again under the new policy. Nothing was run.'
        : `This request was ${describeOutcome(decision.action)}. ${nothingChanged}`;
    case 'fingerprint-mismatch':
      return `This button does not match the pending request (its arguments differ from what was asked). ${nothingChanged}`;
    case 'not-found':
      return `I could not find that request; its run may have ended. ${nothingChanged}`;
    default:
      return unreachable(decision, 'decision outcome');
  }
}
