import type { Agent } from '../../agent/agent.js';
import type { Tool } from '../../agent/tool.js';
import type { PendingAction } from '../../db/rows.js';
import type { CardKind } from '../kit/action-ids.js';

/** The tool a pending action is about, found through the delegation path. */
export function toolOf(agent: Agent, action: Pick<PendingAction, 'path' | 'tool_name'>): Tool | undefined {
  return agent.toolOf(action);
}

export interface AskUserQuestion {
  question: string;
  options?: Array<{ label: string; description?: string }>;
  selectionMode?: 'single_select' | 'multi_select';
}

/** The askUser payload, when this suspension is askUser's question. */
export function questionOf(agent: Agent, action: PendingAction): AskUserQuestion | undefined {
  if (action.kind !== 'suspension' || toolOf(agent, action)?.id !== 'ask_user') return undefined;
  const payload = action.suspend_payload as Partial<AskUserQuestion> | null;
  if (!payload || typeof payload.question !== 'string') return undefined;
  const options = Array.isArray(payload.options)
    ? payload.options.filter((o): o is { label: string; description?: string } => typeof o?.label === 'string')
    : undefined;
  return {
    question: payload.question,
    ...(options && options.length > 0 ? { options, selectionMode: payload.selectionMode ?? 'single_select' } : {}),
  };
}

export function cardKindOf(agent: Agent, action: PendingAction): CardKind {
  if (action.kind === 'approval') return 'approval';
  return questionOf(agent, action) ? 'question' : 'suspension';
}
