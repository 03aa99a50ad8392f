import type { LanguageModelV3ToolResultOutput } from '@ai-sdk/provider';
import { argsDiff } from '../approvals/args-diff.js';
import type { PendingAction } from '../db/rows.js';

/**
 * What the model is told when an approver changed its arguments before approving: its own call
 * stays in the history as it made it, and this note on the result says what ran instead.
 */
export function editNote(row: Pick<PendingAction, 'edit' | 'args'>, proposedArgs: unknown): string | undefined {
  if (!row.edit) return undefined;
  const changes = argsDiff(proposedArgs, row.args)
    .map((c) => `${c.key} ${show(c.before)} → ${show(c.after)}`)
    .join(', ');
  return `An approver (${row.edit.editor}) changed the arguments before approving: ${changes || 'no visible change'}. The tool ran with the changed arguments.`;
}

function show(value: unknown): string {
  return value === undefined ? '(none)' : JSON.stringify(value);
}

const RESULT_SEPARATOR = '\n\nResult: ';

/**
 * A text result withNote made of a JSON one, taken apart again: the note and the JSON value
 * (for a model that reads results by their structure, such as the demo's). Undefined for any
 * other text.
 */
export function splitEditNote(text: string): { note: string; value: unknown } | undefined {
  if (!text.startsWith('An approver (')) return undefined;
  const at = text.indexOf(RESULT_SEPARATOR);
  if (at < 0) return undefined;
  try {
    return { note: text.slice(0, at), value: JSON.parse(text.slice(at + RESULT_SEPARATOR.length)) };
  } catch {
    return undefined;
  }
}

/** The tool result with the note in front, in the result's own kind where it has text. */
export function withNote(output: LanguageModelV3ToolResultOutput, note: string): LanguageModelV3ToolResultOutput {
  switch (output.type) {
    case 'text':
      return { type: 'text', value: `${note}\n\n${output.value}` };
    case 'error-text':
      return { type: 'error-text', value: `${note}\n\n${output.value}` };
    case 'json':
      return { type: 'text', value: `${note}${RESULT_SEPARATOR}${JSON.stringify(output.value)}` };
    case 'error-json':
      return { type: 'error-text', value: `${note}\n\nError: ${JSON.stringify(output.value)}` };
    case 'content':
      return { type: 'content', value: [{ type: 'text', text: note }, ...output.value] };
    default:
      return output;
  }
}
