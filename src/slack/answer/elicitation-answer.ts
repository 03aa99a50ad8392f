import { isElicitationPayload, type ElicitationAnswer, type McpElicitationPayload } from '../../mcp/elicitation-payload.js';
import type { Request } from '../../agent/request.js';
import { parseElicitationFieldBlockId, parseButtonValue } from '../kit/action-ids.js';
import { readField } from '../kit/form-inputs.js';
import type { InputState, SubmittedView } from '../kit/submitted-payloads.js';
import { elicitationModal, parseElicitationModal } from './answer-modals.js';
import { findRequest, type Click, type Person, type SlackContext, tellUser } from '../context.js';
import { findCard } from '../card/cards.js';
import { clickedCard, tamperedButton, describeOutcome } from '../card/button-check.js';
import { errorReference } from '../kit/error-reference.js';
import { mayAnswer, recordAnswer, showAnswer, type GoOnInThread, type RecordedAnswer } from './resume-from-slack.js';
import type { CheckedSubmission } from '../ack.js';

/** What an elicitation click came to: nothing to say, a message for the clicker alone, or a recorded answer. */
type RecordedElicitation = undefined | { tell: string; click: Click } | { answer: RecordedAnswer };

/** How a click answers the server's question, given what it asked: an answer, or why the click answers nothing. */
export type AnswerOf = (payload: McpElicitationPayload) => ElicitationAnswer | { tell: string };

/**
 * Records an answer to an MCP server's question given on its card (the inline field, Submit,
 * Decline or Done) once the click is known to come from that card; its run's work waits for
 * `startAfter`. Only the run's requester (or an approver of the tool) may answer.
 */
export async function recordElicitationClick(
  ctx: SlackContext,
  click: Click | undefined,
  actionId: number | undefined,
  answerOf: AnswerOf,
  startAfter: Promise<void>,
): Promise<RecordedElicitation> {
  if (!click) return undefined;
  const checked = actionId === undefined ? false : await clickedCard(ctx, click, actionId);
  const request = checked ? checked.state?.action : undefined;
  if (!request || !isElicitationPayload(request.suspendPayload)) {
    ctx.logger.warn({ user: click.user, actionId }, 'elicitation answer refused: does not match a card');
    return { tell: tamperedButton, click };
  }
  const answer = answerOf(request.suspendPayload);
  if ('tell' in answer) return { tell: answer.tell, click };
  return { answer: await recordAnswer(ctx, request, answer, click, startAfter) };
}

export async function showElicitationClick(ctx: SlackContext, recorded: RecordedElicitation, goOn: GoOnInThread): Promise<void> {
  if (!recorded) return;
  if ('tell' in recorded) return tellUser(ctx, recorded.click, recorded.tell);
  await showAnswer(ctx, recorded.answer, goOn);
}

/** The request a button names (its value) or an inline field names (its block id). */
export function requestOfButton(value: string | undefined): number | undefined {
  return parseButtonValue(value)?.actionId;
}

export function requestOfField(blockId: string | undefined): number | undefined {
  return parseElicitationFieldBlockId(blockId);
}

/** The answer of a card's one inline field, checked as the modal's would be. */
export function inlineAnswer(state: InputState | undefined): AnswerOf {
  return (payload) => {
    if (payload.mode !== 'form' || payload.form.fields.length !== 1) return { tell: tamperedButton };
    const { name, required, field } = payload.form.fields[0]!;
    const parsed = readField(field, required, state);
    if (!parsed.ok) return { tell: `${parsed.error} Nothing was sent yet.` };
    return { action: 'accept', content: parsed.value === undefined ? {} : { [name]: parsed.value } };
  };
}

/** Answer on a card with several fields: opens the form in a modal, for someone who may answer. */
export async function showElicitationForm(ctx: SlackContext, click: Click, actionId: number | undefined): Promise<void> {
  const checked = actionId === undefined ? false : await clickedCard(ctx, click, actionId);
  const request = checked ? checked.state?.action : undefined;
  if (!request || !isElicitationPayload(request.suspendPayload) || request.suspendPayload.mode !== 'form') return tellUser(ctx, click, tamperedButton);
  if (request.status !== 'pending') return tellUser(ctx, click, `This request was ${describeOutcome(request)}. Nothing was changed.`);
  if (!(await mayAnswer(ctx, request, click))) return tellUser(ctx, click, 'Only the person who started this run can answer this. Nothing was changed.');
  try {
    if (!click.triggerId) throw new Error('no trigger_id');
    const payload = request.suspendPayload;
    await ctx.client.views.open({ trigger_id: click.triggerId, view: elicitationModal({ actionId: request.id, message: payload.message, form: payload.form }) });
  } catch (error) {
    ctx.logger.warn({ err: error, actionId: request.id }, 'elicitation form could not open');
    await tellUser(ctx, click, 'I could not open the form. Press Answer again.');
  }
}

type ElicitationSubmission = CheckedSubmission<{ kind: 'answer'; request: Request; answer: ElicitationAnswer }>;

/** Reads the modal's submission; a wrong value is shown beside its field before the modal closes. */
export async function checkElicitationSubmission(
  ctx: SlackContext,
  view: SubmittedView,
  user: string,
): Promise<ElicitationSubmission> {
  const meta = parseButtonValue(view.private_metadata);
  let request: Request | undefined;
  try {
    request = meta ? await findRequest(ctx, meta.actionId) : undefined;
  } catch (error) {
    ctx.logger.error({ err: error, user, ref: errorReference() }, 'elicitation form: request could not be loaded');
    return { kind: 'close' };
  }
  if (!request || !isElicitationPayload(request.suspendPayload) || request.suspendPayload.mode !== 'form') {
    ctx.logger.warn({ user, metadata: view.private_metadata }, 'elicitation form submitted for an unknown request');
    return { kind: 'close' };
  }
  const parsed = parseElicitationModal(request.suspendPayload.form, view.state.values);
  if (!parsed.ok) return { kind: 'errors', errors: parsed.errors };
  return { kind: 'answer', request, answer: { action: 'accept', content: parsed.content } };
}

/** Records a submitted form beside the request's card (undefined: the request has no card). */
export async function recordElicitationSubmission(
  ctx: SlackContext,
  submission: { request: Request; answer: ElicitationAnswer },
  who: Person,
  startAfter: Promise<void>,
): Promise<RecordedAnswer | undefined> {
  const card = await findCard(ctx.slackDb, submission.request.id);
  if (!card) return undefined;
  return recordAnswer(ctx, submission.request, submission.answer, { channel: card.channel, ...(card.thread_ts ? { threadTs: card.thread_ts } : {}), ...who }, startAfter);
}
