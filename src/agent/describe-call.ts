import { z } from 'zod';
import type { JSONSchema7 } from '@ai-sdk/provider';
import type { Logger } from '../logger.js';
import type { CallDescription, Tool } from './tool.js';

/** What a front end needs to show one call to the people deciding it. */
export interface CallPresentation {
  /**
   * The tool's own description of the call (plain text, not yet escaped), when it has a
   * `describe` that returned a well-formed one; otherwise describe the arguments from `inputSchema`.
   */
  description?: CallDescription;
  /** The JSON Schema of the tool's input (absent for a tool the code no longer has). */
  inputSchema?: JSONSchema7;
  /** `high` when the policy or the tool's own description says so. */
  risk: 'low' | 'high';
  /** Approving needs a written reason (the policy's `requireReason`). */
  requireReason: boolean;
}

const callDescription = z.object({
  title: z.string().trim().min(1),
  fields: z.array(z.object({ label: z.string(), value: z.string() })),
  risk: z.enum(['low', 'high']).optional(),
});

const schemas = new WeakMap<Tool, JSONSchema7 | undefined>();

/** The input schema as JSON Schema, derived once per tool (an MCP tool brings its own). */
function inputJsonSchemaOf(tool: Tool): JSONSchema7 | undefined {
  if (tool.inputJsonSchema) return tool.inputJsonSchema;
  if (schemas.has(tool)) return schemas.get(tool);
  let schema: JSONSchema7 | undefined;
  try {
    schema = z.toJSONSchema(tool.inputSchema, { unrepresentable: 'any', io: 'input' }) as JSONSchema7;
  } catch {
    schema = undefined;
  }
  schemas.set(tool, schema);
  return schema;
}

/**
 * The tool's `describe(args)`, checked: a describe that throws or returns something malformed
 * is logged and ignored, so the card falls back to the default and is never lost to it.
 */
function customDescription(tool: Tool, toolName: string, args: unknown, logger: Logger): CallDescription | undefined {
  if (typeof tool.describe !== 'function') return undefined;
  let described: unknown;
  try {
    described = tool.describe(args);
  } catch (error) {
    logger.warn({ err: error, toolName }, 'tool describe() threw; the card describes the arguments instead');
    return undefined;
  }
  const parsed = callDescription.safeParse(described);
  if (!parsed.success) {
    logger.warn({ toolName, issues: parsed.error.issues.slice(0, 5).map((i) => `${i.path.join('.')}: ${i.message}`) }, 'tool describe() returned a malformed description; the card describes the arguments instead');
    return undefined;
  }
  const { title, fields, risk } = parsed.data;
  return { title, fields: fields.map((f) => ({ label: f.label, value: f.value })), ...(risk !== undefined ? { risk } : {}) };
}

/** The presentation of a call of `tool` (undefined when the code no longer has it) under a requirement. */
export function presentCall(
  tool: Tool | undefined,
  toolName: string,
  args: unknown,
  requirement: { risk: 'low' | 'high'; requireReason: boolean },
  logger: Logger,
): CallPresentation {
  const description = tool ? customDescription(tool, toolName, args, logger) : undefined;
  const inputSchema = tool ? inputJsonSchemaOf(tool) : undefined;
  return {
    ...(description ? { description } : {}),
    ...(inputSchema ? { inputSchema } : {}),
    risk: requirement.risk === 'high' || description?.risk === 'high' ? 'high' : 'low',
    requireReason: requirement.requireReason,
  };
}
