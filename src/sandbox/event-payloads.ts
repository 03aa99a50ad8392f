/**
 * Events API envelopes for what people do in the sandbox, shaped like Slack's deliveries (see the
 * app_mention and message examples in Slack's docs): the bot's listeners read
 * `event.channel_type`, `thread_ts` and `event_id`, so each is present exactly when Slack would
 * send it. The bot's own posts come back through the simulator's echo-events.ts.
 */
import { randomUUID } from 'node:crypto';
import { channelTypeOf as simulatorChannelType, eventEnvelope as simulatorEnvelope, type ChannelType, type JsonObject } from '../simulator/index.js';
import type { StoredMessage } from './store.js';
import { ENVELOPE, TEAM, dmChannelOf, findChannel } from './workspace.js';

type Obj = Record<string, unknown>;

/** A sandbox channel's own type; otherwise Slack's id prefixes tell. */
function channelTypeOf(channel: string): ChannelType {
  return findChannel(channel)?.type ?? simulatorChannelType(channel);
}

/** The simulator's Events API envelope, for the sandbox's workspace. */
function eventEnvelope(event: Obj, eventTs: string): Obj {
  return simulatorEnvelope(event as JsonObject, { eventTs, teamId: TEAM.id, workspace: ENVELOPE });
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
