/**
 * The bot's own posts, edits and deletions come back to it as `message` events, as on Slack (a
 * well-behaved bot ignores them: they carry its `bot_id`). Built from the stored messages, for
 * the workspace they live in.
 */
import { channelTypeOf, eventEnvelope } from './event-payloads.js';
import { clone, type JsonObject } from './json.js';
import type { StoredMessage } from './types.js';
import type { SimulatedWorkspace } from './workspace.js';

type Obj = Record<string, unknown>;

function envelope(workspace: SimulatedWorkspace, event: Obj, eventTs: string): JsonObject {
  return eventEnvelope(event as JsonObject, { eventTs, teamId: workspace.ids.teamId, ...(workspace.envelope ? { workspace: workspace.envelope } : {}) });
}

function channelType(workspace: SimulatedWorkspace, channel: string): string {
  return workspace.channel(channel)?.type ?? channelTypeOf(channel);
}

function withoutChannel(message: StoredMessage): Obj {
  const { channel: _channel, ...rest } = clone(message);
  return rest;
}

/** A post of the bot's, echoed. */
export function botMessageEvent(workspace: SimulatedWorkspace, message: StoredMessage): JsonObject {
  const { ids } = workspace;
  const event: Obj = {
    bot_id: ids.botId,
    type: 'message',
    text: message.text,
    user: ids.botUserId,
    ts: message.ts,
    app_id: ids.appId,
    bot_profile: message.bot_profile ?? workspace.botProfile ?? { id: ids.botId, app_id: ids.appId, name: ids.botName, deleted: false, team_id: ids.teamId },
  };
  if (message.thread_ts !== undefined && message.thread_ts !== message.ts) {
    event.thread_ts = message.thread_ts;
    event.parent_user_id = message.parent_user_id ?? null;
  }
  if (message.blocks) event.blocks = clone(message.blocks);
  event.team = ids.teamId;
  event.channel = message.channel;
  event.event_ts = message.ts;
  event.channel_type = channelType(workspace, message.channel);
  return envelope(workspace, event, message.ts);
}

/** `message_changed`: no top-level user or text; the edited message is nested, as on Slack. */
export function messageChangedEvent(workspace: SimulatedWorkspace, message: StoredMessage, previous: StoredMessage, eventTs: string): JsonObject {
  return envelope(
    workspace,
    {
      type: 'message',
      subtype: 'message_changed',
      hidden: true,
      channel: message.channel,
      ts: eventTs,
      event_ts: eventTs,
      channel_type: channelType(workspace, message.channel),
      message: withoutChannel(message),
      previous_message: withoutChannel(previous),
    },
    eventTs,
  );
}

export function messageDeletedEvent(workspace: SimulatedWorkspace, previous: StoredMessage, eventTs: string): JsonObject {
  return envelope(
    workspace,
    {
      type: 'message',
      subtype: 'message_deleted',
      hidden: true,
      channel: previous.channel,
      ts: eventTs,
      deleted_ts: previous.ts,
      event_ts: eventTs,
      channel_type: channelType(workspace, previous.channel),
      previous_message: withoutChannel(previous),
    },
    eventTs,
  );
}
