import type { InputBlock } from '@slack/types';
import { MAX_REASON_LENGTH } from '../../approvals/reason-limit.js';
import { LIMITS } from './limits.js';
import { plainText } from './text-objects.js';

/**
 * Decline's reason field, shared by the single card's Decline (approval/) and the batch's
 * Decline all (batch/): in kit/ so that neither feature imports the other.
 */
export const DECLINE_REASON_BLOCK_ID = 'reason';
export const DECLINE_REASON_ACTION_ID = 'reason';

/** The optional reason field of a decline modal (Decline and Decline all): it goes to the model. */
export function declineReasonInput(): InputBlock {
  return {
    type: 'input',
    block_id: DECLINE_REASON_BLOCK_ID,
    optional: true,
    label: plainText('Reason'),
    element: {
      type: 'plain_text_input',
      action_id: DECLINE_REASON_ACTION_ID,
      multiline: true,
      max_length: MAX_REASON_LENGTH,
      placeholder: plainText('Why not? (optional)', LIMITS.placeholder),
    },
  };
}
