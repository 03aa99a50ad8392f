import type { z } from 'zod';
import type { JSONSchema7 } from '@ai-sdk/provider';
import type { McpToolIdentity } from '../approvals/mcp-tool-name.js';
import type { ToolDefinitionSnapshot } from '../approvals/tool-definition.js';

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

/** What a tool's `preview` is given besides the call's arguments: where the call is made. */
export interface ToolPreviewContext {
  toolCallId: string;
  runId: string;
  threadId?: string;
  resourceId?: string;
  /** Who the run acts for, when a person started it. */
  requester?: string;
  requestContext: Map<string, unknown>;
  /** The run's abortSignal, when its caller gave one. */
  abortSignal?: AbortSignal;
}

/**
 * What a call will act on, worked out by the tool's `preview` for the people approving it: plain
 * text (front ends escape it), and a digest of that state. An approval is bound to the digest:
 * right before the call runs the preview runs again, and the call runs only if its digest is the
 * one approved; otherwise it is asked again with the new preview.
 */
export interface ToolPreview {
  /** What the call acts on as it is now, label/value pairs ("Record", "abc-123 · Jane Roe · active"). At most 20. */
  fields?: Array<{ label: string; value: string }>;
  /** What the call changes, item by item: `before` (absent: it does not exist yet) and `after` (absent: it will be gone). At most 20. */
  diff?: Array<{ label: string; before?: string; after?: string }>;
  /**
   * A digest of the state the call acts on (a version, an updated_at, a hash of the row): equal
   * digests must mean "the same state". Not empty, at most 256 characters. A value that changes
   * every time (a clock) makes every approval be asked again.
   */
  stateDigest: string;
}

/**
 * The tool's definition as its source declared it (an MCP server's tool), which an approval of a
 * call is pinned to (see approvals/tool-definition.ts): `current()` asks the source again (an MCP
 * server re-listed) and gives its definition now, undefined when it no longer has the tool.
 */
export interface DefinitionPin {
  digest: string;
  definition: ToolDefinitionSnapshot;
  current(): Promise<{ digest: string; definition: ToolDefinitionSnapshot } | undefined>;
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
  /**
   * What a call that waits for approval will act on, for its card, and the digest of that state
   * its approval is bound to (see ToolPreview). Runs when the call is asked for and again right
   * before it runs (only for calls that wait for approval); nothing else is stored or held for it.
   */
  preview?: (args: In, context: ToolPreviewContext) => ToolPreview | Promise<ToolPreview>;
  /**
   * When `preview` throws or returns something malformed (fail closed either way):
   * - `'refuse'` (default): no request, no card; the call does not run and the model is told why.
   *   Right before an approved call runs, likewise: it does not run.
   * - `'ask'`: the request is asked with a card that says the preview failed and why. Approving it
   *   approves the call with its state unknown: right before it runs, a preview that fails again
   *   lets it run; one that works now asks again, with the preview. A call approved with a
   *   working preview whose preview fails before it runs is asked again, saying so.
   */
  onPreviewError?: 'refuse' | 'ask';
  /** Set on tools of MCP servers: what an approval of a call is pinned to (see DefinitionPin). */
  definitionPin?: DefinitionPin;
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
  if (definition.preview !== undefined && typeof definition.preview !== 'function') {
    throw new TypeError(`Tool "${definition.id}": preview must be a function of the call's arguments and context`);
  }
  if (definition.onPreviewError !== undefined && definition.onPreviewError !== 'refuse' && definition.onPreviewError !== 'ask') {
    throw new TypeError(`Tool "${definition.id}": onPreviewError must be 'refuse' or 'ask'`);
  }
  return Object.freeze({ ...definition, kind: 'tool' as const });
}

export function resumeSchemaFor(tool: Tool, input: unknown): z.ZodType | undefined {
  const schema = tool.resumeSchema;
  return typeof schema === 'function' ? schema(input) : schema;
}
