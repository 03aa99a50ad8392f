import type { Request } from '../../agent/request.js';
import { slackErrorCode } from '../transport/slack-web-client.js';
import type { SlackContext } from '../context.js';

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
 * Whether `channel` is private and none of its members may approve `action`, each asked with the
 * rule every decision is checked with (Agent.mayDecide: listed users, group members, self-approval,
 * never the bot). A private channel's members are asked afresh for every request: they change,
 * and a stale answer would hide a card or send it needlessly. When Slack cannot be asked (missing
 * `groups:read`, a channel too large to list) or a group cannot be read, the card stays in the
 * channel as before.
 */
export async function privateWithoutApprovers(ctx: SlackContext, action: Request, channel: string): Promise<boolean> {
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
    for (const userId of members) {
      if (userId === ctx.botUserId) continue;
      const verdict = await ctx.agent.mayDecide(action, { userId }, 'approve');
      if (verdict.allowed) return false;
      if (verdict.why === 'group-lookup-failed') {
        ctx.logger.warn({ actionId: action.id, channel }, 'could not tell whether anyone in the channel may approve; the card stays there');
        return false;
      }
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
