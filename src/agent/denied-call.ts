import type { LanguageModelV3ToolResultOutput } from '@ai-sdk/provider';
import type { PendingAction } from '../db/rows.js';
import type { CallOutcome, RunState } from './run-model.js';
import { editChanges } from './edited-call.js';
import type { PolicyDenial } from '../approvals/requirement-for.js';
import { fingerprint } from '../approvals/fingerprint.js';
import type { Emitter } from './stream.js';

/**
 * Why a call did not run (or, for a question or a delegated task, did not finish). The model is
 * told in one consistent sentence that starts with what happened and who did it, so a reason such
 * as "done" can never read as the tool's output; a decider's reason is quoted as their words.
 */
type Denial =
  | { kind: 'declined'; by: string; reason?: string; edit?: { editor: string; changes: string } }
  | { kind: 'expired' }
  | { kind: 'cancelled'; by?: string; reason?: string }
  /** The policy refuses it (a deny, a freeze's deny, `unattended: deny`): nobody was asked. */
  | { kind: 'policy'; reason: string; freeze?: { name: string; until?: string } };

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
    case 'policy': {
      const freeze = denial.freeze;
      const during = freeze ? ` during change freeze ${JSON.stringify(freeze.name)}${freeze.until ? ` (until ${freeze.until})` : ''}` : '';
      return `Tool call denied by policy${during}; ${toolName} did not ${verb}. The policy's reason: ${JSON.stringify(denial.reason)}. Nobody was asked, and asking again will not change it.`;
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
const policyPattern = /^Tool call denied by policy(?: during change freeze (".*?")(?: \(until (\S+)\))?)?; (\S+) did not (?:run|finish)\. The policy's reason: (".*")\. Nobody was asked/s;

/**
 * A denial message read back (for a model that reads results by their structure, such as the
 * demo's); undefined for any other text.
 */
export function readDenial(text: string): (Denial & { toolName: string }) | undefined {
  const byPolicy = policyPattern.exec(text);
  if (byPolicy) {
    const [, name, until, toolName, reason] = byPolicy as unknown as [string, string | undefined, string | undefined, string, string];
    try {
      const freeze = name ? { name: JSON.parse(name) as string, ...(until ? { until } : {}) } : undefined;
      return { kind: 'policy', toolName, reason: JSON.parse(reason) as string, ...(freeze ? { freeze } : {}) };
    } catch {
      return undefined;
    }
  }
  const m = pattern.exec(text);
  if (!m) return undefined;
  const [, kind, by, toolName] = m as unknown as [string, 'declined' | 'expired' | 'cancelled', string | undefined, string];
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

/**
 * A call the policy refuses (PolicyDenial): it does not run, nobody is asked, and nothing at run
 * time can change that. The model gets a denied tool result saying it was refused by policy and
 * why; the stream says so with `tool-output-denied` (status `denied`, `policy`); `denied` goes on
 * the audit trail with the run's next write (no statement of its own). `caller` labels a run
 * nobody requested (see StreamOptions.caller).
 */
export function refuseByPolicy(
  run: RunState,
  call: { toolCallId: string; toolName: string },
  args: unknown,
  denial: PolicyDenial,
  policyVersion: string,
  out: Emitter,
): CallOutcome {
  const freeze = denial.freeze ? { name: denial.freeze.name, ...(denial.freeze.until ? { until: denial.freeze.until } : {}) } : undefined;
  const message = denialMessage(call.toolName, { kind: 'policy', reason: denial.reason, ...(freeze ? { freeze } : {}) });
  run.log.info({ toolCallId: call.toolCallId, tool: call.toolName, source: denial.source }, 'call denied by policy');
  run.audit.push({
    event: 'denied',
    runId: run.runId,
    toolCallId: call.toolCallId,
    toolName: call.toolName,
    actor: run.options.requester ?? null,
    fingerprint: fingerprint(call.toolName, args),
    policyVersion,
    detail: {
      reason: denial.reason,
      source: denial.source,
      ...(freeze ? { freeze } : {}),
      ...(run.options.requester ? {} : { unattended: true, agentId: run.path[0], ...(run.options.caller ? { caller: run.options.caller } : {}) }),
    },
  });
  out.denied({
    toolCallId: call.toolCallId,
    toolName: call.toolName,
    args,
    approval: { id: call.toolCallId, approved: false, reason: denial.reason },
    status: 'denied',
    policy: { reason: denial.reason, source: denial.source, ...(freeze ? { freeze } : {}) },
    message,
    path: run.path,
    runId: run.runId,
  });
  return denied(message);
}
