import type { CallVerdict } from '../approvals/call-verdict.js';
import type { Evaluation } from '../approvals/evaluate-call.js';
import type { AppliedLayer } from '../approvals/requirement-for.js';
import type { ApprovalSettings, Policy } from '../approvals/policy-types.js';
import type { Expectation, PolicyCase } from './policy-cases.js';

/** Every way the verdict differs from what the case expects; empty when it matches. */
export function mismatches(expect: Expectation, verdict: CallVerdict): string[] {
  if (expect.outcome !== verdict.outcome) return [`expected it to be ${expect.outcome}, it ${verdict.outcome === 'runs' ? 'runs' : verdict.outcome === 'asks' ? 'asks' : 'is denied'}`];
  const out: string[] = [];
  if (expect.outcome === 'denied' && verdict.outcome === 'denied' && expect.reason !== undefined && expect.reason !== verdict.denial.reason) {
    out.push(`reason ${JSON.stringify(verdict.denial.reason)}, expected ${JSON.stringify(expect.reason)}`);
  }
  if (expect.outcome === 'asks') {
    const r = verdict.requirement;
    if (expect.approvers !== undefined && [...expect.approvers].sort().join(',') !== [...r.approvers].sort().join(',')) {
      out.push(`approvers ${list(r.approvers)}, expected ${list(expect.approvers)}`);
    }
    if (expect.quorum !== undefined && expect.quorum !== r.quorum) out.push(`quorum ${r.quorum}, expected ${expect.quorum}`);
    if (expect.risk !== undefined && expect.risk !== r.risk) out.push(`risk ${r.risk}, expected ${expect.risk}`);
    if (expect.allowSelfApproval !== undefined && expect.allowSelfApproval !== r.allowSelfApproval) out.push(`allowSelfApproval ${r.allowSelfApproval}, expected ${expect.allowSelfApproval}`);
    if (expect.requireReason !== undefined && expect.requireReason !== r.requireReason) out.push(`requireReason ${r.requireReason}, expected ${expect.requireReason}`);
  }
  return out;
}

const list = (ids: readonly string[]) => (ids.length === 0 ? '[] (anyone but the bot)' : `[${ids.join(', ')}]`);

/** A verdict in a few words, as the table's "got" column says it. */
function verdictText(verdict: CallVerdict): string {
  if (verdict.outcome === 'runs') return 'runs';
  if (verdict.outcome === 'denied') return `denied: ${JSON.stringify(verdict.denial.reason)} (${verdict.denial.source})`;
  const r = verdict.requirement;
  return `asks ${r.quorum} of ${list(r.approvers)}${r.risk === 'high' ? ', risk high' : ''}${r.allowSelfApproval ? '' : ', not the requester'}${r.freezes ? `, freeze ${r.freezes.map((f) => f.name).join(', ')}` : ''}`;
}

function expectationText(expect: Expectation): string {
  if (expect.outcome === 'runs') return 'runs';
  if (expect.outcome === 'denied') return expect.reason === undefined ? 'denied' : `denied: ${JSON.stringify(expect.reason)}`;
  const parts = [
    expect.quorum !== undefined ? `${expect.quorum}` : undefined,
    expect.approvers !== undefined ? `of ${list(expect.approvers)}` : undefined,
    expect.risk !== undefined ? `risk ${expect.risk}` : undefined,
    expect.allowSelfApproval !== undefined ? `self-approval ${expect.allowSelfApproval ? 'allowed' : 'not allowed'}` : undefined,
    expect.requireReason !== undefined ? `reason ${expect.requireReason ? 'required' : 'not required'}` : undefined,
  ].filter(Boolean);
  return parts.length ? `asks ${parts.join(', ')}` : 'asks';
}

export interface CaseResult {
  case: PolicyCase;
  evaluation: Evaluation;
  problems: string[];
}

/** The results as a plain-text table (one row per case) and a closing count line. */
export function resultTable(results: readonly CaseResult[]): string {
  const rows = results.map((r, i) => [
    r.problems.length === 0 ? 'ok' : 'FAIL',
    `${i + 1}`,
    r.case.name,
    expectationText(r.case.expect),
    verdictText(r.evaluation.verdict),
  ]);
  const header = ['', '#', 'case', 'expected', 'got'];
  const widths = header.map((h, c) => Math.min(60, Math.max(h.length, ...rows.map((row) => row[c]!.length))));
  const line = (cells: string[]) => cells.map((cell, c) => (c === cells.length - 1 ? cell : cell.padEnd(widths[c]!))).join('  ').trimEnd();
  const out = [line(header), line(widths.map((w) => '-'.repeat(w)))];
  for (const [i, row] of rows.entries()) {
    out.push(line(row));
    for (const problem of results[i]!.problems) out.push(`${' '.repeat(widths[0]! + widths[1]! + 4)}- ${problem}`);
  }
  const failed = results.filter((r) => r.problems.length > 0).length;
  out.push('', `${results.length - failed} passed, ${failed} failed`);
  return out.join('\n');
}

