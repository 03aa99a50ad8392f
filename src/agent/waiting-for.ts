import type { ApprovalSettings, CumulativeLimit, PolicyRule, RuleCondition } from '../approvals/policy-types.js';
import { policyEntryFor } from '../approvals/requirement-for.js';
import { effectiveVersion, freezesInForce } from '../approvals/freeze-windows.js';
import type { PendingAction } from '../db/rows.js';
import { allOf, always, anyOf, lastOf, madeByLastOf, not, type RequestFilter } from '../db/request-filter.js';
import { openApprovalCalls, waitingRequests } from '../db/waiting-requests.js';
import { mayDecide, workspaceRefusal } from './decide.js';
import type { Actor } from './api-types.js';
import type { AgentInternals, RuntimeDeps } from './run-model.js';

/** Distinct (tool, agent path) pairs of open requests the policy is evaluated for per view. */
const WAITING_CALLS_MAX = 1000;
/** The most requests one page may hold. */
const WAITING_PAGE_MAX = 500;

/** What waits for a person: one page, oldest first, and exact counts. */
export interface WaitingPage {
  /** Open requests the actor may approve and has not voted on, not past their expiry, oldest first. */
  requests: PendingAction[];
  /** All such requests. */
  total: number;
  /** How many of them come before this page. */
  before: number;
  /** The id to pass as `after` for the next page; absent on the last. */
  next?: number;
}

/**
 * The open approval requests `actor` may approve, as mayDecide decides (listed users and groups,
 * self-approval, escalation by the request's age, limits stored on the request, the requester
 * letting their own request go once the policy no longer asks), minus those they voted on,
 * oldest first, `limit` at a time after `after`.
 *
 * The policy is turned into a filter for the database (waitingFilter) for each tool that open
 * requests are for, so the count is exact and one page is read, whatever else waits. Each request
 * on the page is then asked of mayDecide itself, the rule every decision is checked with; one it
 * refuses is left out and logged (the filter and the rule disagreeing is a bug).
 */
export async function waitingFor(root: Pick<AgentInternals, 'id'>, deps: RuntimeDeps, actor: Actor, page: { after?: number; limit: number }): Promise<WaitingPage> {
  if (!Number.isInteger(page.limit) || page.limit < 1 || page.limit > WAITING_PAGE_MAX) throw new RangeError(`waitingFor: limit must be a whole number from 1 to ${WAITING_PAGE_MAX}, got ${page.limit}`);
  if (page.after !== undefined && (!Number.isSafeInteger(page.after) || page.after < 0)) throw new RangeError(`waitingFor: after must be a request id, got ${page.after}`);
  const user = typeof actor.userId === 'string' ? actor.userId.trim() : '';
  // Rules about the actor alone (who may act here at all) belong here too: the filter below states only the policy's.
  if (user === '' || user === deps.botUserId || workspaceRefusal(deps, actor)) return { requests: [], total: 0, before: 0 };
  const { calls, more } = await openApprovalCalls(deps.db, root.id, WAITING_CALLS_MAX);
  if (more) deps.logger.warn({ agentId: root.id, max: WAITING_CALLS_MAX }, 'open requests are for more tools than an inbox evaluates; requests of the others are not listed');
  const now = deps.now();
  const entries = calls.map((call) => {
    const mcp = deps.mcpIdentity?.(call.toolName, call.path);
    // The change freezes in force now hold for every open request of the tool, as mayDecide works them out.
    const inForce = deps.policy.freezes ? freezesInForce(deps.policy, call.toolName, mcp, now) : [];
    const freezes = inForce.map((f) => deps.policy.freezes![f.index]!.then);
    return { call, entry: { ...policyEntryFor(deps.policy, call.toolName, mcp), freezes }, version: effectiveVersion(deps.policy.version, inForce) };
  });
  const viewer = await viewerOf(deps, actor, user, entries.map((e) => e.entry));
  const filter = anyOf(...entries.map(({ call, entry, version }) => allOf({ op: 'call', toolName: call.toolName, path: call.path }, waitingFilter(entry, viewer, version, now))));
  if (filter.op === 'false') return { requests: [], total: 0, before: 0 };
  const found = await waitingRequests(deps.db, root.id, { filter, user, now, ...(page.after !== undefined ? { after: page.after } : {}), limit: page.limit });
  const verdicts = await Promise.all(found.rows.map((row) => mayDecide(deps, row, actor, 'approve')));
  const requests = found.rows.filter((row, i) => {
    const verdict = verdicts[i]!;
    if (!verdict.allowed && verdict.why !== 'group-lookup-failed') deps.logger.warn({ actionId: row.id, actor: user, why: verdict.why }, 'inbox filter admitted a request mayDecide refuses; left out');
    return verdict.allowed;
  });
  const last = found.rows.at(-1);
  const next = last && found.before + found.rows.length < found.total ? { next: last.id } : {};
  return { requests, total: found.total, before: found.before, ...next };
}

/** The viewer as the filter needs them: their id, and which of the policy's groups they are in. */
interface Viewer {
  userId: string;
  inGroup: (groupId: string) => boolean;
}

interface Entry {
  base: ApprovalSettings;
  rules: readonly PolicyRule[];
  limits?: readonly CumulativeLimit[];
  /** The `then` of each change freeze in force for the tool now, in the policy's order. */
  freezes?: readonly Readonly<Partial<ApprovalSettings>>[];
}

