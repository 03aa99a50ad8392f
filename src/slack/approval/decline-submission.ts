import { parseDeclineModal } from './decline-modal.js';
import type { SubmittedView } from '../kit/submitted-payloads.js';
import type { Person, SlackContext } from '../context.js';
import {
  recordDecisionSubmission,
  showDecisionSubmission,
  tellDecisionSubmissionFailure,
  type RecordedDecision,
} from './decision-submission.js';

/**
 * The decline modal's submission, up to its recorded decision: the reason goes to the model, and
 * the metadata binds the decline to the request and the arguments the decliner saw.
 */
export function recordDeclineSubmission(ctx: SlackContext, view: SubmittedView, who: Person, startAfter: Promise<void>): Promise<RecordedDecision | undefined> {
  return recordDecisionSubmission(ctx, parseDeclineModal(view.private_metadata, view.state.values), who, 'decline', startAfter);
}

/** Shows a recorded decline beside its card (the redraw, a refusal, the run's continuation). */
export const showDeclineSubmission = showDecisionSubmission;

/** Tells the decliner, beside the card, that recording or showing the decline failed (with the log reference). */
export function tellDeclineFailure(ctx: SlackContext, view: SubmittedView, user: string): (ref: string) => Promise<void> {
  return tellDecisionSubmissionFailure(ctx, parseDeclineModal(view.private_metadata, view.state.values)?.actionId, user);
}
