/** users.info, users.list and auth.test: who is who in the sandbox workspace. */
import { BOT, TEAM, USERS, findUser } from '../workspace.js';
import { SlackApiError, reqString } from '../../simulator/index.js';
import type { ApiContext, ApiMethod } from './context.js';

function userObject(id: string): Record<string, unknown> | undefined {
  const isBot = id === BOT.userId;
  const user = isBot ? { id, name: BOT.name, realName: BOT.realName } : findUser(id);
  if (!user) return undefined;
  return {
    id: user.id,
    team_id: TEAM.id,
    name: user.name,
    deleted: false,
    real_name: user.realName,
    tz: 'Europe/Berlin',
    tz_label: 'Central European Time',
    tz_offset: 3600,
    is_admin: false,
    is_owner: false,
    is_bot: isBot,
    is_app_user: false,
    profile: { real_name: user.realName, display_name: user.name, team: TEAM.id, ...(isBot ? { bot_id: BOT.botId } : {}) },
  };
}

export const userMethods: Record<string, ApiMethod> = {
  'users.info': (args) => {
    const user = userObject(reqString(args, 'user', 'user_not_found'));
    if (!user) throw new SlackApiError('user_not_found');
    return { ok: true, user };
  },
  'users.list': () => ({
    ok: true,
    members: [BOT.userId, ...USERS.map((u) => u.id)].map(userObject),
    response_metadata: { next_cursor: '' },
  }),
  'auth.test': (_args, ctx: ApiContext) => ({
    ok: true,
    url: `${ctx.origin}/`,
    team: TEAM.name,
    user: BOT.name,
    team_id: TEAM.id,
    user_id: BOT.userId,
    bot_id: BOT.botId,
    is_enterprise_install: false,
  }),
  'api.test': (args) => {
    if (typeof args.error === 'string' && args.error !== '') throw new SlackApiError(args.error);
    const { token: _token, ...echoed } = args;
    return { ok: true, args: echoed };
  },
};
