import type { ButtonAction } from '@slack/bolt';
import type { z } from 'zod';
import type { Request } from '../../agent/request.js';
import { parseCardBlockId, parseButtonValue } from '../kit/action-ids.js';
import { formOfZod, type Form, resumeSchemaOf } from '../kit/form-fields.js';
import { parseRespondModal, respondModal } from './answer-modals.js';
import type { SubmittedView } from '../kit/submitted-payloads.js';
import { splitPayload } from '../card/answer-card.js';
import { findRequest, type Click, type Person, type SlackContext, tellUser } from '../context.js';
import { findCard } from '../card/cards.js';
import { clickedCard, tamperedButton, describeOutcome } from '../card/button-check.js';
import { errorReference, failureText } from '../kit/error-reference.js';
import { mayAnswer, recordAnswer, type RecordedAnswer } from './resume-from-slack.js';
import type { CheckedSubmission } from '../ack.js';

/** The form a suspended tool's flat resume schema turns into, with the schema to check answers against. */
function formFor(ctx: SlackContext, action: Request): { schema: z.ZodType; form: Form } | undefined {
  const schema = resumeSchemaOf(ctx.agent, action);
  const form = formOfZod(schema);
  return schema && form ? { schema, form } : undefined;
}

/** What the tool asked, for the top of its form (the card shows the same). */
function questionOfPayload(payload: unknown): { question?: string } {
  const { message } = splitPayload(payload);
  return message !== undefined && message.trim() !== '' ? { question: message } : {};
}

/**
 * Respond on a suspension card: checks the button and who is answering, then
 * opens the modal built from the tool's resume schema; says why not otherwise.
 */
export async function showRespondForm(ctx: SlackContext, click: Click, action: Pick<ButtonAction, 'value' | 'block_id'>): Promise<void> {
  const value = parseButtonValue(action.value);
  const block = parseCardBlockId(action.block_id);
  const checked = value && block?.kind === 'suspension' && block.actionId === value.actionId ? await clickedCard(ctx, click, value.actionId) : false;
  const request = checked ? checked.state?.action : undefined;
  if (!request || request.kind !== 'suspension') {
    ctx.logger.warn({ user: click.user, value: action.value }, 'respond button refused: does not match a card');
    return tellUser(ctx, click, tamperedButton);
  }
  if (request.status !== 'pending') return tellUser(ctx, click, `This request was ${describeOutcome(request)}. Nothing was changed.`);
  if (!(await mayAnswer(ctx, request, click))) {
    return tellUser(ctx, click, 'Only the person who started this run can answer this. Nothing was changed.');
  }
  const form = formFor(ctx, request);
  if (!form) return tellUser(ctx, click, 'This input cannot be given in a form; reply in this thread instead.');
  try {
    if (!click.triggerId) throw new Error('no trigger_id');
    await ctx.client.views.open({ trigger_id: click.triggerId, view: respondModal({ actionId: request.id, toolName: request.toolName, ...questionOfPayload(request.suspendPayload), form: form.form }) });
  } catch (error) {
    ctx.logger.warn({ err: error, actionId: request.id }, 'respond modal could not open');
    await tellUser(ctx, click, 'I could not open the form. Press Respond again, or reply in this thread.');
  }
}

/** What a Respond modal's submission comes to: close it, show errors beside its fields, or an answer to record. */
type RespondSubmission = CheckedSubmission<{ kind: 'answer'; request: Request; data: unknown }>;

/**
 * Reads a Respond modal's submission and checks the answer against the tool's
 * resume schema before the modal closes, so a wrong value is shown next to its
 * field instead of in a message after the fact.
 */
export async function checkRespondSubmission(
  ctx: SlackContext,
  view: SubmittedView,
  user: string,
): Promise<RespondSubmission> {
  const meta = parseButtonValue(view.private_metadata);
  let request: Request | undefined;
  try {
    request = meta ? await findRequest(ctx, meta.actionId) : undefined;
  } catch (error) {
    // The modal must still close within Slack's 3 seconds; the person can press Respond again.
    ctx.logger.error({ err: error, user, ref: errorReference() }, 'respond modal: request could not be loaded');
    return { kind: 'close' };
  }
  const form = request && request.kind === 'suspension' ? formFor(ctx, request) : undefined;
  if (!request || !form) {
    ctx.logger.warn({ user, metadata: view.private_metadata }, 'respond modal submitted for an unknown request');
    return { kind: 'close' };
  }
  const parsed = parseRespondModal(form.form, view.state.values, form.schema);
  if (!parsed.ok) return { kind: 'errors', errors: parsed.errors };
  return { kind: 'answer', request, data: parsed.content };
}

/** Records a checked Respond answer beside the request's card (undefined: the request has no card). */
export async function recordRespondAnswer(
  ctx: SlackContext,
  answer: { request: Request; data: unknown },
  who: Person,
  startAfter: Promise<void>,
): Promise<RecordedAnswer | undefined> {
  const card = await findCard(ctx.slackDb, answer.request.id);
  if (!card) {
    ctx.logger.warn({ actionId: answer.request.id }, 'respond modal submitted for a request without a card');
    return undefined;
  }
  const where = { channel: card.channel, ...(card.thread_ts ? { threadTs: card.thread_ts } : {}) };
  return recordAnswer(ctx, answer.request, answer.data, { ...where, ...who }, startAfter);
}

/** Tells the submitter, beside the card, that recording or showing their answer failed (with the log reference). */
export function tellRespondFailure(ctx: SlackContext, actionId: number, user: string): (ref: string) => Promise<void> {
  return async (ref) => {
    const card = await findCard(ctx.slackDb, actionId);
    if (card) await tellUser(ctx, { channel: card.channel, ...(card.thread_ts ? { threadTs: card.thread_ts } : {}), user }, failureText(ref));
  };
}

