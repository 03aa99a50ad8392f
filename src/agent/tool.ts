import type { z } from 'zod';
import type { JSONSchema7 } from '@ai-sdk/provider';
import type { McpToolIdentity } from '../approvals/mcp-tool-name.js';

/** What a tool sees while it runs; `agent` is absent when it is called outside a run. */
export interface ToolExecutionContext {
  agent?: {
    /** Pauses the run after this tool returns; never throws, so code after it still runs. */
    suspend: (payload: unknown) => Promise<void>;
    /** Present when the run was resumed with data for this call. */
    resumeData?: unknown;
    /** Who supplied the resume data, when known (a Slack user id). */
    resumedBy?: string;
    /** With resumeData: what this call passed to `suspend()` before it was answered. */
    suspendPayload?: unknown;
    toolCallId: string;
    runId: string;
    threadId?: string;
    resourceId?: string;
  };
  requestContext: Map<string, unknown>;
  /** The run's abortSignal, when its caller gave one: a long tool may stop its own work when it fires. */
  abortSignal?: AbortSignal;
}

/**
 * How a call reads to the person deciding it: a title and label/value pairs in plain text
 * (front ends escape them), and `risk: 'high'` to have it confirmed with extra care; a high-risk
 * call is never remembered (rememberFor).
 */
export interface CallDescription {
  title: string;
  fields: Array<{ label: string; value: string }>;
  risk?: 'low' | 'high';
}

/** What a tool's `requireApproval` function is given besides the call's input (Mastra's shape). */
export interface ToolApprovalContext<In = unknown> {
  args: In;
  /** The request's requestContext as a plain object. */
  requestContext: Record<string, unknown>;
  workspace?: unknown;
}

export interface ToolDefinition<In = any, Out = any> {
  id: string;
  description: string;
  inputSchema: z.ZodType<In>;
  /**
   * The JSON Schema the model is given, when the tool has one of its own (an MCP server's
   * tool): passed through as it is instead of being derived from `inputSchema`.
   */
  inputJsonSchema?: JSONSchema7;
  /** Set on tools of MCP servers: the policy matches them by server and tool name. */
  mcp?: McpToolIdentity;
  outputSchema?: z.ZodType<Out>;
  suspendSchema?: z.ZodType;
  /** A schema, or a function of the call's input when the answer depends on it (askUser options). */
  resumeSchema?: z.ZodType | ((input: In) => z.ZodType);
  /**
   * `true` asks for approval of every call; a function is asked for each call with its input
   * (Mastra's form; anything but `false`, or a throw, asks) and then decides alone, over the request's
   * and agents' `requireToolApproval`. The policy can still add approval either way.
   */
  requireApproval?: boolean | ((input: In, context: ToolApprovalContext<In>) => boolean | Promise<boolean>);
  /**
   * The call in words for its approval card, e.g. "Refund $12.50 on order 1042". Without it (or
   * when it throws or returns something malformed) the card describes the arguments from the
   * input schema.
   */
  describe?: (args: In) => CallDescription;
  execute: (input: In, context: ToolExecutionContext) => Promise<Out> | Out;
}

export type Tool<In = any, Out = any> = Readonly<ToolDefinition<In, Out>> & { readonly kind: 'tool' };

export function createTool<In, Out>(definition: ToolDefinition<In, Out>): Tool<In, Out> {
  // Any id, as in Mastra ('Find user tool'): the model calls a tool by its key in an agent's
  // `tools`, and that is what must suit providers (the Agent checks it).
  if (typeof definition.id !== 'string' || definition.id.trim() === '') {
    throw new TypeError('A tool needs an id (a non-empty string)');
  }
  if (typeof definition.execute !== 'function') {
    throw new TypeError(`Tool "${definition.id}" needs an execute function`);
  }
  if (definition.requireApproval !== undefined && typeof definition.requireApproval !== 'boolean' && typeof definition.requireApproval !== 'function') {
    throw new TypeError(`Tool "${definition.id}": requireApproval must be a boolean or a function of the call's input`);
  }
  if (definition.describe !== undefined && typeof definition.describe !== 'function') {
    throw new TypeError(`Tool "${definition.id}": describe must be a function of the call's arguments`);
  }
  return Object.freeze({ ...definition, kind: 'tool' as const });
}

export function resumeSchemaFor(tool: Tool, input: unknown): z.ZodType | undefined {
  const schema = tool.resumeSchema;
  return typeof schema === 'function' ? schema(input) : schema;
}
