import type { ApprovalSettings, CumulativeLimit, Freeze, JsonValue, Policy, PolicyRule, RuleCondition, ToolPolicy } from './policy-types.js';
import { policyKeysFor, type McpToolIdentity } from './mcp-tool-name.js';
import { unreachable } from '../unreachable.js';
import { reachOf, type Reach } from './reach.js';
import { limitHitsFromRow, overlayLimitHits, tighten, type LimitHit } from './apply-limits.js';
import { effectiveVersion, freezeCovers, freezesInForce, type FreezeInForce } from './freeze-windows.js';

export interface Requirement {
  requireApproval: boolean;
  /** Slack user ids (U…, W…) and user-group ids (S…); empty means anyone except the bot. */
  approvers: string[];
  allowSelfApproval: boolean;
  quorum: number;
  expiresInMs: number;
  /**
   * Stored with the request; a grant made under another version is not honoured. The policy's
   * version, with the freezes in force for the call appended (see effectiveVersion).
   */
  policyVersion: string;
  /** Who is told about the request, where, and when they are reminded or it escalates. */
  reach: Reach;
  /** `high`: approving is confirmed with extra care, and never remembered (default `low`). */
  risk: 'low' | 'high';
  /** Approving needs a written reason (default false). */
  requireReason: boolean;
  /** Set when an approver may remember the approval for this long (ms); see ApprovalSettings.rememberFor. */
  rememberFor?: number;
  /** The cumulative limits this call went over (stored with the request); absent when none. */
  limitHits?: LimitHit[];
  /** Present only when the policy sets it: `false` means approvers may not edit the arguments. */
  allowEdit?: boolean;
  /** Present only when the policy sets it: earlier approvals still count after an edit (quorum > 1). */
  keepApprovalsOnEdit?: boolean;
  /** Set when the policy refuses the call: it never runs and never asks (see ApprovalSettings.deny). */
  deny?: PolicyDenial;
  /** The change freezes in force for the call when it was evaluated, and until when; absent when none. */
  freezes?: FreezeInForce[];
}

/** Why the policy refuses a call: its reason, and the part of the policy that said so. */
export interface PolicyDenial {
  reason: string;
  /** `defaults`, `tools.deploy`, `tools.deploy.rules[0]`, `tools.deploy.limits[1]`, `freezes[0]` or `unattended`. */
  source: string;
  /** The freeze that denies it, when one does. */
  freeze?: FreezeInForce;
}

/** One layer of the policy a call was evaluated against, for `policy explain`: whether it applied and what it set. */
export type AppliedLayer =
  | { kind: 'entry'; source: string; settings: ApprovalSettings }
  | { kind: 'rule'; source: string; rule: PolicyRule; matched: boolean }
  | { kind: 'limit'; source: string; limit: CumulativeLimit; hit: LimitHit | undefined }
  | { kind: 'freeze'; source: string; freeze: Freeze; inForce: FreezeInForce | undefined };

/** When a call is evaluated (which freezes are in force) and, for `policy explain`, where to list every layer. */
interface EvaluationOptions {
  /** Default: now. Only a policy with freezes reads it. */
  at?: Date;
  trace?: AppliedLayer[];
}

/**
 * What approving this exact call takes: the policy defaults, overlaid by the tool's entry,
 * overlaid by every matching rule in order. For an MCP tool (`mcp` given) the entry is the
 * most specific of its model-facing name, `server.tool` and `server.*`; without one, see mcpDefaults.
 *
 * A rule only matches an argument that is present with the type its operator expects: no
 * coercion of `"150000"` to a number, and a missing argument matches nothing (not even `ne`).
 * Rules can loosen as well as tighten, so the tool's own settings should be the strict baseline
 * that applies whenever the model leaves an argument out.
 */
