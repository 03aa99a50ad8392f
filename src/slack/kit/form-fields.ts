import { z } from 'zod';
import { elicitationForm } from '../../mcp/elicitation-form.js';
import type { ElicitationForm } from '../../mcp/elicitation-payload.js';
import type { Agent } from '../../agent/agent.js';
import { resumeSchemaFor } from '../../agent/tool.js';
import type { Request } from '../../agent/request.js';

/**
 * The fields of a form: a flat object of texts, numbers, integers, booleans, enums and
 * multi-enums, each with its title, description, default and bounds. An MCP server's question
 * arrives in this shape; a tool's input schema (Edit) and a suspended tool's resume schema
 * (Respond) are turned into it here, so every form is drawn and read by the same code.
 */
export type Form = ElicitationForm;
export type FormEntry = Form['fields'][number];

/**
 * The form a JSON Schema object asks for, or undefined when it asks for anything a form cannot
 * give faithfully (nested objects, arrays of free values, constants, no fields at all), which
 * is then answered another way (a thread reply) or not offered (Edit).
 */
export function formOfJsonSchema(schema: unknown): Form | undefined {
  if (typeof schema !== 'object' || schema === null) return undefined;
  const s = schema as Record<string, unknown>;
  if (s.type !== 'object' || typeof s.properties !== 'object' || s.properties === null) return undefined;
  const required = new Set(Array.isArray(s.required) ? s.required.filter((r): r is string => typeof r === 'string') : []);
  const properties: Record<string, unknown> = {};
  for (const [key, raw] of Object.entries(s.properties as Record<string, unknown>)) {
    if (typeof raw !== 'object' || raw === null || 'const' in raw) return undefined;
    const { property, nullable } = withoutNull(raw as Record<string, unknown>);
    properties[key] = withoutSafeIntegerBounds(property);
    // A value that may be null may also be left empty.
    if (nullable) required.delete(key);
  }
  const form = elicitationForm({ type: 'object', properties, required: [...required] } as never);
  return form && form.fields.length > 0 ? form : undefined;
}

/**
 * The form a zod schema asks for, through its JSON Schema as an input (a defaulted field may be
 * left empty); undefined when it has none (see formOfJsonSchema) or cannot be written as one.
 */
export function formOfZod(schema: z.ZodType | undefined): Form | undefined {
  if (!(schema instanceof z.ZodObject)) return undefined;
  try {
    return formOfJsonSchema(z.toJSONSchema(schema, { io: 'input', unrepresentable: 'throw' }));
  } catch {
    return undefined;
  }
}

/**
 * A resume schema that is a yes/no question: a bare boolean, or an object with exactly one
 * field, a boolean (e.g. `{ confirmed: boolean }`). Such a card gets Yes / No buttons instead of
 * a form; `answer(yes)` is the resume data either button gives.
 */
interface Confirmation {
  /** The one field's key; absent for a bare boolean. */
  field?: string;
  answer(yes: boolean): unknown;
}

export function confirmationOf(schema: z.ZodType | undefined): Confirmation | undefined {
  if (schema instanceof z.ZodBoolean) return { answer: (yes) => yes };
  // The form Respond would show: one field, and that a boolean.
  const fields = formOfZod(schema)?.fields;
  const only = fields?.length === 1 ? fields[0]! : undefined;
  if (only?.field.type !== 'boolean') return undefined;
  const field = only.name;
  return { field, answer: (yes) => ({ [field]: yes }) };
}

/** zod writes ±2^53−1 as an integer's bounds: no bound a person needs to see in a number input. */
function withoutSafeIntegerBounds(p: Record<string, unknown>): Record<string, unknown> {
  const { minimum, maximum, ...rest } = p;
  return {
    ...rest,
    ...(typeof minimum === 'number' && Math.abs(minimum) < Number.MAX_SAFE_INTEGER ? { minimum } : {}),
    ...(typeof maximum === 'number' && Math.abs(maximum) < Number.MAX_SAFE_INTEGER ? { maximum } : {}),
  };
}

/** `type: ["string", "null"]`, or `anyOf` a schema and `{ type: "null" }`: a value that may be left out. */
function withoutNull(p: Record<string, unknown>): { property: Record<string, unknown>; nullable: boolean } {
  if (Array.isArray(p.type) && p.type.includes('null')) {
    const types = p.type.filter((t) => t !== 'null');
    return { property: { ...p, type: types.length === 1 ? types[0] : types }, nullable: true };
  }
  const isNull = (s: unknown) => typeof s === 'object' && s !== null && (s as { type?: unknown }).type === 'null';
  if (Array.isArray(p.anyOf) && p.anyOf.length === 2 && p.anyOf.some(isNull)) {
    const { anyOf, ...outer } = p;
    const inner = anyOf.find((s) => !isNull(s));
    if (typeof inner === 'object' && inner !== null) return { property: { ...(inner as Record<string, unknown>), ...outer }, nullable: true };
  }
  return { property: p, nullable: false };
}

/**
 * What an answer to a suspended call is checked against: its tool's resume schema for these
 * arguments, the tool found along the request's path; undefined when the tool is gone or asks none.
 */
export function resumeSchemaOf(agent: Agent, action: Request): z.ZodType | undefined {
  const tool = agent.toolOf(action);
  return tool ? resumeSchemaFor(tool, action.args) : undefined;
}
