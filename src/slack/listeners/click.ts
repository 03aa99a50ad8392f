import type { BlockAction } from '@slack/bolt';
import { failureText } from '../failure-text.js';
import type { SlackContext, ThreadTarget } from '../slack-context.js';
import { tellUser } from '../tell-user.js';
import type { CardRow } from '../store/cards.js';
import { loadCardState, type CardState } from '../store/card-state.js';

/** Who clicked where. Only `user` is vouched for by Slack's signature; the rest locates the reply. */
export interface Click extends ThreadTarget {
  user: string;
  messageTs?: string;
  triggerId?: string;
  teamId?: string;
}

export function clickOf(body: BlockAction): Click | undefined {
  const container = body.container as { channel_id?: unknown; message_ts?: unknown; thread_ts?: unknown };
  const channel = body.channel?.id ?? (typeof container.channel_id === 'string' ? container.channel_id : undefined);
  if (!body.user?.id || !channel) return undefined;
  const messageTs = typeof container.message_ts === 'string' ? container.message_ts : body.message?.ts;
  const threadTs =
    typeof container.thread_ts === 'string'
      ? container.thread_ts
      : typeof body.message?.thread_ts === 'string'
        ? (body.message.thread_ts as string)
        : undefined;
  return {
    user: body.user.id,
    channel,
    ...(threadTs ? { threadTs } : {}),
    ...(messageTs ? { messageTs } : {}),
    ...(body.trigger_id ? { triggerId: body.trigger_id } : {}),
    ...(body.team?.id ? { teamId: body.team.id } : {}),
  };
}

/**
 * A button's value names the request it decides; a value copied from another
 * card (or made up) names a request that card is not. When we know where the
 * request's card is, the click must have come from that very message. Reads
 * the request with its card: false when the click is not from the request's
 * card, else the request as read (undefined when there is no such request),
 * which the handler starts from instead of reading it again.
 */
export async function clickedCard(ctx: SlackContext, click: Click, actionId: number): Promise<{ state: CardState | undefined } | false> {
  const state = await loadCardState(ctx.slackDb, actionId);
  return cameFromCard(click, state?.card) ? { state } : false;
}

function cameFromCard(click: Click, card: CardRow | undefined): boolean {
  if (!card) return true;
  return card.channel === click.channel && (click.messageTs === undefined || card.ts === click.messageTs);
}

export const tamperedButton = 'This button does not belong to a request I know, so nothing was changed.';

/** For BackgroundTasks: a failed click handler tells the clicker, with the log reference. */
export function tellClicker(ctx: SlackContext, body: BlockAction): (ref: string) => Promise<void> {
  return async (ref) => {
    const click = clickOf(body);
    if (click) await tellUser(ctx, click, failureText(ref));
  };
}
