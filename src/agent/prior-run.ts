import type { LanguageModelV3Message, LanguageModelV3ToolResultOutput } from '@ai-sdk/provider';
import type { StepResult, ToolResultEntry } from './api-types.js';
import type { RunState, Snapshot } from './run-model.js';
import type { SnapshotRow } from '../db/rows.js';
import { addUsage, toolCallEntry, toolResultEntry, type PriorRun } from './stream.js';

/**
 * What a restored run did before its pause, from its snapshot's messages: the text of its
 * answer so far, its finished steps, the step it paused in (with the results known then) and its
 * tokens. A continuation's stream starts from this, so it reports the whole run as Mastra's does.
 * Denied calls have no result, as in Mastra.
 */
export function priorOf(run: Pick<RunState, 'runId' | 'messages' | 'results' | 'outputFrom' | 'usage'>): PriorRun {
  const messages = run.messages;
  const steps: StepResult[] = [];
  let paused: StepResult | undefined;
  let text = '';
  for (let i = run.outputFrom ?? firstAssistant(messages); i < messages.length; i++) {
    const m = messages[i]!;
    if (m.role !== 'assistant') continue;
    const step: StepResult = { text: '', toolCalls: [], toolResults: [], finishReason: 'tool-calls', usage: addUsage(undefined, undefined) };
    for (const p of m.content) {
      if (p.type === 'text') step.text += p.text;
      else if (p.type === 'tool-call') step.toolCalls.push(toolCallEntry(run.runId, { toolCallId: p.toolCallId, toolName: p.toolName, args: p.input }));
    }
    text += step.text;
    const next = messages[i + 1];
    if (next?.role === 'tool') {
      for (const p of next.content) {
        if (p.type === 'tool-result') pushDefined(step.toolResults, resultEntry(run.runId, p.toolCallId, p.toolName, argsOf(step, p.toolCallId), p.output));
      }
      steps.push(step);
    } else if (step.toolCalls.length) {
      for (const c of step.toolCalls) {
        const output = run.results[c.toolCallId];
        if (output) pushDefined(step.toolResults, resultEntry(run.runId, c.toolCallId, c.toolName, c.args, output));
      }
      paused = step;
    } else {
      step.finishReason = 'stop';
      steps.push(step);
    }
  }
  const prior: PriorRun = { text, steps, usage: addUsage(run.usage, undefined) };
  if (paused) prior.paused = paused;
  return prior;
}

/** The arguments of the step's call `toolCallId` (a step has a handful of calls at most). */
function argsOf(step: StepResult, toolCallId: string): unknown {
  for (const c of step.toolCalls) if (c.toolCallId === toolCallId) return c.args;
  return undefined;
}

/** priorOf a run from its stored snapshot alone (no lease, no thread history): for a stream while the run still waits. */
export function priorOfSnapshot(row: SnapshotRow): PriorRun {
  const snapshot = row.snapshot as Snapshot;
  return priorOf({
    runId: row.run_id,
    messages: snapshot.messages,
    results: snapshot.results,
    ...(snapshot.outputFrom !== undefined ? { outputFrom: snapshot.outputFrom } : {}),
    ...(snapshot.usage ? { usage: snapshot.usage } : {}),
  });
}

function firstAssistant(messages: LanguageModelV3Message[]): number {
  const i = messages.findIndex((m) => m.role === 'assistant');
  return i < 0 ? messages.length : i;
}

function pushDefined<T>(list: T[], item: T | undefined): void {
  if (item !== undefined) list.push(item);
}

function resultEntry(runId: string, toolCallId: string, toolName: string, args: unknown, output: LanguageModelV3ToolResultOutput): ToolResultEntry | undefined {
  switch (output.type) {
    case 'execution-denied':
      return undefined;
    case 'json':
    case 'text':
    case 'content':
      return toolResultEntry(runId, { toolCallId, toolName, args, result: output.value, isError: false });
    case 'error-text':
    case 'error-json':
      return toolResultEntry(runId, { toolCallId, toolName, args, result: output.value, isError: true });
    default:
      return undefined;
  }
}
