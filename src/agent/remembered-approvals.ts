import type { Actor } from './api-types.js';
import type { AgentInternals, RuntimeDeps } from './run-model.js';
import { endRememberedOfReplacedTools, findRememberedGrant, liveRememberedGrants, revokeRememberedGrant, type RememberedGrant } from '../db/remembered-grants.js';
import { mayDecide, workspaceRefusal } from './decide.js';

/** Every way a revoke can end; a refused one changes nothing. */
export type RevokeOutcome =
  | { outcome: 'revoked'; grant: RememberedGrant }
  | { outcome: 'not-allowed'; grant: RememberedGrant; message: string }
  /** Revoked already, or past its time: nothing to revoke. */
  | { outcome: 'already-ended'; grant: RememberedGrant }
  | { outcome: 'not-found'; id: number };

/**
 * Who may see and revoke a remembered approval: members of the workspace only (workspaceRefusal),
 * then whoever created it, its requester, and anyone who may approve that call under the current
 * policy (the rule every decision is checked with).
 */
async function mayRevoke(deps: RuntimeDeps, grant: RememberedGrant, actor: Actor): Promise<{ allowed: true } | { allowed: false; message: string }> {
  const outside = workspaceRefusal(deps, actor);
  if (outside) return outside;
  if (actor.userId === grant.created_by || actor.userId === grant.requester) return { allowed: true };
  const verdict = await mayDecide(deps, { tool_name: grant.tool_name, args: grant.args, requester: grant.requester, policy_version: grant.policy_version, path: grant.path }, actor, 'approve');
  return verdict.allowed ? { allowed: true } : { allowed: false, message: 'Only whoever allowed it, its requester, or someone who may approve this tool can revoke it.' };
}

/** Live remembered approvals of this agent; with `viewer`, only those the viewer may revoke. */
export async function listRemembered(root: AgentInternals, deps: RuntimeDeps, viewer?: Actor): Promise<RememberedGrant[]> {
  const live = await liveRememberedGrants(deps.db, root.id);
  if (!viewer) return live;
  const verdicts = await Promise.all(live.map((grant) => mayRevoke(deps, grant, viewer).then((v) => v.allowed, () => false)));
  return live.filter((_, i) => verdicts[i]);
}

/** Revokes one remembered approval of this agent, authorised here whatever the front end checked. */
export async function revokeRemembered(root: AgentInternals, deps: RuntimeDeps, id: number, actor: Actor): Promise<RevokeOutcome> {
  const grant = await findRememberedGrant(deps.db, id);
  if (!grant || grant.agent_id !== root.id) return { outcome: 'not-found', id };
  let verdict: Awaited<ReturnType<typeof mayRevoke>>;
  try {
    verdict = await mayRevoke(deps, grant, actor);
  } catch (error) {
    deps.logger.warn({ err: error, actor: actor.userId }, 'approver group lookup failed');
    verdict = { allowed: false, message: 'Could not check approver group membership right now; try again in a moment.' };
  }
  if (!verdict.allowed) return { outcome: 'not-allowed', grant, message: verdict.message };
  // Only after the check: whether it has ended is for those who may see it.
  if (grant.revoked_at !== null || new Date(grant.expires_at).getTime() <= Date.now()) return { outcome: 'already-ended', grant };
  const revoked = await revokeRememberedGrant(deps.db, id, actor.userId);
  if (!revoked) return { outcome: 'already-ended', grant: (await findRememberedGrant(deps.db, id)) ?? grant };
  deps.logger.info({ rememberedGrantId: id, actor: actor.userId }, 'remembered approval revoked');
  return { outcome: 'revoked', grant: revoked };
}

/**
 * A tool source (an MCP server whose tools are `<prefix>…` at the agent `path`) declared its tools
 * anew (`current`: each one's name and definition digest): every live remembered approval of one
 * of its tools given for another definition, or for a tool it no longer has, ends (see
 * endRememberedOfReplacedTools). Returns the approvals ended.
 */
export function endReplacedToolApprovals(
  root: AgentInternals,
  deps: RuntimeDeps,
  replaced: { path: readonly string[]; prefix: string; current: ReadonlyArray<{ toolName: string; digest: string }>; reason: string },
): Promise<RememberedGrant[]> {
  return endRememberedOfReplacedTools(deps.db, { agentId: root.id, ...replaced });
}
