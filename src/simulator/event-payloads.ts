/**
 * Events API envelopes as Slack delivers them (key order included, so a built envelope serialises
 * byte-for-byte like the one Slack would send for the same input): app_mention, message (replies,
 * DMs, the bot's echoes, edits, deletions), app_home_opened and url_verification.
 */
import { randomUUID } from 'node:crypto';
import { SLACK_IDS, VERIFICATION_TOKEN } from './ids.js';
import type { JsonObject } from './json.js';
import { newEventId } from './random-ids.js';
import { richTextBlocks } from './rich-text.js';
import { nowSeconds } from './sign.js';
import { tsSeconds } from './slack-ts.js';

const EVENT_CONTEXT = '4-eyJldCI6ImFwcF9tZW50aW9uIn0';

export type ChannelType = 'channel' | 'group' | 'im' | 'mpim';

export function channelTypeOf(channel: string): ChannelType {
  if (channel.startsWith('D')) return 'im';
  if (channel.startsWith('G')) return 'group';
  return 'channel';
}

export interface EventEnvelope<E extends JsonObject = JsonObject> extends JsonObject {
  token: string;
  team_id: string;
  context_team_id: string;
  context_enterprise_id: null;
  api_app_id: string;
  event: E;
  type: 'event_callback';
  event_id: string;
  event_time: number;
  authorizations: JsonObject[];
  is_ext_shared_channel: boolean;
  event_context: string;
}

interface EnvelopeOptions {
  eventId?: string;
  eventTime?: number;
  teamId?: string;
  /**
   * The writer's own team when it is not the workspace's: a Slack Connect partner writing in a
   * shared channel. The event then carries it as `user_team` (and `team`), and the envelope says
   * the channel is externally shared.
   */
  userTeam?: string;
}

/** Whose envelope it is, for a workspace other than SLACK_IDS (the sandbox's). */
export interface EnvelopeWorkspace {
  appId: string;
  botUserId: string;
  verificationToken: string;
  eventContext: string;
}

/** Wraps any event the way the Events API delivers it to a single-workspace bot. */
export function eventEnvelope<E extends JsonObject>(
  event: E,
  options: EnvelopeOptions & { eventTs?: string; workspace?: EnvelopeWorkspace } = {},
): EventEnvelope<E> {
  const teamId = options.teamId ?? SLACK_IDS.teamId;
  const workspace = options.workspace;
  const eventTs = options.eventTs ?? (typeof event.event_ts === 'string' ? event.event_ts : undefined);
  return {
    token: workspace?.verificationToken ?? VERIFICATION_TOKEN,
    team_id: teamId,
    context_team_id: teamId,
    context_enterprise_id: null,
    api_app_id: workspace?.appId ?? SLACK_IDS.appId,
    event,
    type: 'event_callback',
    event_id: options.eventId ?? newEventId(),
    event_time: options.eventTime ?? (eventTs !== undefined ? tsSeconds(eventTs) : nowSeconds()),
    authorizations: [
      {
        enterprise_id: null,
        team_id: teamId,
        user_id: workspace?.botUserId ?? SLACK_IDS.botUserId,
        is_bot: true,
        is_enterprise_install: false,
      },
    ],
    is_ext_shared_channel: options.userTeam !== undefined,
    event_context: workspace?.eventContext ?? EVENT_CONTEXT,
  };
}

interface AppMentionOptions extends EnvelopeOptions {
  /** As Slack sends it: mentions are `<@U…>` and `&`, `<`, `>` are escaped. */
  text: string;
  user: string;
  channel: string;
  ts: string;
  threadTs?: string;
  /** Slack sets this on thread replies: who wrote the thread's root. */
  parentUserId?: string;
  clientMsgId?: string;
  blockId?: string;
  /** Set when the mention was edited: Slack then sends app_mention again, same ts, a new event id. */
  edited?: { user: string; ts: string };
}

export function appMentionEnvelope(o: AppMentionOptions): EventEnvelope {
  const event: JsonObject = {
    client_msg_id: o.clientMsgId ?? randomUUID(),
    type: 'app_mention',
    text: o.text,
    user: o.user,
    ts: o.ts,
  };
  if (o.threadTs !== undefined) {
    event.thread_ts = o.threadTs;
    event.parent_user_id = o.parentUserId ?? o.user;
  }
  event.blocks = richTextBlocks(o.text, o.blockId);
  event.team = o.userTeam ?? o.teamId ?? SLACK_IDS.teamId;
  if (o.userTeam !== undefined) event.user_team = o.userTeam;
  if (o.edited) event.edited = { user: o.edited.user, ts: o.edited.ts };
  event.channel = o.channel;
  event.event_ts = o.edited?.ts ?? o.ts;
  return eventEnvelope(event, o);
}

interface EmbeddedMessage {
  ts: string;
  text: string;
  user?: string;
  threadTs?: string;
  botId?: string;
}

