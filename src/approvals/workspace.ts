/**
 * The workspace a front end serves (Slack's auth.test: the installing workspace's team id and,
 * on Enterprise Grid, its organisation's id). Only its members request, decide, answer, edit,
 * revoke or see requests, unless the policy names an external team it trusts
 * (`allowExternalTeams`): Slack Connect channels deliver clicks and mentions from people of
 * other workspaces, signed like any other.
 */
export interface Workspace {
  readonly teamId: string;
  /** Set on Enterprise Grid: Slack names a member of the organisation by the organisation's id (E…). */
  readonly enterpriseId?: string;
}

/** Who acts, as far as membership goes: the team a front end was told the person belongs to. */
export interface TeamOfActor {
  /**
   * The person's own team as the front end received it (Slack: `user.team_id` of a click or
   * submission, `user_team`/`team` of a message, `team_id` of a slash command). A front end
   * passes it always, `''` when Slack said nothing (refused); only code calling the runtime
   * directly, which vouches for its actor, leaves it out.
   */
  teamId?: string;
  /**
   * The organisation the person acted in, where the payload says so reliably (a slash command's
   * `enterprise_id`); a member of the workspace's organisation typing in a sibling workspace.
   */
  enterpriseId?: string;
}

/**
 * Whether the actor is outside the workspace: false when the runtime serves no workspace (code
 * only) or the actor carries no team (code vouching for it); otherwise its team must be the
 * workspace's, its organisation's, or one the policy trusts. Fails closed on a blank team.
 */
export function outsideWorkspace(actor: TeamOfActor, workspace: Workspace | undefined, allowExternalTeams: readonly string[] = []): boolean {
  if (workspace === undefined || actor.teamId === undefined) return false;
  const team = typeof actor.teamId === 'string' ? actor.teamId.trim() : '';
  if (team === '') return true;
  if (team === workspace.teamId) return false;
  if (workspace.enterpriseId !== undefined && (team === workspace.enterpriseId || actor.enterpriseId === workspace.enterpriseId)) return false;
  return !allowExternalTeams.includes(team);
}

export const outsideWorkspaceMessage = 'Only members of this workspace can act on its approval requests.';
