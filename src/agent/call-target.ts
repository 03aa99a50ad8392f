import type { AgentInternals } from './agent-internals.js';
import { delegationInput } from './delegation-input.js';
import type { Tool } from './tool.js';

/** What a tool call reaches: one of the agent's tools, or a sub-agent it delegates to. */
export type CallTarget = { kind: 'tool'; tool: Tool } | { kind: 'agent'; agent: AgentInternals };

/** The target of `toolName` (the name the model called: a key of `tools`, or `agent-<key>`). */
export function callTarget(agent: AgentInternals, toolName: string): CallTarget | undefined {
  const subAgent = Object.hasOwn(agent.subAgents, toolName) ? agent.subAgents[toolName] : undefined;
  if (subAgent) return { kind: 'agent', agent: subAgent };
  const tool = Object.hasOwn(agent.tools, toolName) ? agent.tools[toolName] : undefined;
  return tool ? { kind: 'tool', tool } : undefined;
}

export type ParsedInput = { ok: true; args: unknown } | { ok: false; message: string };

/**
 * Validates a call's input against its target's schema: a tool's inputSchema,
 * or `{ prompt }` for a delegation. `raw` is the model's JSON text, or a value
 * already parsed (as a snapshot holds it). A bad input is the model's to fix,
 * so it goes back to it as a tool error naming the tool as the model called it.
 */
export function parseCallInput(target: CallTarget, toolName: string, raw: unknown): ParsedInput {
  let json: unknown = raw;
  if (typeof raw === 'string') {
    try {
      json = raw.trim() === '' ? {} : JSON.parse(raw);
    } catch {
      return { ok: false, message: `Invalid input for tool ${toolName}: not valid JSON` };
    }
  }
  if (target.kind === 'agent') {
    const checked = delegationInput.safeParse(json);
    return checked.success ? { ok: true, args: checked.data } : { ok: false, message: `Invalid input for ${toolName}: expected { prompt: string }` };
  }
  const checked = target.tool.inputSchema.safeParse(json);
  if (!checked.success) {
    const issues = checked.error.issues.map((i) => `${i.path.join('.') || '(input)'}: ${i.message}`).join('; ');
    return { ok: false, message: `Invalid input for tool ${toolName}: ${issues}` };
  }
  return { ok: true, args: checked.data };
}
