/**
 * Events API envelopes, shaped like Slack's deliveries (see the app_mention and message examples
 * in Slack's docs): the bot's listeners read `event.channel_type`, `thread_ts`, `bot_id` and
 * `event_id`, so each is present exactly when Slack would send it.
 */
import { randomUUID } from 'node:crypto';
import { channelTypeOf as simulatorChannelType, eventEnvelope as simulatorEnvelope, type ChannelType, type JsonObject } from '../simulator/index.js';
import type { StoredMessage } from './store.js';
import { APP_ID, BOT, TEAM, botProfile, dmChannelOf, findChannel } from './workspace.js';

type Obj = Record<string, unknown>;

const EVENT_CONTEXT = '4-eyJldCI6Im1lc3NhZ2UiLCJ0aWQiOiJUMFNBTkRCT1gifQ';

/** A sandbox channel's own type; otherwise Slack's id prefixes tell. */
export function channelTypeOf(channel: string): ChannelType {
  return findChannel(channel)?.type ?? simulatorChannelType(channel);
}

const WORKSPACE = { appId: APP_ID, botUserId: BOT.userId, verificationToken: 'sandbox-verification-token', eventContext: EVENT_CONTEXT };

/** The simulator's Events API envelope, for the sandbox's workspace. */
export function eventEnvelope(event: Obj, eventTs: string): Obj {
  return simulatorEnvelope(event as JsonObject, { eventTs, teamId: TEAM.id, workspace: WORKSPACE });
}

/** `app_home_opened`: the person opened the bot's Home tab (the view is there once one was published). */
export function appHomeOpenedEvent(user: string, eventTs: string, view?: Obj): Obj {
  return eventEnvelope({ type: 'app_home_opened', user, channel: dmChannelOf(user), tab: 'home', ...(view ? { view } : {}), event_ts: eventTs }, eventTs);
}

/**
 * What Slack sends for a person's message: always a `message` event (the bot subscribes to
 * message.channels and message.im) and, when the bot is mentioned outside a DM, an `app_mention`
 * first. Slack sends no app_mention for DMs.
 */
export function personMessageEvents(message: StoredMessage, mentionsBot: boolean): Obj[] {
  const channelType = channelTypeOf(message.channel);
  const clientMsgId = message.client_msg_id ?? randomUUID();
  const common = (type: string): Obj => {
    const event: Obj = { client_msg_id: clientMsgId, type, text: message.text, user: message.user, ts: message.ts };
    if (message.thread_ts !== undefined && message.thread_ts !== message.ts) {
      event.thread_ts = message.thread_ts;
      event.parent_user_id = message.parent_user_id ?? null;
    }
    event.blocks = structuredClone(message.blocks ?? []);
    event.team = TEAM.id;
    event.channel = message.channel;
    event.event_ts = message.ts;
    return event;
  };
  const events: Obj[] = [];
  if (mentionsBot && channelType !== 'im') events.push(eventEnvelope(common('app_mention'), message.ts));
  events.push(eventEnvelope({ ...common('message'), channel_type: channelType }, message.ts));
  return events;
}

/** The bot's own post echoed back, as Slack does; a well-behaved bot ignores it (it has `bot_id`). */
export function botMessageEvent(message: StoredMessage): Obj {
  const event: Obj = {
    bot_id: BOT.botId,
    type: 'message',
    text: message.text,
    user: BOT.userId,
    ts: message.ts,
    app_id: APP_ID,
    bot_profile: botProfile(),
  };
  if (message.thread_ts !== undefined && message.thread_ts !== message.ts) {
    event.thread_ts = message.thread_ts;
    event.parent_user_id = message.parent_user_id ?? null;
  }
  if (message.blocks) event.blocks = structuredClone(message.blocks);
  event.team = TEAM.id;
  event.channel = message.channel;
  event.event_ts = message.ts;
  event.channel_type = channelTypeOf(message.channel);
  return eventEnvelope(event, message.ts);
}

/** `message_changed`: no top-level user or text; the edited message is nested, as on Slack. */
export function messageChangedEvent(message: StoredMessage, previous: StoredMessage, eventTs: string): Obj {
  const { channel: _c, ...after } = structuredClone(message);
  const { channel: _p, ...before } = structuredClone(previous);
  return eventEnvelope(
    {
      type: 'message',
      subtype: 'message_changed',
      hidden: true,
      channel: message.channel,
      ts: eventTs,
      event_ts: eventTs,
      channel_type: channelTypeOf(message.channel),
      message: after,
      previous_message: before,
    },
    eventTs,
  );
}

export function messageDeletedEvent(previous: StoredMessage, eventTs: string): Obj {
  const { channel: _c, ...before } = structuredClone(previous);
  return eventEnvelope(
    {
      type: 'message',
      subtype: 'message_deleted',
      hidden: true,
      channel: previous.channel,
      ts: eventTs,
      deleted_ts: previous.ts,
      event_ts: eventTs,
      channel_type: channelTypeOf(previous.channel),
      previous_message: before,
    },
    eventTs,
  );
}
