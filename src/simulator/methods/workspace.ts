/** api.test, auth.test, users.info, usergroups.list and usergroups.users.list: who is who in the simulated workspace. */
import { SlackApiError } from '../api-error.js';
import { SLACK_IDS } from '../ids.js';
import { clone } from '../json.js';
import type { SimulatedUser } from '../types.js';
import type { Handler } from '../web-api-endpoint.js';
import { reqString } from '../wire-args.js';
import type { MethodContext } from './method-context.js';

export function workspaceMethods(ctx: MethodContext): Record<string, Handler> {
  const { store, options } = ctx;

  /** Users known from the options; any other id shaped like a user id gets a profile made up from it. */
  function userProfile(id: string): SimulatedUser {
    const known = options.users?.[id];
    const name = known?.name ?? id.toLowerCase();
    return {
        id,
        name,
        real_name: known?.real_name ?? name,
        is_bot: known?.is_bot ?? id === SLACK_IDS.botUserId,
        deleted: known?.deleted ?? false,
        tz: known?.tz ?? 'Europe/Berlin',
        team_id: known?.team_id ?? SLACK_IDS.teamId,
      };
    }

    return {
    'api.test': (args) => ({ ok: true, args: clone(args) }),
    'auth.test': () => ({
      ok: true,
      url: `https://${SLACK_IDS.teamDomain}.slack.com/`,
      team: SLACK_IDS.teamName,
      user: SLACK_IDS.botName,
      team_id: SLACK_IDS.teamId,
      user_id: SLACK_IDS.botUserId,
      bot_id: SLACK_IDS.botId,
      is_enterprise_install: false,
    }),
    'usergroups.users.list': (args) => {
      const id = reqString(args, 'usergroup');
      const users = store.usergroups.get(id);
      if (!users) throw new SlackApiError('no_such_subteam');
      return { ok: true, users: [...users] };
    },

    'usergroups.list': () => ({
      ok: true,
      usergroups: [...store.usergroups.entries()].map(([id, users]) => {
        const handle = options.usergroupHandles?.[id] ?? id.toLowerCase();
        return { id, team_id: SLACK_IDS.teamId, is_usergroup: true, name: handle, handle, date_delete: 0, user_count: users.length };
      }),
    }),
    'users.info': (args) => {
      const id = reqString(args, 'user');
      if (!options.users?.[id] && !/^[UW][A-Z0-9]{2,}$/.test(id)) throw new SlackApiError('user_not_found');
      const u = userProfile(id);
      return {
        ok: true,
        user: {
          id: u.id,
          team_id: u.team_id,
          name: u.name,
          deleted: u.deleted,
          real_name: u.real_name,
          tz: u.tz,
          is_bot: u.is_bot,
          is_app_user: false,
          profile: { real_name: u.real_name, display_name: u.name, team: u.team_id },
        },
      };
    },
  };
}