function settingsText(s: Readonly<Partial<ApprovalSettings>>): string {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(s)) {
    if (value === undefined) continue;
    const name = key.endsWith('Ms') ? key.slice(0, -2) : key;
    const shown = key.endsWith('Ms') && typeof value === 'number' ? duration(value) : JSON.stringify(value);
    parts.push(`${name}: ${shown}`);
  }
  return parts.join(', ');
}

function duration(ms: number): string {
  for (const [unit, size] of [['d', 86_400_000], ['h', 3_600_000], ['m', 60_000], ['s', 1000]] as const) {
    if (ms % size === 0) return `${ms / size}${unit}`;
  }
  return `${ms}ms`;
}

function layerText(layer: AppliedLayer, totals: Evaluation['limitTotals']): { applied: boolean; text: string } {
  switch (layer.kind) {
    case 'entry': {
      // An entry's rules and limits are listed one by one below it.
      const { rules: _rules, limits: _limits, ...settings } = layer.settings as ApprovalSettings & { rules?: unknown; limits?: unknown };
      return { applied: true, text: `${layer.source}: ${settingsText(settings)}` };
    }
    case 'rule': {
      const { arg, op, value } = layer.rule.when;
      return { applied: layer.matched, text: `${layer.source}: when ${arg} ${op} ${JSON.stringify(value)} → ${settingsText(layer.rule.then)}${layer.matched ? '' : ' (did not match)'}` };
    }
    case 'limit': {
      const l = layer.limit;
      const total = totals.find((t) => t.limit === Number(/\[(\d+)\]$/.exec(layer.source)?.[1]))?.total;
      const what = `${l.sum !== undefined ? `sum of ${l.sum}` : 'count of calls'}${l.by ? ' per requester' : ''} over ${duration(l.overMs)} above ${l.above}`;
      return { applied: layer.hit !== undefined, text: `${layer.source}: ${what}: total ${total ?? '?'} with this call → ${layer.hit ? settingsText(l.then) : 'not over'}` };
    }
    case 'freeze': {
      const f = layer.freeze;
      const window = f.every !== undefined ? `every "${f.every}" for ${duration(f.forMs ?? 0)} (${f.timeZone ?? 'UTC'})` : `${f.from} → ${f.to}`;
      const state = layer.inForce ? `in force${layer.inForce.until ? ` until ${layer.inForce.until}` : ' with no end in sight'}` : 'not in force';
      return { applied: layer.inForce !== undefined, text: `${layer.source} "${f.name}": ${window}, ${state} → ${settingsText(f.then)}` };
    }
  }
}

/** `policy explain`: the call, every layer it was evaluated against (applied or not), the verdict and who may decide. */
export function explainText(policy: Policy, source: string, call: PolicyCase['call'], evaluation: Evaluation): string {
  const out = [`Policy:   ${policy.version} (${source})`, `Call:     ${call.toolName} ${JSON.stringify(call.args)}`];
  out.push(`Asked by: ${call.requester ? call.requester : `no person (an unattended run: unattended: ${policy.unattended ?? 'require-approval'})`}`);
  out.push(`At:       ${call.at.toISOString()}`, '', 'Evaluated, in order (+ applied, - did not):');
  for (const layer of evaluation.trace) {
    const { applied, text } = layerText(layer, evaluation.limitTotals);
    out.push(`  ${applied ? '+' : '-'} ${text}`);
  }
  const v = evaluation.verdict;
  out.push('');
  if (v.outcome === 'denied') {
    out.push(`Verdict:  denied by ${v.denial.source}: ${JSON.stringify(v.denial.reason)}`, 'Nobody is asked and nobody may decide: the call never runs.');
    return out.join('\n');
  }
  if (v.outcome === 'runs') {
    out.push('Verdict:  runs without asking anyone.');
    if (!call.requester) out.push('(Were its code to require approval, this unattended call would ' + (policy.unattended === 'deny' ? 'be denied.)' : 'wait for a person.)'));
    return out.join('\n');
  }
  const r = v.requirement;
  out.push(`Verdict:  asks (policy version ${r.policyVersion})`);
  out.push(`Who may decide: ${r.quorum} approval${r.quorum === 1 ? '' : 's'} from ${r.approvers.length ? r.approvers.join(', ') : 'anyone in the workspace except the bot'}${r.approvers.some((id) => id.startsWith('S')) ? ' (S… are user groups: their members)' : ''}`);
  if (call.requester) out.push(`  The requester ${call.requester} ${r.allowSelfApproval ? 'may approve it too' : 'may not approve it (only withdraw it)'}.`);
  if (r.reach.escalateAfterMs !== undefined && r.reach.escalateTo.length) out.push(`  After ${duration(r.reach.escalateAfterMs)} also: ${r.reach.escalateTo.join(', ')}.`);
  out.push(`  Risk ${r.risk}${r.requireReason ? ', a reason is required to approve' : ''}; expires after ${duration(r.expiresInMs)}${r.rememberFor !== undefined && call.requester ? `; approvers may remember it for ${duration(r.rememberFor)}` : ''}.`);
  if (r.freezes) out.push(`  Change freeze in force: ${r.freezes.map((f) => `"${f.name}"${f.until ? ` until ${f.until}` : ''}`).join(', ')}.`);
  return out.join('\n');
}
