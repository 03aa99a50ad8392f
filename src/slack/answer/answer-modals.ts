import type { KnownBlock, ModalView } from '@slack/types';
import type { z } from 'zod';
import { inlineCode, escapeMrkdwn } from '../kit/mrkdwn/escape-mrkdwn.js';
import { LIMITS, truncate, truncateMrkdwn, context, section, plainText } from '../kit/limits.js';
import { CALLBACK_IDS, actionButtonValue } from '../kit/action-ids.js';
import type { Form } from '../kit/form-fields.js';
import { blockIdByName, fieldInput, readForm, type ReadForm, blockIdByIndex } from '../kit/form-inputs.js';
import type { ViewStateValues } from '../kit/submitted-payloads.js';
import type { ElicitationForm } from '../../mcp/elicitation-payload.js';

/** Respond: one block for the introduction and one for a "fields not shown" note. */
const RESPOND_MAX_FIELDS = LIMITS.modalBlocks - 2;

interface RespondModalData {
  actionId: number;
  toolName: string;
  /** What the tool asked (its suspend payload's message/question/prompt), shown at the top. */
  question?: string;
  /** The tool's resume schema as a form. */
  form: Form;
}

/**
 * The form a suspended tool's resume data is entered in, one input per field; block ids are the
 * field names (what `response_action: 'errors'` reports against).
 */
export function respondModal(data: RespondModalData): ModalView {
  const tool = `Input for ${inlineCode(truncate(data.toolName, 200))}`;
  const question = data.question?.trim();
  // The question the tool asked, above the fields it is answered in; escaped, as a model may have written it.
  const intro = question ? `${truncateMrkdwn(escapeMrkdwn(truncate(question, LIMITS.sectionText)), LIMITS.sectionText - 400)}\n\n${tool}` : tool;
  const blocks: KnownBlock[] = [section(intro)];
  const visible = data.form.fields.slice(0, RESPOND_MAX_FIELDS);
  visible.forEach((entry, i) => blocks.push(fieldInput(entry, blockIdByName(entry, i))));
  const hidden = data.form.fields.length - visible.length;
  if (hidden > 0) blocks.push(context(`${hidden} more fields do not fit in this form — reply in the thread instead`));
  return {
    type: 'modal',
    callback_id: CALLBACK_IDS.respondModal,
    private_metadata: actionButtonValue(data.actionId),
    title: plainText('Provide input', LIMITS.modalTitle),
    submit: plainText('Submit', LIMITS.modalButton),
    close: plainText('Cancel', LIMITS.modalButton),
    blocks,
  };
}

/**
 * A Respond modal's submission as typed data (numbers as numbers, booleans as booleans, enum
 * values as the exact strings), checked against the resume schema when given; errors by block id.
 */
export function parseRespondModal(form: Form, stateValues: ViewStateValues, resumeSchema?: z.ZodType): ReadForm {
  return readForm(form.fields.slice(0, RESPOND_MAX_FIELDS), stateValues, blockIdByName, resumeSchema);
}

/** An elicitation: one block for the message. */
const ELICITATION_MAX_FIELDS = LIMITS.modalBlocks - 1;

/** The modal behind an elicitation card's Answer button: one input per field of the server's form (block ids `f<index>`). */
export function elicitationModal(data: { actionId: number; message: string; form: ElicitationForm }): ModalView {
  const blocks: KnownBlock[] = [section(escapeMrkdwn(truncate(data.message.trim() || '(no message)', LIMITS.sectionText - 100)))];
  data.form.fields.slice(0, ELICITATION_MAX_FIELDS).forEach((entry, i) => blocks.push(fieldInput(entry, blockIdByIndex(entry, i))));
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
  return readForm(form.fields.slice(0, ELICITATION_MAX_FIELDS), values, blockIdByIndex);
}
