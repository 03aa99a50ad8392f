import type { InputBlock, ModalView } from '@slack/types';
import { MAX_REASON_LENGTH } from '../../agent/decide.js';
import { inlineCode } from '../kit/mrkdwn/inline-code.js';
import { LIMITS, truncate } from '../kit/limits.js';
import { CALLBACK_IDS } from '../kit/action-ids.js';
import { approvalButtonValue, parseButtonValue } from '../kit/button-value.js';
import type { DeclineModalData } from '../card/card-types.js';
import type { ViewStateValues } from '../kit/submitted-payloads.js';
import { section } from '../kit/layout.js';
import { plainText } from '../kit/text-objects.js';

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

/**
 * The modal Decline opens. private_metadata carries the same `{a, f}` as the button, so the
 * submission is bound to the exact request and arguments the decliner saw.
 */
export function declineModal(data: DeclineModalData): ModalView {
  return {
    type: 'modal',
    callback_id: CALLBACK_IDS.declineModal,
    private_metadata: approvalButtonValue(data.actionId, data.fingerprint),
    title: plainText('Decline tool call', LIMITS.modalTitle),
    submit: plainText('Decline', LIMITS.modalButton),
    close: plainText('Cancel', LIMITS.modalButton),
    blocks: [
      section(
        `Decline the call to ${inlineCode(truncate(data.toolName, 200))}? ` +
          'The agent is told it was declined, with your reason if you give one.',
      ),
      declineReasonInput(),
    ],
  };
}

export interface DeclineSubmission {
  actionId: number;
  fingerprintPrefix: string;
  reason?: string;
}

/** Reads a decline modal submission; undefined when the metadata is not ours. */
export function parseDeclineModal(
  privateMetadata: string | undefined,
  stateValues: ViewStateValues,
): DeclineSubmission | undefined {
  const meta = parseButtonValue(privateMetadata);
  if (meta?.fingerprintPrefix === undefined) return undefined;
  const reason = stateValues[DECLINE_REASON_BLOCK_ID]?.[DECLINE_REASON_ACTION_ID]?.value?.trim();
  const submission: DeclineSubmission = { actionId: meta.actionId, fingerprintPrefix: meta.fingerprintPrefix };
  if (reason) submission.reason = reason;
  return submission;
}
