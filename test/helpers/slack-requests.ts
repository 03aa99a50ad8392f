/**
 * Builders for what Slack sends the bot: Events API envelopes, interactivity payloads, and the
 * signed HTTP requests that carry them. Shapes follow real Slack deliveries (key order included,
 * so a built envelope serialises byte-for-byte like the one Slack would send for the same input).
 */
import { createHmac, randomBytes, randomUUID } from 'node:crypto';

/** The fake workspace every helper agrees on. */
export const SLACK_IDS = {
  teamId: 'T0G9PQBBK',
  teamDomain: 'acme-corp',
  teamName: 'Acme Corp',
  appId: 'A0APPID0001',
  botUserId: 'U0BOTUSER',
  botId: 'B0BOTID0001',
  botName: 'approvals',
} as const;

/** Slack still sends this legacy field; nothing should rely on it. */
const VERIFICATION_TOKEN = 'verification_token_deprecated';
const EVENT_CONTEXT = '4-eyJldCI6ImFwcF9tZW50aW9uIn0';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

// ---------------------------------------------------------------------------------------------
// Signing
// ---------------------------------------------------------------------------------------------

export type ContentType = 'application/json' | 'application/x-www-form-urlencoded';

export interface SignedHeaders {
  'x-slack-signature': string;
  'x-slack-request-timestamp': string;
  'content-type': ContentType;
}

/** Slack only ever sends form bodies as `payload=` (interactivity) or `command=`-style pairs, never JSON. */
function inferContentType(rawBody: string): ContentType {
  return rawBody.trimStart().startsWith('{') ? 'application/json' : 'application/x-www-form-urlencoded';
}

export function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

/**
 * Headers Slack attaches to a request: `v0=hex(HMAC_SHA256(secret, "v0:<ts>:<rawBody>"))`.
 * The signature covers the raw bytes, so send exactly `body` afterwards.
 */
export function signRequest(secret: string, body: string, timestamp: number | string = nowSeconds()): SignedHeaders {
  const ts = String(timestamp);
  const digest = createHmac('sha256', secret).update(`v0:${ts}:${body}`, 'utf8').digest('hex');
  return {
    'x-slack-signature': `v0=${digest}`,
    'x-slack-request-timestamp': ts,
    'content-type': inferContentType(body),
  };
}

/** Interactivity wire format: one form field holding the JSON payload. */
export function formBody(payload: unknown): string {
  return `payload=${encodeURIComponent(JSON.stringify(payload))}`;
}

// ---------------------------------------------------------------------------------------------
// Sending
// ---------------------------------------------------------------------------------------------

export interface SendSignedOptions {
  secret: string;
  /** A raw string is sent untouched; an object is serialised as JSON or `payload=` per `contentType`. */
  body: string | object;
  /** 'json' | 'form' or a full MIME type; inferred from the body when omitted. */
  contentType?: 'json' | 'form' | ContentType;
  timestamp?: number | string;
  /** Slack's redelivery markers; set these to replay a delivery as a retry. */
  retryNum?: number;
  retryReason?: string;
  /** Applied after signing, so they can override the signature or timestamp for negative tests. */
  headers?: Record<string, string>;
  timeoutMs?: number;
}

