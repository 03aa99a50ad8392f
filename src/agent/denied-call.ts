import type { LanguageModelV3ToolResultOutput } from '@ai-sdk/provider';
import type { PendingAction } from '../db/rows.js';
import type { CallOutcome } from './types.js';
import { editChanges } from './edited-call.js';

/**
 * Why a call did not run (or, for a question or a delegated task, did not finish). The model is
 * told in one consistent sentence that starts with what happened and who did it, so a reason such
 * as "done" can never read as the tool's output; a decider's reason is quoted as their words.
 */
export type Denial =
  | { kind: 'declined'; by: string; reason?: string; edit?: { editor: string; changes: string } }
  | { kind: 'expired' }
  | { kind: 'cancelled'; by?: string; reason?: string };

/** Who acted, when it was a person (code acting as `api`, or no one, is not named). */
function person(by: string | null | undefined): string | undefined {
  return by && by !== 'api' ? by : undefined;
}

/** What the model is told about a call that did not go on; `finish` for one that had started (a question, a delegation). */
export function denialMessage(toolName: string, denial: Denial, verb: 'run' | 'finish' = 'run'): string {
  switch (denial.kind) {
    case 'declined': {
      const edit = denial.edit ? ` An approver (${denial.edit.editor}) had changed its arguments before it was declined: ${denial.edit.changes}.` : '';
      const why = denial.reason ? ` Their reason, in their own words: ${JSON.stringify(denial.reason)}.` : ' No reason was given.';
      return `Tool call declined by ${denial.by}; ${toolName} did not ${verb}.${edit}${why}`;
    }
    case 'expired':
      return `Tool call expired; ${toolName} did not ${verb}: nobody approved it before its approval request expired.`;
    case 'cancelled': {
      const by = person(denial.by);
      return `Tool call cancelled${by ? ` by ${by}` : ''}; ${toolName} did not ${verb}${denial.reason ? `: ${denial.reason}` : '.'}`;
    }
    default:
      throw new Error(`unknown denial ${(denial as { kind: string }).kind}`);
  }
}

/** The denial a closed request stands for (its status, decider, reason and any edit). */
export function denialOf(row: Pick<PendingAction, 'status' | 'decided_by' | 'reason' | 'edit' | 'args'>): Denial {
  switch (row.status) {
    case 'declined': {
      const edit = row.edit ? { editor: row.edit.editor, changes: editChanges(row.edit.proposedArgs, row.args) } : undefined;
      return { kind: 'declined', by: row.decided_by ?? 'api', ...(row.reason ? { reason: row.reason } : {}), ...(edit ? { edit } : {}) };
    }
    case 'expired':
      return { kind: 'expired' };
    default:
      return { kind: 'cancelled', ...(row.decided_by ? { by: row.decided_by } : {}), ...(row.reason ? { reason: row.reason } : {}) };
  }
}

/** The result the model receives for a call that did not go on: a denied tool result carrying the message. */
export function deniedOutput(message: string): LanguageModelV3ToolResultOutput {
  return { type: 'execution-denied', reason: message };
}

export function denied(message: string): CallOutcome {
  return { kind: 'result', output: deniedOutput(message) };
}

const pattern = /^Tool call (declined|expired|cancelled)(?: by (\S+))?; (\S+) did not (?:run|finish)[.:]/;

/**
 * A denial message read back (for a model that reads results by their structure, such as the
 * demo's); undefined for any other text.
 */
export function readDenial(text: string): (Denial & { toolName: string }) | undefined {
  const m = pattern.exec(text);
  if (!m) return undefined;
  const [, kind, by, toolName] = m as unknown as [string, Denial['kind'], string | undefined, string];
  if (kind === 'expired') return { kind, toolName };
  if (kind === 'cancelled') {
    const reason = text.slice(m[0].length).trim();
    return { kind, toolName, ...(by ? { by } : {}), ...(m[0].endsWith(':') && reason ? { reason } : {}) };
  }
  const quoted = /Their reason, in their own words: (".*")\.$/s.exec(text);
  let reason: string | undefined;
  try {
    reason = quoted ? (JSON.parse(quoted[1]!) as string) : undefined;
  } catch {
    reason = undefined;
  }
  const edit = /An approver \((\S+)\) had changed its arguments before it was declined: (.*?)\.(?: Their reason| No reason)/s.exec(text);
  return {
    kind,
    toolName,
    by: by ?? 'api',
    ...(reason !== undefined ? { reason } : {}),
    ...(edit ? { edit: { editor: edit[1]!, changes: edit[2]! } } : {}),
  };
}
