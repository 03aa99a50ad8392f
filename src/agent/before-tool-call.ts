import type { LanguageModelV3ToolResultOutput } from '@ai-sdk/provider';
import { toOutput } from './execute-tool.js';
import type { RunState } from './run-model.js';

/** What the hook decided: run these arguments, or return this result to the model without running. */
type HookOutcome =
  | { ok: true; args: unknown }
  | { ok: false; output: LanguageModelV3ToolResultOutput; value: unknown; isError: boolean; reason: string };

const knownKeys = new Set(['proceed', 'output', 'block', 'args']);

/** Runs the agent's `beforeToolCall` hook for a call about to execute. */
export async function applyHook(run: RunState, call: { toolName: string; toolCallId: string; args: unknown }): Promise<HookOutcome> {
  const hook = run.agent.hooks.beforeToolCall;
  if (!hook) return { ok: true, args: call.args };
  let verdict: unknown;
  try {
    verdict = await hook({
      toolName: call.toolName,
      toolCallId: call.toolCallId,
      runId: run.runId,
      args: call.args,
      input: call.args,
      path: run.path,
      requestContext: run.requestContext,
    });
  } catch (error) {
    run.log.warn({ err: error, toolCallId: call.toolCallId, tool: call.toolName }, 'beforeToolCall hook threw; call blocked');
    return blocked(`Tool call blocked: the beforeToolCall hook of agent ${run.agent.id} failed`, 'hook threw');
  }
  const outcome = readVerdict(verdict, call.args);
  if (outcome) return outcome;
  const message =
    `Tool call blocked: the beforeToolCall hook of agent ${run.agent.id} returned ${describe(verdict)}, which is not a verdict ` +
    '(return nothing or { proceed: true } to run the call, { args } to change it, { proceed: false, output } or { block } to stop it)';
  run.log.error({ toolCallId: call.toolCallId, tool: call.toolName }, message);
  return blocked(message, 'unrecognised hook verdict');
}

function readVerdict(verdict: unknown, args: unknown): HookOutcome | undefined {
  if (verdict === undefined) return { ok: true, args };
  if (typeof verdict !== 'object' || verdict === null || Array.isArray(verdict)) return undefined;
  const v = verdict as Record<string, unknown>;
  if (Object.keys(v).some((key) => !knownKeys.has(key))) return undefined;
  if ('block' in v) {
    if (typeof v.block !== 'string' || 'proceed' in v || 'args' in v || 'output' in v) return undefined;
    return blocked(`Tool call blocked: ${v.block}`, v.block);
  }
  if (v.proceed === false) {
    if ('args' in v) return undefined;
    const output = v.output === undefined ? 'Tool call blocked by the beforeToolCall hook' : v.output;
    try {
      return { ok: false, output: toOutput(output), value: output, isError: false, reason: 'the beforeToolCall hook returned proceed: false' };
    } catch {
      // An output the model cannot be given (not JSON) still must not let the call run.
      return undefined;
    }
  }
  if (v.proceed !== undefined && v.proceed !== true) return undefined;
  if ('output' in v) return undefined;
  return { ok: true, args: 'args' in v ? v.args : args };
}

function blocked(message: string, reason: string): HookOutcome {
  return { ok: false, output: { type: 'error-text', value: message }, value: message, isError: true, reason };
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return `an object with keys ${Object.keys(value).join(', ') || '(none)'}`;
  return `a ${typeof value}`;
}
