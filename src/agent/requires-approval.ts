import type { AgentInternals } from './agent-internals.js';

export interface RequireToolApprovalContext {
  /** The name the model called: the tool's key in `tools` (or `agent-<key>` for a sub-agent). */
  toolName: string;
  args: unknown;
  requestContext: Map<string, unknown>;
  /** Agent ids from the top-level agent down to the one making the call. */
  path: string[];
  workspace?: unknown;
}

export type RequireToolApproval =
  | boolean
  | ((ctx: RequireToolApprovalContext) => boolean | Promise<boolean>);

/**
 * The approval rules that hold for calls made by the last agent of `lineage`
 * (the top-level agent first): the request's own rule, or else the top-level
 * agent's default, then the default of every sub-agent on the way down. A
 * supervisor's rule therefore reaches its sub-agents' calls at any depth, and
 * a sub-agent's own default still holds for what it calls.
 */
export function approvalRulesFor(
  lineage: readonly AgentInternals[],
  requestRule: RequireToolApproval | undefined,
): RequireToolApproval[] {
  const rules = [
    requestRule ?? lineage[0]?.defaultOptions.requireToolApproval,
    ...lineage.slice(1).map((agent) => agent.defaultOptions.requireToolApproval),
  ];
  return rules.filter((rule): rule is RequireToolApproval => rule !== undefined);
}

export interface ApprovalQuestion {
  toolName: string;
  args: unknown;
  path: string[];
  requestContext: Map<string, unknown>;
  /** The tool's own `requireApproval`, when it has one (a sub-agent has none). */
  toolSetting: boolean | undefined;
  /** What the approval policy says for this call. */
  policyRequires: boolean;
}

/**
 * The approval gate's precedence, in one place:
 * 1. any rule that is `true` (request, supervisor or agent default) pauses the call;
 * 2. the policy can only add approval (ops can tighten, never loosen, what code asks);
 * 3. a tool's own `requireApproval` beats the function form;
 * 4. every function rule is asked; one that says anything but `false`, or throws, pauses (fail safe).
 */
export async function requiresApproval(rules: readonly RequireToolApproval[], question: ApprovalQuestion): Promise<boolean> {
  if (question.policyRequires || rules.some((rule) => rule === true)) return true;
  if (question.toolSetting !== undefined) return question.toolSetting;
  const context: RequireToolApprovalContext = {
    toolName: question.toolName,
    args: question.args,
    requestContext: question.requestContext,
    path: question.path,
  };
  for (const rule of rules) {
    if (typeof rule !== 'function') continue;
    try {
      if ((await rule(context)) !== false) return true;
    } catch {
      return true;
    }
  }
  return false;
}
