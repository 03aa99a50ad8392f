import { z } from 'zod';
import type { JSONSchema7 } from '@ai-sdk/provider';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { ErrorCode, McpError, type CallToolResult, type ElicitRequestParams, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { createTool, type DefinitionPin, type Tool, type ToolExecutionContext } from '../agent/tool.js';
import { STATED_REASON_FIELD } from '../agent/stated-reason.js';
import { definitionDigest, definitionSnapshot, type ToolDefinitionSnapshot } from '../approvals/tool-definition.js';
import { mcpToolName } from '../approvals/mcp-tool-name.js';
import type { Logger } from '../logger.js';
import type { ElicitationRequest, McpConnection, McpToolDefinition } from './mcp-connection.js';
import { elicitationForm } from './elicitation-form.js';
import { elicitationAnswerSchema, isElicitationPayload, type ElicitationAnswer, type McpElicitationPayload } from './elicitation-payload.js';

const validators = new AjvJsonSchemaValidator();

/** A call to the server still running, and the questions it asks the user on the way. */
interface LiveCall {
  result: Promise<CallToolResult>;
  nextEvent(): Promise<{ kind: 'result'; result: CallToolResult } | { kind: 'elicitation'; request: ElicitationRequest }>;
}

/**
 * Calls waiting for a user's answer, by run and call: the server waits inside the call, so
 * only this process can pass the answer on. A restart loses them; the answer then reports that.
 */
export type WaitingCalls = Map<string, { call: LiveCall; respond: (result: ElicitResult) => void }>;

/** A call that stopped waiting for its answer (timed out, failed, or ended without it): its question can no longer be answered. */
export interface AbandonedQuestion {
  runId: string;
  toolCallId: string;
  threadId?: string;
  resourceId?: string;
  reason: string;
}

/**
 * The tools of one MCP server as agent tools named `<server>__<tool>`. Each passes the server's
 * input JSON Schema to the model as it is and checks arguments against it (so a person approves
 * arguments the server accepts), carries its identity and `readOnlyHint` for the policy, and
 * turns the server's questions (elicitation) into suspensions of the run.
 */
export function mcpTools(
  connection: McpConnection,
  definitions: McpToolDefinition[],
  waiting: WaitingCalls,
  logger: Logger,
  onAbandoned: (question: AbandonedQuestion) => void = () => undefined,
): Record<string, Tool> {
  const server = connection.config.name;
  const tools: Record<string, Tool> = {};
  for (const definition of definitions) {
    const name = mcpToolName(server, definition.name);
    if (tools[name]) {
      logger.warn({ mcpServer: server, tool: definition.name, as: name }, 'MCP tool left out: its name collides with another tool of the server');
      continue;
    }
    const validate = validators.getValidator<Record<string, unknown>>(definition.inputSchema as never);
    const readOnlyHint = definition.annotations?.readOnlyHint;
    if (Object.hasOwn(definition.inputSchema.properties ?? {}, STATED_REASON_FIELD)) {
      logger.warn({ mcpServer: server, tool: definition.name, field: STATED_REASON_FIELD }, 'MCP tool has an argument named like the reserved field for the model\'s stated reason: it stays the tool\'s argument, and no stated reason is offered for this tool');
    }
    tools[name] = createTool({
      id: name,
      description: definition.description ?? definition.title ?? `Tool ${definition.name} of the MCP server ${server}`,
      inputSchema: z.record(z.string(), z.unknown()).superRefine((value, ctx) => {
        const checked = validate(value);
        if (!checked.valid) ctx.addIssue({ code: 'custom', message: checked.errorMessage });
      }),
      inputJsonSchema: definition.inputSchema as JSONSchema7,
      mcp: { server, tool: definition.name, ...(typeof readOnlyHint === 'boolean' ? { readOnlyHint } : {}) },
      definitionPin: pinOf(connection, definition),
      resumeSchema: elicitationAnswerSchema,
      execute: (args: Record<string, unknown>, context) => runCall(connection, definition.name, args, context, waiting, onAbandoned),
    });
  }
  return tools;
}

/**
 * What an approval of a call of this tool is pinned to: the definition as the server declared it
 * in this listing, and the server asked again (re-listed) for it as it is now.
 */
function pinOf(connection: McpConnection, definition: McpToolDefinition): DefinitionPin {
  const pinned = pinnedDefinition(definition);
  return {
    ...pinned,
    current: async () => {
      const now = (await connection.refreshTools()).find((d) => d.name === definition.name);
      return now ? pinnedDefinition(now) : undefined;
    },
  };
}

/** A server's tool entry as the definition an approval is pinned to, with its digest. */
export function pinnedDefinition(entry: McpToolDefinition): { digest: string; definition: ToolDefinitionSnapshot } {
  const definition = definitionSnapshot(entry);
  return { digest: definitionDigest(definition), definition };
}

async function runCall(
  connection: McpConnection,
  tool: string,
  args: Record<string, unknown>,
  context: ToolExecutionContext,
  waiting: WaitingCalls,
  onAbandoned: (question: AbandonedQuestion) => void,
): Promise<unknown> {
  const agent = context.agent;
  const key = agent ? `${agent.runId}:${agent.toolCallId}` : '';
  if (agent && agent.resumeData !== undefined) {
    const answer = elicitationAnswerSchema.parse(agent.resumeData);
    const asked = isElicitationPayload(agent.suspendPayload) ? agent.suspendPayload : undefined;
    if (asked && asked.waitsInCallUntil === undefined) {
      // The server refused the call until the user had been to a URL: call it now, or report the refusal.
      if (answer.action !== 'accept') throw new Error(`The user ${answer.action === 'decline' ? 'declined' : 'cancelled'} the server's request (${asked.message})`);
    } else {
      const live = waiting.get(key);
      waiting.delete(key);
      if (!live) {
        throw new Error(
          `MCP server ${connection.config.name} is no longer waiting for this answer (the call timed out or the bot restarted meanwhile); the call did not finish here and is not repeated`,
        );
      }
      live.respond(toElicitResult(answer));
      return follow(connection, tool, live.call, context, waiting, key, onAbandoned);
    }
  }
  let live: LiveCall;
  try {
    live = startCall(connection, tool, args);
    return await follow(connection, tool, live, context, waiting, key, onAbandoned);
  } catch (error) {
    const needsUrl = urlRequired(error);
    if (!needsUrl || !agent) throw error;
    await agent.suspend({ kind: 'mcp-elicitation', server: connection.config.name, tool, mode: 'url', message: needsUrl.message, url: needsUrl.url, elicitationId: needsUrl.elicitationId } satisfies McpElicitationPayload);
    return undefined;
  }
}

/** Waits for the call's result or its next question; a question suspends the run until the user answers. */
async function follow(
  connection: McpConnection,
  tool: string,
  live: LiveCall,
  context: ToolExecutionContext,
  waiting: WaitingCalls,
  key: string,
  onAbandoned: (question: AbandonedQuestion) => void,
): Promise<unknown> {
  const event = await live.nextEvent();
  if (event.kind === 'result') return resultValue(event.result);
  const agent = context.agent;
  const payload = agent ? payloadOf(connection, tool, event.request.params) : undefined;
  if (!agent || !payload) {
    // Nobody to ask (a call outside a run) or a form Slack cannot show: the server hears "decline".
    event.request.respond({ action: 'decline' });
    return follow(connection, tool, live, context, waiting, key, onAbandoned);
  }
  const entry = { call: live, respond: event.request.respond };
  waiting.set(key, entry);
  // A call that ends while its question is open (timed out, failed, or the server gave up) can no longer take the answer.
  const abandon = (reason: string) => {
    if (waiting.get(key) !== entry) return;
    waiting.delete(key);
    onAbandoned({
      runId: agent.runId,
      toolCallId: agent.toolCallId,
      ...(agent.threadId ? { threadId: agent.threadId } : {}),
      ...(agent.resourceId ? { resourceId: agent.resourceId } : {}),
      reason,
    });
  };
  live.result.then(
    (result) => abandon(`the MCP server ${connection.config.name} stopped waiting for this answer and ended the call: ${resultText(result)}`),
    (error: unknown) => abandon(`the MCP server ${connection.config.name} stopped waiting for this answer (${error instanceof Error ? error.message : String(error)}); the call did not finish`),
  );
  await agent.suspend(payload);
  return undefined;
}

function payloadOf(connection: McpConnection, tool: string, params: ElicitRequestParams): McpElicitationPayload | undefined {
  const base = {
    kind: 'mcp-elicitation' as const,
    server: connection.config.name,
    tool,
    message: params.message,
    waitsInCallUntil: new Date(Date.now() + connection.callTimeoutMs).toISOString(),
  };
  if (params.mode === 'url') return { ...base, mode: 'url', url: params.url, elicitationId: params.elicitationId };
  const form = elicitationForm(params.requestedSchema);
  return form ? { ...base, mode: 'form', form } : undefined;
}

function startCall(connection: McpConnection, tool: string, args: Record<string, unknown>): LiveCall {
  const questions: ElicitationRequest[] = [];
  let wake: (() => void) | undefined;
  const result = connection.callTool(tool, args, {
    onElicitation: (request) => {
      questions.push(request);
      wake?.();
    },
  });
  const settled = result.then(
    () => undefined,
    () => undefined,
  );
  return {
    result,
    async nextEvent() {
      for (;;) {
        const question = questions.shift();
        if (question) return { kind: 'elicitation', request: question };
        const woken = new Promise<void>((resolve) => (wake = resolve));
        const first = await Promise.race([settled.then(() => 'settled' as const), woken.then(() => 'question' as const)]);
        if (first === 'settled' && questions.length === 0) return { kind: 'result', result: await result };
      }
    },
  };
}

function toElicitResult(answer: ElicitationAnswer): ElicitResult {
  return answer.action === 'accept' ? { action: 'accept', content: answer.content ?? {} } : { action: answer.action };
}

/** What the model gets: the structured result when there is one, else the text, else the content blocks. */
function resultValue(result: CallToolResult): unknown {
  const texts = result.content.filter((c) => c.type === 'text').map((c) => c.text);
  if (result.isError) throw new Error(texts.join('\n') || 'the MCP tool reported an error');
  if (result.structuredContent) return result.structuredContent;
  if (texts.length === result.content.length) return texts.join('\n');
  return result.content;
}

function resultText(result: CallToolResult): string {
  const text = result.content.filter((c) => c.type === 'text').map((c) => c.text).join(' ');
  return (text || (result.isError ? 'an error' : 'no text')).slice(0, 500);
}

function urlRequired(error: unknown): { message: string; url: string; elicitationId: string } | undefined {
  if (!(error instanceof McpError) || error.code !== ErrorCode.UrlElicitationRequired) return undefined;
  const first = (error.data as { elicitations?: Array<{ message?: string; url?: string; elicitationId?: string }> } | undefined)?.elicitations?.[0];
  if (!first?.url || !URL.canParse(first.url)) return undefined;
  return { message: first.message ?? error.message, url: first.url, elicitationId: first.elicitationId ?? '' };
}
