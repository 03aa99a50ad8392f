import type { ModalView } from '@slack/types';
import { MAX_REASON_LENGTH } from '../../agent/decide.js';
import { escapeMrkdwn } from '../kit/mrkdwn/escape-mrkdwn.js';
import { inlineCode } from '../kit/mrkdwn/inline-code.js';
import { LIMITS, truncate } from '../kit/limits.js';
import { CALLBACK_IDS } from '../kit/action-ids.js';
import { approvalButtonValue, parseButtonValue } from '../kit/button-value.js';
import type { ViewStateValues } from '../kit/submitted-payloads.js';
import { section } from '../kit/layout.js';
import { plainText } from '../kit/text-objects.js';

export const APPROVE_REASON_BLOCK_ID = 'reason';
export const APPROVE_REASON_ACTION_ID = 'reason';

export interface ApproveReasonModalData {
  actionId: number;
  fingerprint: string;
  toolName: string;
  /** The call in words (plain text). */
  title: string;
  risk?: 'low' | 'high';
}

/**
 * The modal Approve opens when the policy wants a reason. private_metadata carries the same
 * `{a, f}` as the button, so the approval is bound to the exact request and arguments seen.
 */
export function approveReasonModal(data: ApproveReasonModalData): ModalView {
  const high = data.risk === 'high' ? ' :warning: This action is marked *high-risk*.' : '';
  return {
    type: 'modal',
    callback_id: CALLBACK_IDS.approveReasonModal,
    private_metadata: approvalButtonValue(data.actionId, data.fingerprint),
    title: plainText('Approve tool call', LIMITS.modalTitle),
    submit: plainText('Approve', LIMITS.modalButton),
    close: plainText('Cancel', LIMITS.modalButton),
    blocks: [
      section(
        `Approve *${escapeMrkdwn(truncate(data.title, 300))}* (${inlineCode(truncate(data.toolName, 150))})?${high} ` +
          'The approval policy asks for a reason; it is kept with your approval and shown on the card.',
      ),
      {
        type: 'input',
        block_id: APPROVE_REASON_BLOCK_ID,
        optional: false,
        label: plainText('Reason'),
        element: {
          type: 'plain_text_input',
          action_id: APPROVE_REASON_ACTION_ID,
          multiline: true,
          min_length: 1,
          // The runtime refuses a longer reason too (decideToolCall), whoever sends it.
          max_length: MAX_REASON_LENGTH,
          placeholder: plainText('Why is this call all right to run?', LIMITS.placeholder),
        },
      },
    ],
  };
}

export interface ApproveReasonSubmission {
  actionId: number;
  fingerprintPrefix: string;
  /** Trimmed; empty when only blanks were written (the submission is then sent back with an error). Never cut: a long one is refused where it is decided. */
  reason: string;
}

/** Reads the modal's submission; undefined when the metadata is not ours. */
export function parseApproveReasonModal(privateMetadata: string | undefined, stateValues: ViewStateValues): ApproveReasonSubmission | undefined {
  const meta = parseButtonValue(privateMetadata);
  if (meta?.fingerprintPrefix === undefined) return undefined;
  const reason = stateValues[APPROVE_REASON_BLOCK_ID]?.[APPROVE_REASON_ACTION_ID]?.value?.trim() ?? '';
  return { actionId: meta.actionId, fingerprintPrefix: meta.fingerprintPrefix, reason };
}