const GROUP_ID = /^S/;

/**
 * Which groups named anywhere in these entries the actor is in, asked once each: by the
 * groups the actor is known to be in when given, else the resolver. A group that cannot be read
 * admits nobody here (as it refuses a decision), logged.
 */
async function viewerOf(deps: RuntimeDeps, actor: Actor, user: string, entries: readonly Entry[]): Promise<Viewer> {
  const groups = new Set<string>();
  for (const { base, rules, limits, freezes } of entries) {
    for (const settings of [base, ...rules.map((r) => r.then), ...(limits ?? []).map((l) => l.then), ...(freezes ?? [])]) {
      for (const id of [...(settings.approvers ?? []), ...(settings.escalateTo ?? [])]) if (GROUP_ID.test(id)) groups.add(id);
    }
  }
  const member = new Set<string>();
  if (actor.groups !== undefined) {
    for (const g of actor.groups) if (groups.has(g)) member.add(g);
  } else if (deps.resolveGroupMembers) {
    const resolve = deps.resolveGroupMembers;
    await Promise.all(
      [...groups].map(async (group) => {
        try {
          if ((await resolve(group)).includes(user)) member.add(group);
        } catch (error) {
          deps.logger.warn({ err: error, group, actor: user }, 'approver group could not be read for the inbox; its requests are not listed');
        }
      }),
    );
  }
  return { userId: user, inGroup: (g) => member.has(g) };
}

/** One layer of settings a call's requirement is built from: the entry, a rule, a limit; and when it applies. */
interface Layer {
  when: RequestFilter;
  then: Readonly<Partial<ApprovalSettings>>;
}

/**
 * When a request of this entry may be approved by `viewer`, as mayDecide decides it (see
 * requirementFor, overlayLimitHits, approversAt, authorizeActor), as a filter over its row. Each
 * setting is that of the last layer that sets it and applies (the entry, then its rules in order,
 * then the limits the request went over, in order, then the change freezes in force), except that
 * a limit or a freeze only tightens: it always asks for approval and never turns self-approval back on.
 */
function waitingFilter(entry: Entry, viewer: Viewer, policyVersion: string, now: Date): RequestFilter {
  const rules: Layer[] = entry.rules.map((rule) => ({ when: argFilter(rule.when), then: rule.then }));
  const limits: Layer[] = (entry.limits ?? []).map((limit, i) => ({ when: { op: 'limit-hit', limit: i }, then: limit.then }));
  const freezes: Layer[] = (entry.freezes ?? []).map((then) => ({ when: always, then }));
  const base: Layer = { when: always, then: entry.base };
  const admits = (list: readonly string[] | undefined) => list !== undefined && (list.length === 0 || list.includes(viewer.userId) || list.some((id) => GROUP_ID.test(id) && viewer.inGroup(id)));

  /** The layers that set `key` (the entry always does), and the last of them that applies has a value `test` accepts. */
  const lastSetting = <K extends keyof ApprovalSettings>(layers: Layer[], key: K, test: (value: ApprovalSettings[K] | undefined) => boolean): RequestFilter => {
    const setting = layers.filter((layer, i) => i === 0 || layer.then[key] !== undefined);
    return lastOf(setting.map((l) => l.when), setting.flatMap((l, i) => (test(l.then[key] as ApprovalSettings[K] | undefined) ? [i] : [])));
  };
  const all = [base, ...rules, ...limits, ...freezes];

  const approvers = lastSetting(all, 'approvers', (list) => admits(list));
  // Escalated: escalateTo joins the approvers once the request has waited escalateAfter (approversAt, isEscalated).
  const escalateTo = lastSetting(all, 'escalateTo', (list) => list !== undefined && list.length > 0 && admits(list));
  const afterLayers = all.filter((layer, i) => i === 0 || layer.then.escalateAfterMs !== undefined);
  const escalated = allOf(
    escalateTo,
    madeByLastOf(
      afterLayers.map((l) => l.when),
      afterLayers.map((l) => (l.then.escalateAfterMs === undefined ? null : new Date(now.getTime() - l.then.escalateAfterMs))),
    ),
  );
  const tightening = [
    ...(entry.limits ?? []).flatMap((limit, i) => (limit.then.allowSelfApproval === false ? [limits[i]!.when] : [])),
    ...freezes.filter((f) => f.then.allowSelfApproval === false).map((f) => f.when),
  ];
  const selfApproval = allOf(lastSetting([base, ...rules], 'allowSelfApproval', (allowed) => allowed === true), not(anyOf(...tightening)));
  const requireApproval = anyOf(lastSetting([base, ...rules], 'requireApproval', (required) => required === true), ...limits.map((l) => l.when), ...freezes.map((f) => f.when));

  const byViewer: RequestFilter = { op: 'requested-by', user: viewer.userId };
  const policyChanged = not({ op: 'policy-version', version: policyVersion });
  return anyOf(
    // The requester may let their own request go once the current policy no longer asks for approval.
    allOf(byViewer, policyChanged, not(requireApproval)),
    allOf(anyOf(selfApproval, not(byViewer)), anyOf(approvers, escalated)),
  );
}

function argFilter(when: RuleCondition): RequestFilter {
  const { arg, ...test } = when;
  return { op: 'arg', path: arg.split('.'), test };
}
