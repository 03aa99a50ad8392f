import type { webApi } from '@slack/bolt';
import type { Logger } from '../../logger.js';
import { cachedGroupResolver, type GroupResolver } from '../../approvals/group-resolver.js';

/** A person's team as users.info says, for events that do not name it (app_home_opened). */
export type UserTeams = (user: string) => Promise<string>;

interface UsersInfoUser {
  team_id?: string;
  enterprise_user?: { enterprise_id?: string };
}

/**
 * The team a user belongs to, from users.info (scope users:read), cached: a Home tab opened or
 * republished must know whether its viewer is a member of the workspace, and app_home_opened does
 * not say. On Enterprise Grid a member's organisation (E…) is given, as Slack names members of an
 * organisation in clicks. A lookup that fails is not cached and answers `''`, which the runtime
 * refuses (fail closed): the Home then lists nothing until a later lookup works.
 */
export function slackUserTeams(client: webApi.WebClient, logger: Logger, ttlMs = 10 * 60_000): UserTeams {
  const cache = new Map<string, { team: string; at: number }>();
  return async (user) => {
    const hit = cache.get(user);
    if (hit && Date.now() - hit.at < ttlMs) return hit.team;
    try {
      const info = (await client.users.info({ user })).user as UsersInfoUser | undefined;
      const team = info?.enterprise_user?.enterprise_id ?? info?.team_id ?? '';
      if (team !== '') cache.set(user, { team, at: Date.now() });
      return team;
    } catch (error) {
      logger.warn({ err: error, user }, 'users.info failed: the person\'s team is unknown, so their inbox lists nothing for now');
      return '';
    }
  };
}

/**
 * Members of a Slack user group (approvers listed as S…), from
 * usergroups.users.list, cached so a burst of clicks is one API call.
 */
export function slackGroupResolver(client: webApi.WebClient, options: { ttlMs?: number } = {}): GroupResolver {
  return cachedGroupResolver(
    async (groupId) => {
      const result = await client.usergroups.users.list({ usergroup: groupId });
      return result.users ?? [];
    },
    options.ttlMs !== undefined ? { ttlMs: options.ttlMs } : {},
  );
}
