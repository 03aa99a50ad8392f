/** api.test, auth.test, users.info, users.list, usergroups.list and usergroups.users.list: who is who in the workspace. */
import { SlackApiError } from '../api-error.js';
import type { SimulatedUser } from '../types.js';
import type { Handler } from '../web-api-endpoint.js';
import { reqString, truthy } from '../wire-args.js';
import type { MethodContext } from './method-context.js';

export function workspaceMethods(ctx: MethodContext): Record<string, Handler> {
  const { workspace, page } = ctx;
  const { ids } = workspace;

  function userObject(u: SimulatedUser): Record<string, unknown> {
    const teamId = u.team_id ?? ids.teamId;
    return {
      id: u.id,
      team_id: teamId,
      name: u.name,
      deleted: u.deleted,
      real_name: u.real_name,
      tz: u.tz,
      ...(u.tz_label !== undefined ? { tz_label: u.tz_label } : {}),
      ...(u.tz_offset !== undefined ? { tz_offset: u.tz_offset } : {}),
      is_admin: false,
      is_owner: false,
      is_bot: u.is_bot,
      is_app_user: false,
      profile: { real_name: u.real_name, display_name: u.name, team: teamId, ...(u.id === ids.botUserId ? { bot_id: ids.botId } : {}) },
    };
  }


  return {
    'api.test': (args) => {
      // Slack answers with the error it is asked for, which is how a client's error handling is tried.
      if (typeof args.error === 'string' && args.error !== '') throw new SlackApiError(args.error);
      return { ok: true, args: { ...args } };
    },

    'auth.test': () => ({
      ok: true,
      url: workspace.url,
      team: ids.teamName,
      user: ids.botName,
      team_id: ids.teamId,
      user_id: ids.botUserId,
      bot_id: ids.botId,
      is_enterprise_install: false,
    }),

    'users.info': (args) => {
      const user = workspace.user(reqString(args, 'user'));
      if (!user) throw new SlackApiError('user_not_found');
      return { ok: true, user: userObject(user) };
    },

    'users.list': (args) => {
      const p = page(workspace.users().map(userObject), args);
      return { ok: true, members: p.items, response_metadata: p.response_metadata };
    },

    'usergroups.list': (args) => ({
      ok: true,
      usergroups: workspace.usergroups().map((g) => ({
        id: g.id,
        team_id: ids.teamId,
        is_usergroup: true,
        name: g.name,
        handle: g.handle,
        date_delete: 0,
        user_count: g.users.length,
        ...(truthy(args.include_users) ? { users: [...g.users] } : {}),
      })),
    }),

    'usergroups.users.list': (args) => {
      const id = reqString(args, 'usergroup');
      const group = workspace.usergroups().find((g) => g.id === id);
      if (!group) throw new SlackApiError('no_such_subteam');
      return { ok: true, users: [...group.users] };
    },
  };
}