export interface SignedResponse {
  status: number;
  /** Raw response text. */
  body: string;
  /** Parsed body when it was JSON, otherwise undefined. */
  json: unknown;
  headers: Record<string, string>;
  elapsedMs: number;
  /** Exactly what was sent, for replaying the same delivery as a retry. */
  sent: { rawBody: string; headers: Record<string, string> };
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

function assertLoopback(url: string): void {
  const host = new URL(url).hostname;
  if (!LOOPBACK_HOSTS.has(host)) {
    throw new Error(`sendSigned only talks to loopback in tests; refused ${url}`);
  }
}

function resolveContentType(body: string | object, hint: SendSignedOptions['contentType']): ContentType {
  if (hint === 'json') return 'application/json';
  if (hint === 'form') return 'application/x-www-form-urlencoded';
  if (hint) return hint;
  return typeof body === 'string' ? inferContentType(body) : 'application/json';
}

/** POST a signed request to the bot's endpoint, timing how long the bot takes to acknowledge. */
export async function sendSigned(url: string, options: SendSignedOptions): Promise<SignedResponse> {
  assertLoopback(url);
  const contentType = resolveContentType(options.body, options.contentType);
  const rawBody =
    typeof options.body === 'string'
      ? options.body
      : contentType === 'application/json'
        ? JSON.stringify(options.body)
        : formBody(options.body);
  const signed = signRequest(options.secret, rawBody, options.timestamp);
  const headers: Record<string, string> = { ...signed, 'content-type': contentType };
  if (options.retryNum !== undefined) {
    headers['x-slack-retry-num'] = String(options.retryNum);
    headers['x-slack-retry-reason'] = options.retryReason ?? 'http_timeout';
  }
  Object.assign(headers, options.headers);

  const started = performance.now();
  const response = await fetch(url, {
    method: 'POST',
    headers,
    body: rawBody,
    signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
  });
  const text = await response.text();
  const elapsedMs = performance.now() - started;
  let json: unknown;
  try {
    json = text.length > 0 ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return {
    status: response.status,
    body: text,
    json,
    headers: Object.fromEntries(response.headers.entries()),
    elapsedMs,
    sent: { rawBody, headers },
  };
}

/** Binds the endpoint and secret so end-to-end tests read as "Slack delivers X". */
export function slackSender(url: string, secret: string) {
  return {
    url,
    secret,
    event: (envelope: object, extra: Omit<SendSignedOptions, 'secret' | 'body'> = {}) =>
      sendSigned(url, { secret, body: envelope, contentType: 'json', ...extra }),
    interaction: (payload: object, extra: Omit<SendSignedOptions, 'secret' | 'body'> = {}) =>
      sendSigned(url, { secret, body: formBody(payload), contentType: 'form', ...extra }),
    raw: (body: string, extra: Omit<SendSignedOptions, 'secret' | 'body'> = {}) =>
      sendSigned(url, { secret, body, ...extra }),
  };
}

// ---------------------------------------------------------------------------------------------
// Ids
// ---------------------------------------------------------------------------------------------

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

function randomId(prefix: string, length: number, alphabet = ALNUM): string {
  const bytes = randomBytes(length);
  let out = prefix;
  for (const b of bytes) out += alphabet[b % alphabet.length];
  return out;
}

/** Unique per call: each built envelope is a new delivery unless the caller pins `eventId`. */
export function newEventId(): string {
  return randomId('Ev0', 9);
}

/** Real trigger ids are `<digits>.<digits>.<32 hex>`; the fake Slack checks that shape. */
export function newTriggerId(): string {
  const digits = (n: number) => randomId('', n, '0123456789').replace(/^0/, '1');
  return `${digits(13)}.${digits(10)}.${randomBytes(16).toString('hex')}`;
}

/** Slack's own rich_text block ids are short opaque strings that vary per message. */
function richTextBlockId(): string {
  return randomId('', 4, 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=');
}

function tsSeconds(ts: string): number {
  return Number.parseInt(ts.split('.')[0] ?? '0', 10);
}

function channelTypeOf(channel: string): ChannelType {
  if (channel.startsWith('D')) return 'im';
  if (channel.startsWith('G')) return 'group';
  return 'channel';
}

// ---------------------------------------------------------------------------------------------
// Rich text: Slack echoes what a human typed both as `text` (mrkdwn-escaped) and as rich_text
// ---------------------------------------------------------------------------------------------

function unescapeMrkdwn(s: string): string {
  return s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}

const TOKEN = /<(@[UW][A-Z0-9]+|#[CG][A-Z0-9]+|!subteam\^[A-Z0-9]+|!here|!channel|!everyone|https?:\/\/[^>|]+)(?:\|([^>]*))?>/g;

/** Turns message `text` into the `rich_text_section` elements Slack would attach to it. */
export function richTextElements(text: string): JsonObject[] {
  const out: JsonObject[] = [];
  let last = 0;
  const pushText = (s: string) => {
    if (s.length > 0) out.push({ type: 'text', text: unescapeMrkdwn(s) });
  };
  for (const m of text.matchAll(TOKEN)) {
    pushText(text.slice(last, m.index));
    last = m.index + m[0].length;
    const ref = m[1] ?? '';
    const label = m[2];
    if (ref.startsWith('@')) out.push({ type: 'user', user_id: ref.slice(1) });
    else if (ref.startsWith('#')) out.push({ type: 'channel', channel_id: ref.slice(1) });
    else if (ref.startsWith('!subteam^')) out.push({ type: 'usergroup', usergroup_id: ref.slice('!subteam^'.length) });
    else if (ref.startsWith('!')) out.push({ type: 'broadcast', range: ref.slice(1) });
    else out.push(label !== undefined ? { type: 'link', url: ref, text: label } : { type: 'link', url: ref });
  }
  pushText(text.slice(last));
  return out;
}

export function richTextBlocks(text: string, blockId = richTextBlockId()): JsonObject[] {
  return [
    {
      type: 'rich_text',
      block_id: blockId,
      elements: [{ type: 'rich_text_section', elements: richTextElements(text) }],
    },
  ];
}

// ---------------------------------------------------------------------------------------------
// Events API
// ---------------------------------------------------------------------------------------------

export type ChannelType = 'channel' | 'group' | 'im' | 'mpim';

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

export interface EnvelopeOptions {
  eventId?: string;
  eventTime?: number;
  teamId?: string;
}

/** Wraps any event the way the Events API delivers it to a single-workspace bot. */
export function eventEnvelope<E extends JsonObject>(event: E, options: EnvelopeOptions & { eventTs?: string } = {}): EventEnvelope<E> {
  const teamId = options.teamId ?? SLACK_IDS.teamId;
  const eventTs = options.eventTs ?? (typeof event.event_ts === 'string' ? event.event_ts : undefined);
  return {
    token: VERIFICATION_TOKEN,
    team_id: teamId,
    context_team_id: teamId,
    context_enterprise_id: null,
    api_app_id: SLACK_IDS.appId,
    event,
    type: 'event_callback',
    event_id: options.eventId ?? newEventId(),
    event_time: options.eventTime ?? (eventTs !== undefined ? tsSeconds(eventTs) : nowSeconds()),
    authorizations: [
      {
        enterprise_id: null,
        team_id: teamId,
        user_id: SLACK_IDS.botUserId,
        is_bot: true,
        is_enterprise_install: false,
      },
    ],
    is_ext_shared_channel: false,
    event_context: EVENT_CONTEXT,
  };
}

export interface AppMentionOptions extends EnvelopeOptions {
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
  event.team = o.teamId ?? SLACK_IDS.teamId;
  if (o.edited) event.edited = { user: o.edited.user, ts: o.edited.ts };
  event.channel = o.channel;
  event.event_ts = o.edited?.ts ?? o.ts;
  return eventEnvelope(event, o);
}

export interface EmbeddedMessage {
  ts: string;
  text: string;
  user?: string;
  threadTs?: string;
  botId?: string;
}

export interface MessageEnvelopeOptions extends EnvelopeOptions {
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
  event.team = o.teamId ?? SLACK_IDS.teamId;
  event.channel = o.channel;
  event.event_ts = o.ts;
  event.channel_type = channelType;
  return eventEnvelope(event, o);
}

export function urlVerificationBody(challenge: string, token = 'Jhj5dZrVaK7ZwHHjRyZWjbDl'): JsonObject {
  return { token, challenge, type: 'url_verification' };
}

// ---------------------------------------------------------------------------------------------
// Interactivity
// ---------------------------------------------------------------------------------------------

export interface OptionObject extends JsonObject {
  text: { type: 'plain_text' | 'mrkdwn'; text: string; emoji?: boolean; verbatim?: boolean };
  value: string;
}

/** A bare string stands for an option whose label is its value. */
export type OptionInput = string | OptionObject;

export function option(o: OptionInput): OptionObject {
  return typeof o === 'string' ? { text: { type: 'plain_text', text: o, emoji: true }, value: o } : o;
}

export interface BlockActionsState {
  values: Record<string, Record<string, JsonObject>>;
}

export interface SlackUserRef {
  id: string;
  /** Defaults to a name derived from the id. */
  name?: string;
}

function userObject(user: string | SlackUserRef): JsonObject {
  const id = typeof user === 'string' ? user : user.id;
  const name = (typeof user === 'string' ? undefined : user.name) ?? id.toLowerCase();
  return { id, username: name, name, team_id: SLACK_IDS.teamId };
}

const TEAM: JsonObject = { id: SLACK_IDS.teamId, domain: SLACK_IDS.teamDomain };

export type ActionType = 'button' | 'static_select' | 'multi_static_select' | 'checkboxes' | 'radio_buttons' | 'overflow';

export interface BlockActionsOptions {
  user: string | SlackUserRef;
  channel: string;
  /** The message holding the clicked element. */
  messageTs: string;
  threadTs?: string;
  actionId: string;
  value?: string;
  blockId?: string;
  selectedOption?: OptionInput;
  selectedOptions?: OptionInput[];
  /** Inferred: selectedOptions → multi_static_select, selectedOption → static_select, else button. */
  actionType?: ActionType;
  /** Button label; Slack echoes it in `actions[0].text`. */
  buttonText?: string;
  style?: 'primary' | 'danger';
  /** Wire shape `{ values: { [blockId]: { [actionId]: {...} } } }`; defaults to the acted-on element's state. */
  state?: BlockActionsState;
  triggerId?: string;
  /**
   * Defaults to a real-looking hooks.slack.com URL; pass `fake.responseUrl(...)` if the code under
   * test calls `respond()`, so nothing leaves loopback.
   */
  responseUrl?: string;
  /** Fields of the message as Slack echoes it (e.g. blocks/text of the stored message). */
  message?: JsonObject;
  isEphemeral?: boolean;
  channelName?: string;
  actionTs?: string;
}

function defaultResponseUrl(): string {
  return `https://hooks.slack.com/actions/${SLACK_IDS.teamId}/${randomId('', 13, '0123456789')}/${randomId('', 24)}`;
}

function actionTsNow(): string {
  const ms = Date.now();
  return `${Math.floor(ms / 1000)}.${String((ms % 1000) * 1000).padStart(6, '0')}`;
}

export function blockActionsPayload(o: BlockActionsOptions): JsonObject {
  const blockId = o.blockId ?? 'actions';
  const type: ActionType =
    o.actionType ?? (o.selectedOptions ? 'multi_static_select' : o.selectedOption !== undefined ? 'static_select' : 'button');

  const action: JsonObject = {};
  let elementState: JsonObject | undefined;
  if (type === 'button') {
    action.action_id = o.actionId;
    action.block_id = blockId;
    action.text = { type: 'plain_text', text: o.buttonText ?? o.actionId, emoji: true };
    if (o.value !== undefined) action.value = o.value;
    if (o.style !== undefined) action.style = o.style;
    action.type = 'button';
  } else {
    action.type = type;
    action.action_id = o.actionId;
    action.block_id = blockId;
    if (type === 'multi_static_select' || type === 'checkboxes') {
      const selected = (o.selectedOptions ?? []).map(option);
      action.selected_options = selected;
      elementState = { type, selected_options: selected };
    } else {
      const selected = o.selectedOption !== undefined ? option(o.selectedOption) : null;
      action.selected_option = selected;
      elementState = { type, selected_option: selected };
    }
  }
  action.action_ts = o.actionTs ?? actionTsNow();

  const container: JsonObject = {
    type: 'message',
    message_ts: o.messageTs,
    channel_id: o.channel,
    is_ephemeral: o.isEphemeral ?? false,
  };
  if (o.threadTs !== undefined) container.thread_ts = o.threadTs;

  const message: JsonObject = {
    user: SLACK_IDS.botUserId,
    type: 'message',
    ts: o.messageTs,
    bot_id: SLACK_IDS.botId,
    app_id: SLACK_IDS.appId,
    text: '',
    team: SLACK_IDS.teamId,
  };
  if (o.threadTs !== undefined) message.thread_ts = o.threadTs;
  message.blocks = [];
  Object.assign(message, o.message ?? {});

  const state: BlockActionsState =
    o.state ?? { values: elementState ? { [blockId]: { [o.actionId]: elementState } } : {} };

  const payload: JsonObject = {
    type: 'block_actions',
    user: userObject(o.user),
    api_app_id: SLACK_IDS.appId,
    token: VERIFICATION_TOKEN,
    container,
    trigger_id: o.triggerId ?? newTriggerId(),
    team: TEAM,
    enterprise: null,
    is_enterprise_install: false,
    channel: { id: o.channel, name: o.channelName ?? o.channel.toLowerCase() },
  };
  // Ephemeral messages are not echoed back: Slack omits `message` for them.
  if (!o.isEphemeral) payload.message = message;
  payload.state = state as unknown as JsonObject;
  payload.response_url = o.responseUrl ?? defaultResponseUrl();
  payload.actions = [action];
  return payload;
}

/** A string is shorthand for a plain_text_input's value. */
export type ViewStateInput = string | JsonObject;

export interface ViewSubmissionOptions {
  user: string | SlackUserRef;
  callbackId: string;
  privateMetadata: string;
  /** `{ [blockId]: { [actionId]: value } }`, each value in wire shape or a string for text inputs. */
  stateValues: Record<string, Record<string, ViewStateInput>>;
  viewId?: string;
  triggerId?: string;
  blocks?: JsonObject[];
  title?: string;
  submitText?: string;
  hash?: string;
  externalId?: string;
  /** Present only when the modal has input blocks with `response_url_enabled`. */
  responseUrls?: JsonObject[];
}

export function viewSubmissionPayload(o: ViewSubmissionOptions): JsonObject {
  const values: Record<string, Record<string, JsonObject>> = {};
  for (const [blockId, actions] of Object.entries(o.stateValues)) {
    const block: Record<string, JsonObject> = {};
    for (const [actionId, v] of Object.entries(actions)) {
      block[actionId] = typeof v === 'string' ? { type: 'plain_text_input', value: v } : v;
    }
    values[blockId] = block;
  }
  const viewId = o.viewId ?? randomId('V0', 9);
  return {
    type: 'view_submission',
    team: TEAM,
    user: userObject(o.user),
    api_app_id: SLACK_IDS.appId,
    token: VERIFICATION_TOKEN,
    trigger_id: o.triggerId ?? newTriggerId(),
    view: {
      id: viewId,
      team_id: SLACK_IDS.teamId,
      type: 'modal',
      blocks: o.blocks ?? [],
      private_metadata: o.privateMetadata,
      callback_id: o.callbackId,
      state: { values } as unknown as JsonObject,
      hash: o.hash ?? `${nowSeconds()}.${randomId('', 8)}`,
      title: { type: 'plain_text', text: o.title ?? 'Approval', emoji: true },
      clear_on_close: false,
      notify_on_close: false,
      close: { type: 'plain_text', text: 'Cancel', emoji: true },
      submit: { type: 'plain_text', text: o.submitText ?? 'Submit', emoji: true },
      previous_view_id: null,
      root_view_id: viewId,
      app_id: SLACK_IDS.appId,
      external_id: o.externalId ?? '',
      app_installed_team_id: SLACK_IDS.teamId,
      bot_id: SLACK_IDS.botId,
    },
    response_urls: o.responseUrls ?? [],
    is_enterprise_install: false,
    enterprise: null,
  };
}
