/** usergroups.users.list and usergroups.list: the finance group is how "approvers: a group" is tried out. */
import { USERGROUPS, TEAM, findUsergroup } from '../workspace.js';
import { SlackApiError, reqString, truthy } from '../../simulator/index.js';
import type { ApiMethod } from './context.js';

export const usergroupMethods: Record<string, ApiMethod> = {
  'usergroups.users.list': (args) => {
    const id = reqString(args, 'usergroup', 'no_such_subteam');
    const group = USERGROUPS.find((g) => g.id === id);
    if (!group) throw new SlackApiError('no_such_subteam');
    return { ok: true, users: [...group.users] };
  },
  'usergroups.list': (args) => ({
    ok: true,
    usergroups: USERGROUPS.map((g) => ({
      id: g.id,
      team_id: TEAM.id,
      is_usergroup: true,
      name: g.name,
      handle: g.handle,
      user_count: g.users.length,
      ...(truthy(args.include_users) ? { users: [...g.users] } : {}),
    })),
  }),
  'usergroups.info': (args) => {
    const group = findUsergroup(reqString(args, 'usergroup', 'no_such_subteam'));
    if (!group) throw new SlackApiError('no_such_subteam');
    return { ok: true, usergroup: { id: group.id, team_id: TEAM.id, name: group.name, handle: group.handle, users: [...group.users] } };
  },
};
