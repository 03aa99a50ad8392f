import { z } from 'zod';
import type { JSONSchema7 } from '@ai-sdk/provider';
import type { Tool } from './tool.js';

/**
 * The reserved field of every tool's input as the model sees it: the model may say, in its own
 * words, why it makes the call. A leading underscore and the two words keep it clear of real
 * arguments (and within the property names providers accept, `^[a-zA-Z0-9_.-]{1,64}$`).
 *
 * The field is taken out of the input before anything else sees it: not validated by the tool's
 * schema, not passed to `execute`, hooks or approval functions, not part of the fingerprint. It is
 * kept with an approval request (`stated_reason`), in its `requested` audit event and on its
 * `tool-call-approval` chunk (`statedReason`). A tool whose own input schema already has a
 * property of this name keeps it as its argument: the model is offered no stated reason for it.
 */
export const STATED_REASON_FIELD = '_approval_reason';

/** Longest stated reason (characters, after trimming): a sentence or two, what a card shows whole. */
export const MAX_STATED_REASON = 1000;

const reasonProperty = {
  type: 'string',
  maxLength: MAX_STATED_REASON,
  description:
    'Optional: why you are making this call, in a sentence or two. A person may have to approve the call; ' +
    'they see this as your words. It is not passed to the tool.',
} as const satisfies JSONSchema7;

/** Whether a tool's input is offered the reserved field: its schema is an object schema without a property of that name. */
const offered = new WeakMap<Tool, boolean>();

/**
 * The JSON Schema the model is given for a tool or a delegation: its own, with the reserved field
 * added where it can be (an object schema that does not already name it).
 */
export function withStatedReason(schema: JSONSchema7, tool?: Tool): JSONSchema7 {
  const offers = offersField(schema);
  if (tool) offered.set(tool, offers);
  if (!offers) return schema;
  return { ...schema, properties: { ...(schema.properties ?? {}), [STATED_REASON_FIELD]: reasonProperty } };
}

function offersField(schema: JSONSchema7): boolean {
  const isObject = schema.type === 'object' || (schema.type === undefined && schema.properties !== undefined);
  return isObject && !Object.hasOwn(schema.properties ?? {}, STATED_REASON_FIELD);
}

/** Whether the model was offered the reserved field for this tool (see withStatedReason); undefined: a delegation, always. */
export function offersStatedReason(tool: Tool | undefined): boolean {
  if (!tool) return true;
  const known = offered.get(tool);
  if (known !== undefined) return known;
  let schema: JSONSchema7 | undefined = tool.inputJsonSchema;
  if (!schema) {
    try {
      schema = z.toJSONSchema(tool.inputSchema, { unrepresentable: 'any', io: 'input' }) as JSONSchema7;
    } catch {
      schema = undefined;
    }
  }
  const offers = schema !== undefined && offersField(schema);
  offered.set(tool, offers);
  return offers;
}

/** Whether a parsed input holds the reserved field at all (most do not: nothing to take out). */
export function hasStatedReason(input: unknown): boolean {
  return input !== null && typeof input === 'object' && Object.hasOwn(input, STATED_REASON_FIELD);
}

/** The input without the reserved field, and the reason it held; `invalid` when it is not text within the bound. */
type TakenReason = { input: unknown; statedReason?: string } | { invalid: string };

/**
 * Takes the reserved field out of a call's parsed input (a plain object; anything else is left
 * as it is). Blank text is no reason. Not text, or longer than MAX_STATED_REASON once trimmed,
 * is the model's to fix, as any input its schema refuses.
 */
export function takeStatedReason(input: unknown): TakenReason {
  if (input === null || typeof input !== 'object' || Array.isArray(input) || !Object.hasOwn(input, STATED_REASON_FIELD)) return { input };
  const { [STATED_REASON_FIELD]: given, ...rest } = input as Record<string, unknown>;
  if (given === undefined || given === null) return { input: rest };
  if (typeof given !== 'string') return { invalid: `${STATED_REASON_FIELD}: expected text` };
  const reason = given.trim();
  if (reason.length > MAX_STATED_REASON) return { invalid: `${STATED_REASON_FIELD}: at most ${MAX_STATED_REASON} characters (this has ${reason.length})` };
  return reason === '' ? { input: rest } : { input: rest, statedReason: reason };
}
