import type { BlockAction } from '@slack/bolt';
import { teamOfClicker, type Click } from '../context.js';

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
    teamId: teamOfClicker(body),
  };
}

