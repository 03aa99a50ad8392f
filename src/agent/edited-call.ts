import type { LanguageModelV3Message, LanguageModelV3ToolResultOutput } from '@ai-sdk/provider';
import { argsDiff } from '../approvals/args-diff.js';
import type { PendingAction } from '../db/rows.js';

/**
 * What the model is told when an approver changed its arguments before approving: its call in
 * the history shows the arguments that ran (see showEditedCall), and this note on the result says
 * what changed from the ones it asked for.
 */
export function editNote(row: Pick<PendingAction, 'edit' | 'args'>, proposedArgs: unknown): string | undefined {
  if (!row.edit) return undefined;
  return `An approver (${row.edit.editor}) changed the arguments before approving: ${editChanges(proposedArgs, row.args)}. The tool ran with the changed arguments: ${JSON.stringify(row.args)}.`;
}

/** An edit's changes in words, `key before → after`, for the model. */
export function editChanges(before: unknown, after: unknown): string {
  return argsDiff(before, after).map((c) => `${c.key} ${show(c.before)} → ${show(c.after)}`).join(', ') || 'no visible change';
}

/**
 * The call as the model sees it in the history from now on: with the arguments an approver's
 * edit gave it, which are what ran (or were declined), so what the model says about the call
 * afterwards is about those and not the ones it first asked for.
 */
export function showEditedCall(messages: LanguageModelV3Message[], toolCallId: string, args: unknown): void {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role !== 'assistant') continue;
    for (const [j, part] of m.content.entries()) {
      if (part.type === 'tool-call' && part.toolCallId === toolCallId) {
        m.content[j] = { ...part, input: args };
        return;
      }
    }
  }
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
