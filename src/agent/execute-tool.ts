import type { CallOutcome, RunState } from './run-model.js';
import { childLogger } from './child-logger.js';
import type { LanguageModelV3ToolResultOutput } from '@ai-sdk/provider';
import { errorMessage } from '../error-message.js';
import type { Tool } from './tool.js';
import { checkLease } from './run-lease.js';
import type { Emitter } from './stream.js';
import { RunAbortedError } from './errors.js';
import { inSpan, recordError } from './telemetry.js';
import { announcedAs } from './run-state.js';

type ExecutionOutcome =
  | { kind: 'result'; output: LanguageModelV3ToolResultOutput; value: unknown; isError: boolean }
  | { kind: 'suspended'; payload: unknown };

function errorOutput(message: string): ExecutionOutcome {
  return { kind: 'result', output: { type: 'error-text', value: message }, value: message, isError: true };
}

export function toOutput(value: unknown): LanguageModelV3ToolResultOutput {
  if (typeof value === 'string') return { type: 'text', value };
  if (value === undefined) return { type: 'json', value: null };
  return { type: 'json', value: JSON.parse(JSON.stringify(value)) };
}

/**
 * Runs a tool's `execute`. `suspend()` only records the request: the tool keeps
 * running to its end (so cleanup after `await suspend()` happens) and its return
 * value is dropped, because the answer will come with the resume data. An
 * aborted run runs no further tool (RunAbortedError); the tool gets the
 * signal, to stop work already under way. With telemetry on, the call is a span.
 */
export async function executeTool(
  run: RunState,
  tool: Tool,
  call: { toolCallId: string; toolName: string; args: unknown },
  resumeData?: { value: unknown; by?: string | null; payload?: unknown },
): Promise<ExecutionOutcome> {
  const abortSignal = run.live?.abortSignal;
  if (abortSignal?.aborted) throw new RunAbortedError(run.runId, abortSignal.reason);
  // Outside the tool's try: a lost lease ends the run here, it is not the tool's error.
  await checkLease(run);
  if (!run.telemetry) return execute(run, tool, call, resumeData);
  return inSpan(
    run.telemetry,
    'ai.toolCall',
    {
      'ai.toolCall.name': call.toolName,
      'ai.toolCall.id': call.toolCallId,
      'gen_ai.tool.name': call.toolName,
      'gen_ai.tool.call.id': call.toolCallId,
      'agent.id': run.agent.id,
      'agent.run_id': run.runId,
    },
    () => execute(run, tool, call, resumeData),
    (span, outcome) => {
      if (outcome.kind === 'suspended') span.setAttribute('ai.toolCall.suspended', true);
      else if (outcome.isError) recordError(span, new Error(String(outcome.value)));
    },
  );
}

async function execute(
  run: RunState,
  tool: Tool,
  call: { toolCallId: string; toolName: string; args: unknown },
  resumeData: { value: unknown; by?: string | null; payload?: unknown } | undefined,
): Promise<ExecutionOutcome> {
  let suspended: { payload: unknown } | undefined;
  // Named as the model called it (the key in `tools`), as everywhere else the call is reported.
  const name = call.toolName;
  const log = childLogger(run.log, { toolCallId: call.toolCallId, tool: name });
  const abortSignal = run.live?.abortSignal;
  try {
    const value = await tool.execute(call.args, {
      agent: {
        suspend: async (payload: unknown) => {
          if (tool.suspendSchema) {
            const checked = tool.suspendSchema.safeParse(payload);
            if (!checked.success) throw new Error(`suspend payload does not match suspendSchema: ${checked.error.message}`);
          }
          suspended = { payload: payload ?? null };
        },
        ...(resumeData ? { resumeData: resumeData.value } : {}),
        ...(resumeData?.by ? { resumedBy: resumeData.by } : {}),
        ...(resumeData && resumeData.payload !== undefined ? { suspendPayload: resumeData.payload } : {}),
        toolCallId: call.toolCallId,
        runId: run.runId,
        ...(run.threadId ? { threadId: run.threadId } : {}),
        ...(run.resourceId ? { resourceId: run.resourceId } : {}),
      },
      requestContext: run.requestContext,
      ...(abortSignal ? { abortSignal } : {}),
    });
    if (suspended) return { kind: 'suspended', payload: suspended.payload };
    if (tool.outputSchema) {
      const checked = tool.outputSchema.safeParse(value);
      if (!checked.success) {
        log.warn({ issues: checked.error.issues }, 'tool output does not match its outputSchema');
        return errorOutput(`Tool ${name} returned output that does not match its schema`);
      }
    }
    return { kind: 'result', output: toOutput(value), value, isError: false };
  } catch (error) {
    log.error({ err: error }, 'tool failed');
    return errorOutput(`Tool ${name} failed: ${errorMessage(error)}`);
  }
}

/** Turns an execution outcome into a result or a planned suspension. */
export function settle(
  run: RunState,
  call: { toolCallId: string; toolName: string },
  args: unknown,
  outcome: ExecutionOutcome,
  out: Emitter,
): CallOutcome {
  if (outcome.kind === 'result') {
    out.toolResult(call.toolCallId, call.toolName, outcome.value, outcome.isError);
    return { kind: 'result', output: outcome.output };
  }
  return {
    kind: 'pending',
    plan: {
      snapshots: [],
      actions: [
        {
          write: {
            run_id: run.runId,
            root_run_id: run.rootRunId,
            tool_call_id: call.toolCallId,
            tool_name: call.toolName,
            kind: 'suspension',
            args,
            fingerprint: null,
            suspend_payload: outcome.payload,
            path: run.path,
            requester: run.options.requester ?? null,
            policy_version: null,
            quorum: 1,
            expires_in_ms: null,
            ...(run.options.caller ? { caller: run.options.caller } : {}),
          },
          announce: {
            kind: 'suspension',
            payload: {
              ...announcedAs(run.top, { ...call, args }, 'suspension'),
              suspendPayload: outcome.payload,
              path: run.path,
              runId: run.runId,
            },
          },
        },
      ],
    },
  };
}
