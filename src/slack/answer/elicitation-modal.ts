import type { KnownBlock, ModalView } from '@slack/types';
import type { ElicitationForm } from '../../mcp/elicitation-payload.js';
import { escapeMrkdwn } from '../kit/mrkdwn/escape-mrkdwn.js';
import { CALLBACK_IDS } from '../kit/action-ids.js';
import { actionButtonValue } from '../kit/button-value.js';
import { blockIdByIndex, fieldInput, readForm, type ReadForm } from '../kit/form-inputs.js';
import { section, plainText } from '../kit/text-objects.js';
import { LIMITS, truncate } from '../kit/limits.js';
import type { ViewStateValues } from '../kit/submitted-payloads.js';

/** One block for the message. */
const MAX_FIELDS = LIMITS.modalBlocks - 1;

/** The modal behind an elicitation card's Answer button: one input per field of the server's form (block ids `f<index>`). */
export function elicitationModal(data: { actionId: number; message: string; form: ElicitationForm }): ModalView {
  const blocks: KnownBlock[] = [section(escapeMrkdwn(truncate(data.message.trim() || '(no message)', LIMITS.sectionText - 100)))];
  data.form.fields.slice(0, MAX_FIELDS).forEach((entry, i) => blocks.push(fieldInput(entry, blockIdByIndex(entry, i))));
  return {
    type: 'modal',
    callback_id: CALLBACK_IDS.elicitationModal,
    private_metadata: actionButtonValue(data.actionId),
    title: plainText('Answer', LIMITS.modalTitle),
    submit: plainText('Send', LIMITS.modalButton),
    close: plainText('Cancel', LIMITS.modalButton),
    blocks,
  };
}

/** The form's answers from a submission, typed and checked; errors by block id, for `response_action: 'errors'`. */
export function parseElicitationModal(form: ElicitationForm, values: ViewStateValues): ReadForm {
  return readForm(form.fields.slice(0, MAX_FIELDS), values, blockIdByIndex);
}
