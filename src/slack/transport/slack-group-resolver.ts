import type { webApi } from '@slack/bolt';
import { cachedGroupResolver, type GroupResolver } from '../../approvals/group-resolver.js';

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
