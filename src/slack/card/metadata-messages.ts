import type { SlackContext, ThreadTarget } from '../context.js';

/** Pages read at the most while looking through a conversation. */
const MAX_PAGES = 10;
const PAGE_SIZE = 200;

export interface MetadataMessage {
  ts: string;
  payload: Record<string, unknown>;
}

/**
 * The bot's own messages in `target` (a thread, read with conversations.replies; a DM's top
 * level, with conversations.history) whose Slack message metadata is of `eventType`, oldest
 * first. Slack returns metadata only when asked for it (include_all_metadata). Only the bot's own
 * messages count: another app could post metadata that claims to be ours. `window` bounds the
 * messages read by their ts, as Slack's oldest, latest and inclusive do.
 */
export async function botMessagesWithMetadata(
  ctx: SlackContext,
  target: ThreadTarget,
  eventType: string,
  window: { oldest?: string; latest?: string; inclusive?: boolean } = {},
): Promise<MetadataMessage[]> {
  const found: MetadataMessage[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const common = { channel: target.channel, include_all_metadata: true, limit: PAGE_SIZE, ...window, ...(cursor ? { cursor } : {}) };
    const response = target.threadTs
      ? await ctx.client.conversations.replies({ ...common, ts: target.threadTs })
      : await ctx.client.conversations.history(common);
    for (const message of response.messages ?? []) {
      if (ctx.botUserId !== undefined && message.user !== ctx.botUserId) continue;
      const metadata = (message as { metadata?: { event_type?: unknown; event_payload?: unknown } }).metadata;
      const payload = metadata?.event_payload;
      if (metadata?.event_type !== eventType || typeof message.ts !== 'string' || !payload || typeof payload !== 'object' || Array.isArray(payload)) continue;
      found.push({ ts: message.ts, payload: payload as Record<string, unknown> });
    }
    cursor = response.response_metadata?.next_cursor || undefined;
    if (!response.has_more || !cursor) break;
  }
  // Slack ts are seconds and six-digit micros: as strings of one length they sort as they compare.
  return found.sort((a, b) => (a.ts.padStart(17, '0') < b.ts.padStart(17, '0') ? -1 : a.ts === b.ts ? 0 : 1));
}
