import type { Agent } from '../../agent/agent.js';
import type { Requirement } from '../../approvals/requirement-for.js';
import type { RequestBindingView } from '../../agent/request-binding.js';
import type { PendingAction } from '../../db/rows.js';
import type { CardBound, CardUnattended } from './card-types.js';

type BoundFacts = Pick<PendingAction, 'tool_name' | 'args' | 'path' | 'stated_reason' | 'preview' | 'tool_pin' | 'asked_again'> & { limit_hits?: PendingAction['limit_hits'] };

/**
 * What a card shows of a request's binding (Agent.bindingOf: the stated reason, the preview, why
 * it was asked again, a tool changed meanwhile) and of its requirement now (the change freezes in
 * force, a deny the policy now has for it; `requirement`, when the caller worked it out already).
 * Undefined when there is none of it, as for most requests.
 */
export function boundOnCard(agent: Agent, action: BoundFacts, requirement?: Pick<Requirement, 'freezes' | 'deny'>): CardBound | undefined {
  return boundOf(agent.bindingOf(action), requirement ?? agent.requirementOf(action));
}

/** boundOnCard from a binding and requirement already worked out (a RequestView's). */
export function boundOf(binding: RequestBindingView, { freezes, deny }: Pick<Requirement, 'freezes' | 'deny'>): CardBound | undefined {
  const bound: CardBound = {
    ...(binding.statedReason !== undefined ? { statedReason: binding.statedReason } : {}),
    ...(binding.preview ? { preview: binding.preview } : {}),
    ...(binding.askedAgain ? { askedAgain: binding.askedAgain } : {}),
    ...(binding.toolChanged?.length ? { toolChanged: binding.toolChanged } : {}),
    ...(freezes?.length ? { freezes: freezes.map((f) => ({ name: f.name, ...(f.until ? { until: new Date(f.until) } : {}) })) } : {}),
    ...(deny ? { deniedNow: deny.reason } : {}),
  };
  return Object.keys(bound).length > 0 ? bound : undefined;
}

/** Who asked for a request nobody requested (no requester): the agent whose run it is, and the run's caller label. */
export function unattendedOf(action: Pick<PendingAction, 'requester' | 'path' | 'caller'>, agentId: string): CardUnattended | undefined {
  if (action.requester) return undefined;
  return { agent: action.path?.[0] ?? agentId, ...(action.caller ? { caller: action.caller } : {}) };
}