interface MessageEnvelopeOptions extends EnvelopeOptions {
  channel: string;
  /** The event's own ts; for `message_changed`/`message_deleted` that is when the change happened. */
  ts: string;
  text?: string;
  user?: string;
  threadTs?: string;
  parentUserId?: string;
  /** Inferred from the channel id prefix (D → im, G → group, else channel) when omitted. */
  channelType?: ChannelType;
  /** Makes it a bot's message (with `bot_profile`), e.g. the bot's own post echoed back. */
  botId?: string;
  appId?: string;
  /** e.g. 'message_changed', 'message_deleted', 'thread_broadcast', 'bot_message'. */
  subtype?: string;
  /** message_changed: the message after the edit. */
  message?: EmbeddedMessage;
  /** message_changed / message_deleted: the message before. */
  previousMessage?: EmbeddedMessage;
  clientMsgId?: string;
  blockId?: string;
  /** Replaces the rich_text Slack derives from `text` (bots post their own Block Kit). */
  blocks?: JsonObject[];
}

function embedded(m: EmbeddedMessage, editedAt?: string): JsonObject {
  const out: JsonObject = { type: 'message' };
  if (m.user !== undefined) out.user = m.user;
  if (m.botId !== undefined) out.bot_id = m.botId;
  out.text = m.text;
  if (editedAt !== undefined && m.user !== undefined) {
    out.edited = { user: m.user, ts: `${tsSeconds(editedAt)}.000000` };
  }
  out.ts = m.ts;
  if (m.threadTs !== undefined) out.thread_ts = m.threadTs;
  return out;
}

function botProfile(botId: string, appId: string): JsonObject {
  return {
    id: botId,
    app_id: appId,
    name: SLACK_IDS.botName,
    deleted: false,
    team_id: SLACK_IDS.teamId,
    updated: 1726000000,
    icons: { image_36: 'https://a.slack-edge.com/x36.png' },
  };
}

/** A `message` event: thread replies, DMs, the bot's own echoes, or an edit/delete notification. */
export function messageEnvelope(o: MessageEnvelopeOptions): EventEnvelope {
  const channelType = o.channelType ?? channelTypeOf(o.channel);

  if (o.subtype === 'message_changed' || o.subtype === 'message_deleted') {
    // Edits and deletions carry no top-level user or text; what changed is nested.
    const event: JsonObject = { type: 'message', subtype: o.subtype, hidden: true, channel: o.channel, ts: o.ts };
    if (o.subtype === 'message_deleted') {
      event.deleted_ts = o.previousMessage?.ts ?? o.message?.ts ?? o.ts;
    }
    event.event_ts = o.ts;
    event.channel_type = channelType;
    if (o.subtype === 'message_changed') {
      if (!o.message) throw new Error('message_changed needs `message` (the message after the edit)');
      event.message = embedded(o.message, o.ts);
    }
    if (o.previousMessage) event.previous_message = embedded(o.previousMessage);
    return eventEnvelope(event, o);
  }

  const event: JsonObject = {};
  if (o.subtype !== undefined) event.subtype = o.subtype;
  if (o.botId !== undefined) event.bot_id = o.botId;
  else event.client_msg_id = o.clientMsgId ?? randomUUID();
  event.type = 'message';
  event.text = o.text ?? '';
  if (o.user !== undefined) event.user = o.user;
  event.ts = o.ts;
  if (o.threadTs !== undefined) {
    event.thread_ts = o.threadTs;
    event.parent_user_id = o.parentUserId ?? o.user ?? null;
  }
  if (o.botId !== undefined) {
    const appId = o.appId ?? SLACK_IDS.appId;
    event.app_id = appId;
    event.bot_profile = botProfile(o.botId, appId);
  }
  event.blocks = o.blocks ?? richTextBlocks(o.text ?? '', o.blockId);
  event.team = o.userTeam ?? o.teamId ?? SLACK_IDS.teamId;
  if (o.userTeam !== undefined) event.user_team = o.userTeam;
  event.channel = o.channel;
  event.event_ts = o.ts;
  event.channel_type = channelType;
  return eventEnvelope(event, o);
}

export function urlVerificationBody(challenge: string, token = 'Jhj5dZrVaK7ZwHHjRyZWjbDl'): JsonObject {
  return { token, challenge, type: 'url_verification' };
}


interface AppHomeOpenedOptions extends EnvelopeOptions {
  user: string;
  /** The DM between the person and the app, where the Home and Messages tabs live. */
  channel: string;
  tab?: 'home' | 'messages';
  /** The Home view currently published for the person (views.publish); Slack omits it when there is none. */
  view?: JsonObject;
  eventTs?: string;
}

/** `app_home_opened`: the person opened the app's Home (or Messages) tab. */
export function appHomeOpenedEnvelope(o: AppHomeOpenedOptions): EventEnvelope {
  const eventTs = o.eventTs ?? `${nowSeconds()}.000100`;
  const event: JsonObject = { type: 'app_home_opened', user: o.user, channel: o.channel, tab: o.tab ?? 'home' };
  if (o.view !== undefined) event.view = o.view;
  event.event_ts = eventTs;
  return eventEnvelope(event, { ...o, eventTs });
}
