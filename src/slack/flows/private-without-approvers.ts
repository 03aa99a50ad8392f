import type { PendingAction } from '../../db/rows.js';
import { isUserGroupId } from '../blocks/mention.js';
import type { SlackContext } from '../slack-context.js';

/** Private channels are read this many members at a time, and at most this many pages. */
const MEMBERS_PAGE = 200;
const MEMBERS_PAGES_MAX = 5;
/**
 * A public channel is believed public this long: a channel made private since then keeps its
 * cards in the channel for at most this while. Private channels are never remembered, since their
 * members are what counts and they change.
 */
const PUBLIC_FOR_MS = 10 * 60_000;
const PUBLIC_CHANNELS_MAX = 1000;

function knownPublic(ctx: SlackContext, channel: string): boolean {
  const since = ctx.publicChannels?.get(channel);
  if (since === undefined) return false;
  if (Date.now() - since < PUBLIC_FOR_MS) return true;
  ctx.publicChannels?.delete(channel);
  return false;
}

function rememberPublic(ctx: SlackContext, channel: string): void {
  const known = ctx.publicChannels;
  if (!known) return;
  // Oldest first (insertion order): the map stays small however many channels the bot is in.
  if (known.size >= PUBLIC_CHANNELS_MAX) known.delete(known.keys().next().value!);
  known.set(channel, Date.now());
}

/**
 * Whether `channel` is private and none of its members (other than the bot, and the requester
 * when they may not approve their own request) may approve. A private channel's members are
 * asked afresh for every request: they change, and a stale answer would hide a card or send it
 * needlessly. When Slack cannot be asked (missing `groups:read`, a channel too large to list),
 * the card stays in the channel as before.
 */
export async function privateWithoutApprovers(
  ctx: SlackContext,
  action: PendingAction,
  channel: string,
  approvers: readonly string[],
  allowSelfApproval: boolean,
): Promise<boolean> {
  if (knownPublic(ctx, channel)) return false;
  try {
    const info = await ctx.client.conversations.info({ channel });
    if (!info.channel?.is_private) {
      rememberPublic(ctx, channel);
      return false;
    }
    const members: string[] = [];
    let cursor: string | undefined;
    for (let pages = 0; ; pages++) {
      if (pages === MEMBERS_PAGES_MAX) return false;
      const page = await ctx.client.conversations.members({ channel, limit: MEMBERS_PAGE, ...(cursor ? { cursor } : {}) });
      members.push(...(page.members ?? []));
      cursor = page.response_metadata?.next_cursor || undefined;
      if (!cursor) break;
    }
    const skip = new Set<string>([...(ctx.botUserId ? [ctx.botUserId] : []), ...(!allowSelfApproval && action.requester ? [action.requester] : [])]);
    const candidates = members.filter((id) => !skip.has(id));
    if (candidates.some((id) => approvers.includes(id))) return false;
    const groups = approvers.filter(isUserGroupId);
    if (groups.length === 0) return true;
    const resolve = ctx.agent.runtime.resolveGroupMembers;
    if (!resolve) return false;
    for (const group of groups) {
      const inGroup = new Set(await resolve(group));
      if (candidates.some((id) => inGroup.has(id))) return false;
    }
    return true;
  } catch (error) {
    // conversations.info on a public channel needs channels:read, which the bot does not ask for:
    // Slack's refusal is itself the answer "not private".
    if (slackErrorCode(error) === 'missing_scope') {
      rememberPublic(ctx, channel);
      return false;
    }
    ctx.logger.warn({ err: error, actionId: action.id, channel }, 'could not tell whether anyone in the channel may approve; the card stays there');
    return false;
  }
}

function slackErrorCode(error: unknown): string | undefined {
  const data = (error as { data?: { error?: unknown } } | null)?.data;
  return typeof data?.error === 'string' ? data.error : undefined;
}