export function requirementFor(
  policy: Policy,
  toolName: string,
  args: unknown,
  mcp?: McpToolIdentity,
  limitHits?: readonly LimitHit[] | null,
  options: EvaluationOptions = {},
): Requirement {
  const { base, rules, limits, source } = policyEntryFor(policy, toolName, mcp);
  const trace = options.trace;
  trace?.push({ kind: 'entry', source, settings: base });
  let settings: ApprovalSettings = base;
  let deny: PolicyDenial | undefined = base.deny !== undefined ? { reason: base.deny, source } : undefined;
  for (const [i, rule] of rules.entries()) {
    const matched = matches(rule.when, args);
    trace?.push({ kind: 'rule', source: `${source}.rules[${i}]`, rule, matched });
    if (!matched) continue;
    settings = { ...settings, ...rule.then };
    if (rule.then.deny !== undefined) deny = { reason: rule.then.deny, source: `${source}.rules[${i}]` };
  }
  // Limits come last: a limit the call went over (counted by the gate, see apply-limits.ts) tightens what the rules left.
  const hits = limitHits ?? [];
  settings = overlayLimitHits(settings, limits, hits, (i, limit) => {
    if (limit.then.deny !== undefined) deny = { reason: limit.then.deny, source: `${source}.limits[${i}]` };
  });
  if (trace) for (const [i, limit] of (limits ?? []).entries()) trace.push({ kind: 'limit', source: `${source}.limits[${i}]`, limit, hit: hits.find((h) => h.limit === i) });
  // Then the freezes in force, which hold whatever the entry, its rules and limits say.
  const freezes = policy.freezes ? freezesInForce(policy, toolName, mcp, options.at ?? new Date()) : [];
  if (trace && policy.freezes) traceFreezes(trace, policy.freezes, freezes, toolName, mcp);
  for (const inForce of freezes) {
    const freeze = policy.freezes![inForce.index]!;
    settings = tighten(settings, freeze.then);
    if (freeze.then.deny !== undefined) deny = { reason: freeze.then.deny, source: `freezes[${inForce.index}]`, freeze: inForce };
  }
  return {
    requireApproval: settings.requireApproval,
    approvers: [...settings.approvers],
    allowSelfApproval: settings.allowSelfApproval,
    quorum: settings.quorum,
    expiresInMs: settings.expiresInMs,
    policyVersion: effectiveVersion(policy.version, freezes),
    reach: reachOf(settings),
    risk: settings.risk ?? 'low',
    ...(settings.rememberFor !== undefined ? { rememberFor: settings.rememberFor } : {}),
    requireReason: settings.requireReason ?? false,
    ...(hits.length > 0 ? { limitHits: [...hits] } : {}),
    ...(settings.allowEdit !== undefined ? { allowEdit: settings.allowEdit } : {}),
    ...(settings.keepApprovalsOnEdit !== undefined ? { keepApprovalsOnEdit: settings.keepApprovalsOnEdit } : {}),
    ...(deny ? { deny } : {}),
    ...(freezes.length > 0 ? { freezes } : {}),
  };
}

/** Every freeze that covers the call, in force or not, for `policy explain`. */
function traceFreezes(trace: AppliedLayer[], all: readonly Freeze[], inForce: readonly FreezeInForce[], toolName: string, mcp: McpToolIdentity | undefined): void {
  for (const [i, freeze] of all.entries()) {
    if (freezeCovers(freeze, toolName, mcp)) trace.push({ kind: 'freeze', source: `freezes[${i}]`, freeze, inForce: inForce.find((f) => f.index === i) });
  }
}

/** What the requirement of a stored request is worked out from: its call, where it was made, the limits it went over. */
export interface RequestFacts {
  tool_name: string;
  args: unknown;
  path?: readonly string[] | null;
  /** As stored (pending_actions.limit_hits): read with limitHitsFromRow, never trusted. */
  limit_hits?: unknown;
}

/**
 * What approving a request takes under `policy`, limits included: THE way every view of a
 * request works it out (its card, its confirm dialog, Edit, deciding, answering), so a limit's
 * `then` (`risk`, `allowEdit`, `approvers`, …) holds wherever the request is shown or decided.
 * `mcpIdentity` names the MCP server and tool behind the call's name at its path.
 */
export function requirementOfRequest(
  policy: Policy,
  request: RequestFacts,
  mcpIdentity?: (toolName: string, path: readonly string[] | null) => McpToolIdentity | undefined,
  at?: Date,
): Requirement {
  const mcp = mcpIdentity?.(request.tool_name, request.path ?? null);
  return requirementFor(policy, request.tool_name, request.args, mcp, limitHitsFromRow(request.limit_hits), at ? { at } : {});
}

/**
 * What a call of `toolName` is judged by, before its arguments and limits are: the settings its
 * rules start from (its entry's, else the defaults, else for an MCP tool mcpDefaults), the rules
 * and the cumulative limits. requirementFor applies them to one call; the inbox turns them into
 * a filter over every open request of the tool.
 */
