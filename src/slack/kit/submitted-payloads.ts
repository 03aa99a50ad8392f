import { z } from 'zod';
import { LIMITS } from './limits.js';

/**
 * What Slack sends back from the elements the builders draw, as far as the bot reads it: a
 * block_actions payload (the element acted on, the message's input states) and a
 * view_submission (the modal's metadata and input states). Every interaction is parsed against
 * these before any listener sees it (listeners.ts), so a value of the wrong type, a
 * text longer than any input allows or a selection with repeated options is refused in one
 * place, acknowledged, and never reaches a parser that would throw before the ack.
 *
 * The bounds are Slack's own maxima for the elements drawn (a `plain_text_input` holds at most
 * 3,000 characters, a menu at most 100 options): Slack's UI cannot send more, so more is a
 * forged request. A modal that declares less (a field's `maxLength`) checks its own bound where
 * it reads the field. Unknown keys pass through: Slack adds fields, and they are not read.
 */

/** A Slack id or ts: short, and never anything but a string. */
const slackString = z.string().max(255);

/** `selected_option` of a radio button group or menu: the option's value is what is read. */
const selectedOption = z.looseObject({ value: z.string().max(LIMITS.optionValue) });

const selectedOptions = z
  .array(selectedOption)
  .max(LIMITS.selectOptions)
  .refine((options) => new Set(options.map((o) => o.value)).size === options.length, 'an option is selected more than once');

/** Seconds since the epoch a `datetimepicker` can show: a Date of it always has an ISO form. */
const MAX_EPOCH_SECONDS = 253_402_300_799;

/** One input's state, in a view's `state.values` or a message's (the element acted on carries the same fields). */
const inputStateSchema = z.looseObject({
  type: z.string().max(64).optional(),
  value: z.string().max(LIMITS.plainTextInputMaxLength).nullable().optional(),
  selected_option: selectedOption.nullable().optional(),
  selected_options: selectedOptions.nullable().optional(),
  selected_date: z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/)
    .refine((d) => Number.isFinite(Date.parse(d)), 'not a date')
    .nullable()
    .optional(),
  selected_date_time: z.number().int().min(0).max(MAX_EPOCH_SECONDS).nullable().optional(),
});

export type InputState = z.output<typeof inputStateSchema>;

/** `state.values`: block id → action id → the input's state. A modal has at most 100 blocks. */
const stateValuesSchema = z
  .record(slackString, z.record(slackString, inputStateSchema))
  .refine((values) => Object.keys(values).length <= LIMITS.modalBlocks, 'more blocks than a view holds');

export type ViewStateValues = z.output<typeof stateValuesSchema>;

/** The element a block_actions payload is about (`actions[0]`): a button's value, or an input's state. */
const submittedActionSchema = inputStateSchema.extend({
  type: z.string().max(64),
  action_id: z.string().max(LIMITS.actionId),
  block_id: z.string().max(LIMITS.blockId),
  // A button's value (at most 2,000) or a text input's (at most 3,000).
  value: z.string().max(LIMITS.plainTextInputMaxLength).nullable().optional(),
});

const user = z.looseObject({ id: slackString.min(1), team_id: slackString.optional() });
const team = z.looseObject({ id: slackString }).nullable().optional();

/** A block_actions payload: who clicked, where (the message or the Home tab), what, and the inputs beside it. */
export const blockActionsSchema = z.looseObject({
  type: z.literal('block_actions'),
  user,
  team,
  trigger_id: slackString.optional(),
  channel: z.looseObject({ id: slackString }).nullable().optional(),
  container: z.looseObject({
    type: slackString.optional(),
    channel_id: slackString.optional(),
    message_ts: slackString.optional(),
    thread_ts: slackString.optional(),
  }),
  message: z.looseObject({ ts: slackString.optional(), thread_ts: slackString.optional() }).optional(),
  // The view clicked in (the Home tab or a modal): which one, and what its builder kept in it.
  view: z.looseObject({ id: slackString, type: slackString.optional(), private_metadata: z.string().max(LIMITS.privateMetadata).optional() }).optional(),
  state: z.looseObject({ values: stateValuesSchema }).optional(),
  actions: z.array(submittedActionSchema).min(1).max(1),
});

export type BlockActionsBody = z.output<typeof blockActionsSchema>;

/** A submitted modal as the listeners read it: which modal, what it was opened for, what was entered. */
const submittedViewSchema = z.looseObject({
  callback_id: z.string().max(LIMITS.callbackId),
  private_metadata: z.string().max(LIMITS.privateMetadata),
  state: z.looseObject({ values: stateValuesSchema }),
});

export type SubmittedView = z.output<typeof submittedViewSchema>;

export const viewSubmissionSchema = z.looseObject({
  type: z.literal('view_submission'),
  user,
  team,
  view: submittedViewSchema,
});

export type ViewSubmission = z.output<typeof viewSubmissionSchema>;

/** Where a parse failed, for the log: paths and messages, never the values sent. */
export function issuesOf(error: z.ZodError): string[] {
  return error.issues.slice(0, 5).map((i) => `${i.path.join('.') || '(payload)'}: ${i.message}`);
}
