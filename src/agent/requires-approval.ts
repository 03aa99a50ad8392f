import type { Tool } from './tool.js';

export interface RequireToolApprovalContext {
  toolName: string;
  args: unknown;
  requestContext: Map<string, unknown>;
  workspace?: unknown;
}

export type RequireToolApproval =
  | boolean
  | ((ctx: RequireToolApprovalContext) => boolean | Promise<boolean>);

/**
 * The approval gate's precedence, in one place:
 * 1. `requireToolApproval: true` on the request or agent pauses every call;
 * 2. the policy can only add approval (ops can tighten, never loosen, what code asks);
 * 3. a tool's own `requireApproval` beats the function form;
 * 4. the function decides the rest, and a function that throws pauses (fail safe).
 */
export async function requiresApproval(
  tool: Tool,
  args: unknown,
  requireToolApproval: RequireToolApproval | undefined,
  policyRequires: boolean,
  requestContext: Map<string, unknown>,
): Promise<boolean> {
  if (requireToolApproval === true || policyRequires) return true;
  if (tool.requireApproval !== undefined) return tool.requireApproval;
  if (typeof requireToolApproval === 'function') {
    try {
      return (await requireToolApproval({ toolName: tool.id, args, requestContext })) === true;
    } catch {
      return true;
    }
  }
  return false;
}