export function policyEntryFor(
  policy: Policy,
  toolName: string,
  mcp?: McpToolIdentity,
): { base: ApprovalSettings; rules: readonly PolicyRule[]; limits?: readonly CumulativeLimit[]; source: string } {
  const found = toolEntryFor(policy, toolName, mcp);
  if (!found) return { base: mcp ? mcpDefaults(policy, mcp) : policy.defaults, rules: [], source: 'defaults' };
  const tool = found.entry;
  return { base: tool, rules: tool.rules, ...(tool.limits ? { limits: tool.limits } : {}), source: entryField(found.key) };
}

/** `tools.deploy`, or `tools["github.*"]` for a key a dot would make ambiguous (as PolicyError names fields). */
function entryField(key: string): string {
  return /^[A-Za-z_][\w-]*$/.test(key) ? `tools.${key}` : `tools[${JSON.stringify(key)}]`;
}

/** The policy entry a call falls under, and its key (a tool's name, or `server.tool` / `server.*`). */
export function toolEntryFor(policy: Policy, toolName: string, mcp?: McpToolIdentity): { key: string; entry: ToolPolicy } | undefined {
  const keys = mcp ? policyKeysFor(mcp) : [toolName];
  // hasOwn, because a tool called e.g. "constructor" must not pick up Object.prototype members.
  const key = keys.find((k) => Object.hasOwn(policy.tools, k));
  return key === undefined ? undefined : { key, entry: policy.tools[key]! };
}


/**
 * An MCP tool no entry names asks for approval: its server, not this bot's code, says what it
 * does. Only a `readOnlyHint: true` from a server the policy trusts (mcp.trustReadOnlyHint)
 * lets it run under `defaults`.
 */
function mcpDefaults(policy: Policy, mcp: McpToolIdentity): ApprovalSettings {
  const trust = policy.mcp?.trustReadOnlyHint ?? false;
  const trusted = trust === true || (Array.isArray(trust) && trust.includes(mcp.server));
  return mcp.readOnlyHint === true && trusted ? policy.defaults : { ...policy.defaults, requireApproval: true };
}

function matches(when: RuleCondition, args: unknown): boolean {
  const found = lookup(args, when.arg);
  if (!found.present) return false;
  const actual = found.value;
  switch (when.op) {
    case 'gt':
      return typeof actual === 'number' && actual > when.value;
    case 'gte':
      return typeof actual === 'number' && actual >= when.value;
    case 'lt':
      return typeof actual === 'number' && actual < when.value;
    case 'lte':
      return typeof actual === 'number' && actual <= when.value;
    case 'eq':
      return sameJson(actual, when.value);
    case 'ne':
      return !sameJson(actual, when.value);
    case 'in':
      return when.value.some((candidate) => sameJson(actual, candidate));
    default:
      return unreachable(when, 'rule operator');
  }
}

/** Own properties only: a path like `constructor.name` must not reach into prototypes. */
export function lookup(root: unknown, path: string): { present: true; value: unknown } | { present: false } {
  let current = root;
  for (const segment of path.split('.')) {
    if (current === null || typeof current !== 'object') return { present: false };
    if (Array.isArray(current) && !/^(0|[1-9]\d*)$/.test(segment)) return { present: false };
    if (!Object.hasOwn(current, segment)) return { present: false };
    current = (current as Record<string, unknown>)[segment];
  }
  return current === undefined ? { present: false } : { present: true, value: current };
}

/** Value equality as JSON sees it: key order is irrelevant, and 0 equals -0. */
function sameJson(a: unknown, b: JsonValue): boolean {
  if (b === null || typeof b !== 'object') return a === b;
  if (a === null || typeof a !== 'object') return false;
  if (Array.isArray(b)) {
    return Array.isArray(a) && a.length === b.length && b.every((item, i) => sameJson(a[i], item));
  }
  if (Array.isArray(a)) return false;
  const aKeys = Object.keys(a).filter((k) => (a as Record<string, unknown>)[k] !== undefined);
  const bKeys = Object.keys(b);
  return (
    aKeys.length === bKeys.length &&
    bKeys.every((k) => Object.hasOwn(a, k) && sameJson((a as Record<string, unknown>)[k], b[k] as JsonValue))
  );
}
