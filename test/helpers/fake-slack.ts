/**
 * An in-process stand-in for the Slack Web API, speaking its wire format on loopback so the real
 * `WebClient` (and Bolt's `App`, via `clientOptions.slackApiUrl`) run unchanged against it.
 * It keeps enough state (messages, threads, reactions, views) to assert on what the bot did, and
 * lets tests inject the failures Slack produces (429 + Retry-After, 5xx, `ok: false`).
 * It also plays Slack's Socket Mode side: `apps.connections.open` hands out a one-time `ws://`
 * URL on the same port, where tests push envelopes and read back the client's acks.
 */
import { EventEmitter } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { randomBytes, randomUUID } from 'node:crypto';
import { WebSocketServer, type WebSocket } from 'ws';
import { SLACK_IDS } from './slack-requests.js';
export { SLACK_IDS } from './slack-requests.js';


export const FAKE_BOT_TOKEN = 'xoxb-1111111111-2222222222222-FakeBotTokenForTests';
/** App-level token (Socket Mode); Slack accepts it for apps.connections.open only. */
export const FAKE_APP_TOKEN = 'xapp-1-A0APPID0001-3333333333333-0fa4e5c6b7d8e9f00112233445566778899aabbccddeeff0011223344556677';

/** Limits Slack enforces on messages, as observed on the real API. */
export const SLACK_LIMITS = {
  blocksPerMessage: 50,
  blocksJsonChars: 13_000,
  textChars: 40_000,
  blocksPerView: 100,
  viewTitleChars: 24,
  privateMetadataChars: 3_000,
} as const;

export type SlackArgs = Record<string, unknown>;

export interface RecordedCall {
  /** Web API method name, or 'response_url' for posts to a fake response URL. */
  method: string;
  args: SlackArgs;
  /** Epoch ms when the request arrived. */
  at: number;
  token: string | undefined;
  status: number;
  /** The JSON body sent back (undefined for injected non-JSON HTTP errors). */
  response: Record<string, unknown> | undefined;
  ok: boolean;
  error: string | undefined;
  /** Request path, useful for response_url posts. */
  path: string;
}

export interface StoredReaction {
  name: string;
  users: string[];
  count: number;
}

export interface StoredMessage {
  type: 'message';
  channel: string;
  ts: string;
  text: string;
  user?: string;
  bot_id?: string;
  app_id?: string;
  team?: string;
  blocks?: unknown[];
  attachments?: unknown[];
  metadata?: unknown;
  thread_ts?: string;
  parent_user_id?: string;
  reply_count?: number;
  reply_users?: string[];
  reply_users_count?: number;
  latest_reply?: string;
  edited?: { user: string; ts: string };
  reactions?: StoredReaction[];
}

export interface StoredEphemeral {
  channel: string;
  user: string;
  message_ts: string;
  text: string;
  blocks?: unknown[];
  thread_ts?: string;
}

export interface StoredView {
  id: string;
  team_id: string;
  type: string;
  blocks: unknown[];
  private_metadata: string;
  callback_id: string;
  state: { values: Record<string, unknown> };
  hash: string;
  title: unknown;
  clear_on_close: boolean;
  notify_on_close: boolean;
  close: unknown;
  submit: unknown;
  previous_view_id: string | null;
  root_view_id: string;
  app_id: string;
  external_id: string;
  app_installed_team_id: string;
  bot_id: string;
  [key: string]: unknown;
}

export interface FakeUser {
  id: string;
  name: string;
  real_name: string;
  is_bot: boolean;
  deleted: boolean;
  tz: string;
}

export type Fault =
  /** HTTP 429; Slack always includes Retry-After (seconds), default 1. */
  | { status: 429; retryAfter?: number }
  /** Any other HTTP status (5xx etc.), with an optional raw body. */
  | { status: number; retryAfter?: number; body?: string }
  /** HTTP 200 with `{ ok: false, error }`, e.g. 'ratelimited', 'channel_not_found'. */
  | { error: string };

export interface FakeSlackOptions {
  /** The bot token the fake accepts; default FAKE_BOT_TOKEN. */
  botToken?: string;
  /** More tokens to accept (e.g. a user token). */
  extraTokens?: string[];
  /** Usergroup id → member user ids, for usergroups.users.list. */
  usergroups?: Record<string, string[]>;
  /** Users known to users.info; other ids that look like user ids get a synthesised profile. */
  users?: Record<string, Partial<FakeUser>>;
  /** When set, only these channels exist (others → channel_not_found). */
  channels?: string[];
  /** Trigger ids views.open treats as expired; 'all' makes every views.open fail with expired_trigger_id. */
  expiredTriggerIds?: 'all' | string[];
  /** First ts handed out; later ones increase by 100µs. Default '1726133700.000100'. */
  firstTs?: string;
  /** Check Block Kit limits (text lengths, element counts, duplicate ids) like Slack. Default true. */
  validateBlocks?: boolean;
  /** Scopes reported in the x-oauth-scopes header. */
  scopes?: string[];
  /** The app-level token apps.connections.open accepts; default FAKE_APP_TOKEN. */
  appToken?: string;
}

export interface WaitForOptions {
  timeoutMs?: number;
}

/** One WebSocket a Socket Mode client opened with a ticket from apps.connections.open. */
export interface SocketConnection {
  /** 1, 2, … in opening order; never reused, even across reset(). */
  id: number;
  ticket: string;
  openedAt: number;
  /** Set once the socket is gone, whichever side closed it. */
  closedAt?: number;
  closeCode?: number;
}

/** What the client sent back for an envelope; Slack redelivers events it sees no ack for. */
export interface SocketAck {
  envelope_id: string;
  payload?: unknown;
  /** Id of the connection the ack came over. */
  connection: number;
  at: number;
  /** Time since the envelope was pushed; undefined for an id this fake never sent. */
  elapsedMs: number | undefined;
}

export interface SocketEventOptions {
  envelopeId?: string;
  /** A redelivery is a new envelope carrying the same event_id with retry_attempt counting up. */
  retryAttempt?: number;
  retryReason?: string;
}

export interface FakeSocketMode {
  readonly connections: SocketConnection[];
  readonly acks: SocketAck[];
  /** Pushes a raw envelope to one open connection (the newest unless `connection` is given); returns its envelope_id. */
  send(envelope: Record<string, unknown>, connection?: number): string;
  /** Wraps an Events API body (`event_callback`) in an `events_api` envelope and pushes it. */
  event(body: object, options?: SocketEventOptions): string;
  /** Wraps an interactivity payload (block_actions, view_submission, …) in an `interactive` envelope and pushes it. */
  interaction(payload: object, options?: { envelopeId?: string }): string;
  /** Tells every open connection to go away, as Slack does before recycling the host behind it. */
  disconnect(reason?: 'refresh_requested' | 'warning' | 'link_disabled'): void;
  /** Resolves with the ack (past or future) for `envelopeId`. */
  waitForAck(envelopeId: string, options?: WaitForOptions): Promise<SocketAck>;
  /** Resolves with the first connection (past or future) with an id above `after` that has been sent its hello. */
  waitForConnection(options?: WaitForOptions & { after?: number }): Promise<SocketConnection>;
  /** Resolves once connection `id` is closed. */
  waitForClose(id: number, options?: WaitForOptions): Promise<SocketConnection>;
}

export interface ResponseUrlTarget {
  channel: string;
  /** The message the interaction came from; `replace_original`/`delete_original` act on it. */
  messageTs?: string;
  /** Who clicked: ephemeral responses go to them. */
  user?: string;
  threadTs?: string;
}

export interface FakeSlack {
  /** Base for `slackApiUrl`; ends with '/api/'. */
  readonly apiUrl: string;
  /** http://127.0.0.1:<port> */
  readonly origin: string;
  readonly port: number;
  readonly botToken: string;
  readonly appToken: string;
  /** The Socket Mode side: connections, envelopes pushed, acks received. */
  readonly socket: FakeSocketMode;
  /** Snapshot of every request, in arrival order. */
  readonly calls: RecordedCall[];
  callsTo(method: string): RecordedCall[];
  /** Current messages (after updates/deletes), oldest first. With `threadTs`: the thread as conversations.replies returns it (root first, if stored). */
  messages(channel: string, threadTs?: string): StoredMessage[];
  message(channel: string, ts: string): StoredMessage | undefined;
  ephemerals(channel?: string): StoredEphemeral[];
  views(): StoredView[];
  view(id: string): StoredView | undefined;
  /** Put a message in place as if someone else had posted it (e.g. the thread root a human wrote). */
  seedMessage(message: { channel: string; text: string; user?: string; ts?: string; threadTs?: string; botId?: string; blocks?: unknown[] }): StoredMessage;
  setUsergroup(id: string, users: string[]): void;
  setExpiredTriggerIds(ids: 'all' | string[]): void;
  /** Make the next `times` calls to `method` fail; faults queue in order. */
  failNext(method: string, fault: Fault, times?: number): void;
  /** Hold the next `times` responses to `method` for `ms` before answering normally. */
  delayNext(method: string, ms: number, times?: number): void;
  /**
   * Handle and record the next call to `method` at once (its message exists, waitFor sees it),
   * but send the caller its response only when the returned function is called.
   */
  holdResponseNext(method: string): () => void;
  /** A response_url served by this fake, to put in interaction payloads. */
  responseUrl(target: ResponseUrlTarget): string;
  /** Resolves with the first recorded call (past or future) matching; a string matches the method. */
  waitFor(predicate: string | ((call: RecordedCall) => boolean), options?: WaitForOptions): Promise<RecordedCall>;
  /** Forget all state, calls and pending faults; keeps options and listeners. */
  reset(): void;
  close(): Promise<void>;
}

/** Slack reports failures as HTTP 200 `{ ok: false, error }`, sometimes with detail. */
class SlackApiError extends Error {
  constructor(
    readonly code: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(code);
  }
}

type Handler = (args: SlackArgs, ctx: { token: string }) => Record<string, unknown>;

/** WebClient JSON-stringifies nested values into form fields; these are the ones that carry JSON. */
const JSON_FORM_FIELDS = new Set(['blocks', 'attachments', 'view', 'metadata', 'unfurls', 'user_auth_blocks']);

const DEFAULT_SCOPES = [
  'app_mentions:read',
  'channels:history',
  'chat:write',
  'groups:history',
  'im:history',
  'im:write',
  'reactions:write',
  'usergroups:read',
  'users:read',
];

// ---------------------------------------------------------------------------------------------
// ts arithmetic: Slack timestamps are "<seconds>.<6-digit micros>" and order numerically
// ---------------------------------------------------------------------------------------------

function tsToMicros(ts: string): bigint {
  const [sec = '0', frac = ''] = ts.split('.');
  return BigInt(sec) * 1_000_000n + BigInt(frac.padEnd(6, '0').slice(0, 6) || '0');
}

function microsToTs(micros: bigint): string {
  return `${micros / 1_000_000n}.${String(micros % 1_000_000n).padStart(6, '0')}`;
}

function compareTs(a: string, b: string): number {
  const d = tsToMicros(a) - tsToMicros(b);
  return d < 0n ? -1 : d > 0n ? 1 : 0;
}

const TS_STEP = 100n;

// ---------------------------------------------------------------------------------------------
// Argument helpers
// ---------------------------------------------------------------------------------------------

function optString(args: SlackArgs, key: string): string | undefined {
  const v = args[key];
  if (v === undefined || v === null || v === '') return undefined;
  return typeof v === 'string' ? v : String(v);
}

function reqString(args: SlackArgs, key: string): string {
  const v = optString(args, key);
  if (v === undefined) {
    throw new SlackApiError('invalid_arguments', {
      response_metadata: { messages: [`[ERROR] missing required field: ${key}`] },
    });
  }
  return v;
}

function truthy(v: unknown): boolean {
  return v === true || v === 'true' || v === '1' || v === 1;
}

// ---------------------------------------------------------------------------------------------
// Block Kit validation: the subset of Slack's checks that approval messages can plausibly trip
// ---------------------------------------------------------------------------------------------

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function textOf(v: unknown): string | undefined {
  return isObj(v) && typeof v.text === 'string' ? v.text : undefined;
}

function validateBlocks(blocks: unknown[]): string[] {
  const errors: string[] = [];
  const fail = (msg: string, pointer: string) => errors.push(`${msg} [json-pointer:${pointer}]`);
  const maxLen = (v: unknown, max: number, pointer: string) => {
    if (typeof v === 'string' && v.length > max) fail(`must be less than ${max + 1} characters`, pointer);
  };
  const blockIds = new Set<string>();
  let markdownChars = 0;

  const checkOption = (opt: unknown, p: string) => {
    if (!isObj(opt)) {
      fail('must be an object', p);
      return;
    }
    maxLen(textOf(opt.text), 75, `${p}/text/text`);
    maxLen(opt.value, 150, `${p}/value`);
    maxLen(textOf(opt.description), 75, `${p}/description/text`);
  };

  const checkElement = (el: unknown, p: string, actionIds: Set<string>) => {
    if (!isObj(el) || typeof el.type !== 'string') {
      fail('must provide an element type', p);
      return;
    }
    if (typeof el.action_id === 'string') {
      maxLen(el.action_id, 255, `${p}/action_id`);
      if (actionIds.has(el.action_id)) fail(`duplicate action_id ${el.action_id}`, `${p}/action_id`);
      actionIds.add(el.action_id);
    }
    switch (el.type) {
      case 'button':
        if (textOf(el.text) === undefined) fail('must provide text', `${p}/text`);
        maxLen(textOf(el.text), 75, `${p}/text/text`);
        maxLen(el.value, 2000, `${p}/value`);
        maxLen(el.url, 3000, `${p}/url`);
        break;
      case 'static_select':
      case 'multi_static_select':
      case 'overflow':
      case 'checkboxes':
      case 'radio_buttons': {
        const max = el.type === 'static_select' || el.type === 'multi_static_select' ? 100 : el.type === 'overflow' ? 5 : 10;
        if (Array.isArray(el.options)) {
          if (el.options.length > max) fail(`must provide no more than ${max} items`, `${p}/options`);
          el.options.forEach((o, i) => checkOption(o, `${p}/options/${i}`));
        } else if (!Array.isArray(el.option_groups)) {
          fail('must provide options', `${p}/options`);
        }
        break;
      }
      case 'plain_text_input':
        maxLen(el.initial_value, 3000, `${p}/initial_value`);
        break;
    }
  };

  blocks.forEach((block, i) => {
    const p = `/blocks/${i}`;
    if (!isObj(block) || typeof block.type !== 'string') {
      fail('must provide a block type', p);
      return;
    }
    if (block.block_id !== undefined) {
      if (typeof block.block_id !== 'string') fail('must be a string', `${p}/block_id`);
      else {
        maxLen(block.block_id, 255, `${p}/block_id`);
        if (blockIds.has(block.block_id)) fail(`duplicate block_id ${block.block_id}`, `${p}/block_id`);
        blockIds.add(block.block_id);
      }
    }
    const actionIds = new Set<string>();
    switch (block.type) {
      case 'section':
        if (block.text === undefined && block.fields === undefined) fail('must provide either text or fields', p);
        maxLen(textOf(block.text), 3000, `${p}/text/text`);
        if (Array.isArray(block.fields)) {
          if (block.fields.length > 10) fail('must provide no more than 10 items', `${p}/fields`);
          block.fields.forEach((f, j) => maxLen(textOf(f), 2000, `${p}/fields/${j}/text`));
        }
        if (block.accessory !== undefined) checkElement(block.accessory, `${p}/accessory`, actionIds);
        break;
      case 'header':
        if (!isObj(block.text) || block.text.type !== 'plain_text') fail('must be a plain_text object', `${p}/text`);
        maxLen(textOf(block.text), 150, `${p}/text/text`);
        break;
      case 'actions':
        if (!Array.isArray(block.elements) || block.elements.length === 0) fail('must provide at least 1 item', `${p}/elements`);
        else {
          if (block.elements.length > 25) fail('must provide no more than 25 items', `${p}/elements`);
          block.elements.forEach((el, j) => checkElement(el, `${p}/elements/${j}`, actionIds));
        }
        break;
      case 'context':
        if (!Array.isArray(block.elements) || block.elements.length === 0) fail('must provide at least 1 item', `${p}/elements`);
        else if (block.elements.length > 10) fail('must provide no more than 10 items', `${p}/elements`);
        break;
      case 'input':
        if (block.element !== undefined) checkElement(block.element, `${p}/element`, actionIds);
        maxLen(textOf(block.label), 2000, `${p}/label/text`);
        break;
      case 'markdown':
        if (typeof block.text === 'string') markdownChars += block.text.length;
        break;
    }
  });
  if (markdownChars > 12_000) fail('markdown blocks must total no more than 12000 characters', '/blocks');
  return errors;
}

function invalidBlocks(errors: string[]): SlackApiError {
  return new SlackApiError('invalid_blocks', {
    errors,
    response_metadata: { messages: errors.map((e) => `[ERROR] ${e}`) },
  });
}

// ---------------------------------------------------------------------------------------------
// The server
// ---------------------------------------------------------------------------------------------

/** Everything the fake stores or hands out is JSON (it came from or goes to the wire); a JSON round trip copies it several times faster than structuredClone. */
function clone<T>(v: T): T {
  return v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T);
}

function randomHex(bytes: number): string {
  return randomBytes(bytes).toString('hex');
}

const TRIGGER_ID = /^\d+\.\d+\.[0-9a-f]+$/;

export async function startFakeSlack(options: FakeSlackOptions = {}): Promise<FakeSlack> {
  const botToken = options.botToken ?? FAKE_BOT_TOKEN;
  const appToken = options.appToken ?? FAKE_APP_TOKEN;
  const tokens = new Set([botToken, ...(options.extraTokens ?? [])]);
  const scopes = (options.scopes ?? DEFAULT_SCOPES).join(',');
  const checkBlocks = options.validateBlocks ?? true;
  const knownChannels = options.channels ? new Set(options.channels) : undefined;
  const firstMicros = tsToMicros(options.firstTs ?? '1726133700.000100');

  const emitter = new EventEmitter();
  // waitFor may have many concurrent listeners in a busy test; none of them leak past their timeout.
  emitter.setMaxListeners(0);

  let calls: RecordedCall[] = [];
  let messagesByChannel = new Map<string, StoredMessage[]>();
  let ephemerals: StoredEphemeral[] = [];
  let views = new Map<string, StoredView>();
  let usedTriggers = new Set<string>();
  let faults = new Map<string, Fault[]>();
  let delays = new Map<string, number[]>();
  let responseHolds = new Map<string, Array<Promise<void>>>();
  let responseTargets = new Map<string, ResponseUrlTarget>();
  let nextMicros = firstMicros;
  let viewCounter = 0;
  let usergroups = new Map(Object.entries(options.usergroups ?? {}).map(([k, v]) => [k, [...v]]));
  let expiredTriggers: 'all' | Set<string> =
    options.expiredTriggerIds === 'all' ? 'all' : new Set(options.expiredTriggerIds ?? []);

  function nextTs(): string {
    const ts = microsToTs(nextMicros);
    nextMicros += TS_STEP;
    return ts;
  }

  function channelMessages(channel: string): StoredMessage[] {
    let list = messagesByChannel.get(channel);
    if (!list) {
      list = [];
      messagesByChannel.set(channel, list);
    }
    return list;
  }

  function findMessage(channel: string, ts: string): StoredMessage | undefined {
    return messagesByChannel.get(channel)?.find((m) => m.ts === ts);
  }

  /** Posting to a user id lands in the DM with them, as on Slack. */
  function resolveChannel(channel: string): string {
    if (/^[UW][A-Z0-9]+$/.test(channel)) return `D${channel.slice(1)}`;
    if (knownChannels && !knownChannels.has(channel) && !channel.startsWith('D')) {
      throw new SlackApiError('channel_not_found');
    }
    return channel;
  }

  function insertMessage(message: StoredMessage): void {
    const list = channelMessages(message.channel);
    list.push(message);
    list.sort((a, b) => compareTs(a.ts, b.ts));
    if (tsToMicros(message.ts) >= nextMicros) nextMicros = tsToMicros(message.ts) + TS_STEP;
    if (message.thread_ts !== undefined && message.thread_ts !== message.ts) {
      const parent = findMessage(message.channel, message.thread_ts);
      if (parent) {
        parent.thread_ts = parent.ts;
        parent.reply_count = (parent.reply_count ?? 0) + 1;
        const author = message.user ?? message.bot_id;
        const users = new Set(parent.reply_users ?? []);
        if (author !== undefined) users.add(author);
        parent.reply_users = [...users];
        parent.reply_users_count = users.size;
        parent.latest_reply = message.ts;
        message.parent_user_id ??= parent.user;
      }
    }
  }

  /** Parses and checks message content shared by postMessage, update and postEphemeral. */
  function messageContent(args: SlackArgs, requireContent: boolean): { text?: string; blocks?: unknown[]; attachments?: unknown[] } {
    const out: { text?: string; blocks?: unknown[]; attachments?: unknown[] } = {};
    const text = optString(args, 'text');
    if (text !== undefined) {
      if (text.length > SLACK_LIMITS.textChars) throw new SlackApiError('msg_too_long');
      out.text = text;
    }
    if (args.blocks !== undefined && args.blocks !== '') {
      if (!Array.isArray(args.blocks)) throw new SlackApiError('invalid_blocks_format');
      if (args.blocks.length > SLACK_LIMITS.blocksPerMessage) {
        throw invalidBlocks([`must provide no more than ${SLACK_LIMITS.blocksPerMessage} items [json-pointer:/blocks]`]);
      }
      if (JSON.stringify(args.blocks).length > SLACK_LIMITS.blocksJsonChars) throw new SlackApiError('msg_blocks_too_long');
      if (checkBlocks) {
        const errors = validateBlocks(args.blocks);
        if (errors.length > 0) throw invalidBlocks(errors);
      }
      out.blocks = args.blocks;
    }
    if (Array.isArray(args.attachments)) out.attachments = args.attachments;
    if (requireContent && out.text === undefined && out.blocks === undefined && out.attachments === undefined) {
      throw new SlackApiError('no_text');
    }
    return out;
  }

  function botMessage(channel: string, ts: string): StoredMessage {
    return { type: 'message', channel, ts, text: '', user: SLACK_IDS.botUserId, bot_id: SLACK_IDS.botId, app_id: SLACK_IDS.appId, team: SLACK_IDS.teamId };
  }

  /** What Slack returns as `message` in API responses: no `channel` key. */
  function wireMessage(m: StoredMessage): Record<string, unknown> {
    const { channel: _channel, ...rest } = clone(m);
    return rest;
  }

  function userProfile(id: string): FakeUser {
    const known = options.users?.[id];
    const name = known?.name ?? id.toLowerCase();
    return {
      id,
      name,
      real_name: known?.real_name ?? name,
      is_bot: known?.is_bot ?? id === SLACK_IDS.botUserId,
      deleted: known?.deleted ?? false,
      tz: known?.tz ?? 'Europe/Berlin',
    };
  }

  function newViewId(): string {
    viewCounter += 1;
    return `V0VIEW${String(viewCounter).padStart(5, '0')}`;
  }

  function newHash(): string {
    return `${Math.floor(Date.now() / 1000)}.${randomHex(4)}`;
  }

  function parseView(args: SlackArgs): Obj {
    const view = args.view;
    if (!isObj(view)) throw new SlackApiError('invalid_arguments', { response_metadata: { messages: ['[ERROR] missing required field: view'] } });
    const errors: string[] = [];
    if (typeof view.type !== 'string') errors.push('[ERROR] missing required field: type [json-pointer:/view/type]');
    const title = textOf(view.title);
    if (view.type === 'modal' && title === undefined) errors.push('[ERROR] missing required field: title [json-pointer:/view/title]');
    if (title !== undefined && title.length > SLACK_LIMITS.viewTitleChars) {
      errors.push(`[ERROR] must be less than ${SLACK_LIMITS.viewTitleChars + 1} characters [json-pointer:/view/title/text]`);
    }
    if (!Array.isArray(view.blocks)) errors.push('[ERROR] missing required field: blocks [json-pointer:/view/blocks]');
    else {
      if (view.blocks.length > SLACK_LIMITS.blocksPerView) errors.push(`[ERROR] must provide no more than ${SLACK_LIMITS.blocksPerView} items [json-pointer:/view/blocks]`);
      if (checkBlocks) errors.push(...validateBlocks(view.blocks).map((e) => `[ERROR] ${e.replace('json-pointer:/blocks', 'json-pointer:/view/blocks')}`));
    }
    if (typeof view.private_metadata === 'string' && view.private_metadata.length > SLACK_LIMITS.privateMetadataChars) {
      errors.push(`[ERROR] must be less than ${SLACK_LIMITS.privateMetadataChars + 1} characters [json-pointer:/view/private_metadata]`);
    }
    if (errors.length > 0) throw new SlackApiError('invalid_arguments', { response_metadata: { messages: errors } });
    return view;
  }

  function buildView(view: Obj, id: string, previous: StoredView | undefined, previousViewId: string | null): StoredView {
    return {
      id,
      team_id: SLACK_IDS.teamId,
      type: String(view.type),
      blocks: clone(view.blocks as unknown[]),
      private_metadata: typeof view.private_metadata === 'string' ? view.private_metadata : '',
      callback_id: typeof view.callback_id === 'string' ? view.callback_id : '',
      state: previous?.state ?? { values: {} },
      hash: newHash(),
      title: clone(view.title),
      clear_on_close: truthy(view.clear_on_close),
      notify_on_close: truthy(view.notify_on_close),
      close: view.close === undefined ? null : clone(view.close),
      submit: view.submit === undefined ? null : clone(view.submit),
      previous_view_id: previousViewId,
      root_view_id: previous?.root_view_id ?? id,
      app_id: SLACK_IDS.appId,
      external_id: typeof view.external_id === 'string' ? view.external_id : (previous?.external_id ?? ''),
      app_installed_team_id: SLACK_IDS.teamId,
      bot_id: SLACK_IDS.botId,
    };
  }

  function consumeTrigger(args: SlackArgs): void {
    const trigger = reqString(args, 'trigger_id');
    if (!TRIGGER_ID.test(trigger)) throw new SlackApiError('invalid_trigger_id');
    if (expiredTriggers === 'all' || expiredTriggers.has(trigger)) throw new SlackApiError('expired_trigger_id');
    if (usedTriggers.has(trigger)) throw new SlackApiError('exchanged_trigger_id');
    usedTriggers.add(trigger);
  }

  function threadOf(channel: string, threadTs: string): StoredMessage[] {
    return (messagesByChannel.get(channel) ?? []).filter((m) => m.ts === threadTs || m.thread_ts === threadTs);
  }

  /** Cursor pagination the way WebClient.paginate expects it: empty next_cursor ends the walk. */
  function page<T>(items: T[], args: SlackArgs): { items: T[]; has_more: boolean; next_cursor: string } {
    const limit = Math.max(1, Math.min(1000, Number(optString(args, 'limit') ?? 1000)));
    const cursor = optString(args, 'cursor');
    const start = cursor ? Number(Buffer.from(cursor, 'base64').toString('utf8').replace(/^offset:/, '')) : 0;
    if (!Number.isInteger(start) || start < 0) throw new SlackApiError('invalid_cursor');
    const slice = items.slice(start, start + limit);
    const more = start + limit < items.length;
    return { items: slice, has_more: more, next_cursor: more ? Buffer.from(`offset:${start + limit}`).toString('base64') : '' };
  }

  const handlers: Record<string, Handler> = {
    'api.test': (args) => ({ ok: true, args: clone(args) }),

    'auth.test': () => ({
      ok: true,
      url: `https://${SLACK_IDS.teamDomain}.slack.com/`,
      team: SLACK_IDS.teamName,
      user: SLACK_IDS.botName,
      team_id: SLACK_IDS.teamId,
      user_id: SLACK_IDS.botUserId,
      bot_id: SLACK_IDS.botId,
      is_enterprise_install: false,
    }),

    'chat.postMessage': (args) => {
      const channel = resolveChannel(reqString(args, 'channel'));
      const content = messageContent(args, true);
      const threadTs = optString(args, 'thread_ts');
      if (threadTs !== undefined && !/^\d+\.\d+$/.test(threadTs)) throw new SlackApiError('invalid_thread_ts');
      const message: StoredMessage = { ...botMessage(channel, nextTs()), text: content.text ?? '' };
      if (content.blocks) message.blocks = clone(content.blocks);
      if (content.attachments) message.attachments = clone(content.attachments);
      if (args.metadata !== undefined) message.metadata = clone(args.metadata);
      if (threadTs !== undefined) message.thread_ts = threadTs;
      insertMessage(message);
      return { ok: true, channel, ts: message.ts, message: wireMessage(message) };
    },

    'chat.update': (args) => {
      const channel = resolveChannel(reqString(args, 'channel'));
      const ts = reqString(args, 'ts');
      const content = messageContent(args, false);
      const message = findMessage(channel, ts);
      if (!message) throw new SlackApiError('message_not_found');
      if (message.bot_id !== SLACK_IDS.botId) throw new SlackApiError('cant_update_message');
      if (content.text !== undefined) message.text = content.text;
      if (content.blocks !== undefined) message.blocks = clone(content.blocks);
      if (content.attachments !== undefined) message.attachments = clone(content.attachments);
      if (args.metadata !== undefined) message.metadata = clone(args.metadata);
      message.edited = { user: SLACK_IDS.botUserId, ts: microsToTs((BigInt(Date.now()) / 1000n) * 1_000_000n) };
      return { ok: true, channel, ts, text: message.text, message: wireMessage(message) };
    },

    'chat.postEphemeral': (args) => {
      const channel = resolveChannel(reqString(args, 'channel'));
      const user = reqString(args, 'user');
      const content = messageContent(args, true);
      const ephemeral: StoredEphemeral = { channel, user, message_ts: nextTs(), text: content.text ?? '' };
      if (content.blocks) ephemeral.blocks = clone(content.blocks);
      const threadTs = optString(args, 'thread_ts');
      if (threadTs !== undefined) ephemeral.thread_ts = threadTs;
      ephemerals.push(ephemeral);
      return { ok: true, message_ts: ephemeral.message_ts };
    },

    'chat.delete': (args) => {
      const channel = resolveChannel(reqString(args, 'channel'));
      const ts = reqString(args, 'ts');
      const list = messagesByChannel.get(channel) ?? [];
      const index = list.findIndex((m) => m.ts === ts);
      if (index < 0) throw new SlackApiError('message_not_found');
      if (list[index]?.bot_id !== SLACK_IDS.botId) throw new SlackApiError('cant_delete_message');
      list.splice(index, 1);
      return { ok: true, channel, ts };
    },

    'chat.getPermalink': (args) => {
      const channel = resolveChannel(reqString(args, 'channel'));
      const ts = reqString(args, 'message_ts');
      const message = findMessage(channel, ts);
      if (!message) throw new SlackApiError('message_not_found');
      const base = `https://${SLACK_IDS.teamDomain}.slack.com/archives/${channel}/p${ts.replace('.', '')}`;
      const permalink = message.thread_ts && message.thread_ts !== ts ? `${base}?thread_ts=${message.thread_ts}&cid=${channel}` : base;
      return { ok: true, channel, permalink };
    },

    'reactions.add': (args) => {
      const channel = resolveChannel(reqString(args, 'channel'));
      const ts = reqString(args, 'timestamp');
      const name = reqString(args, 'name');
      const message = findMessage(channel, ts);
      if (!message) throw new SlackApiError('message_not_found');
      const reactions = (message.reactions ??= []);
      let reaction = reactions.find((r) => r.name === name);
      if (reaction?.users.includes(SLACK_IDS.botUserId)) throw new SlackApiError('already_reacted');
      if (!reaction) {
        reaction = { name, users: [], count: 0 };
        reactions.push(reaction);
      }
      reaction.users.push(SLACK_IDS.botUserId);
      reaction.count += 1;
      return { ok: true };
    },

    'reactions.remove': (args) => {
      const channel = resolveChannel(reqString(args, 'channel'));
      const ts = reqString(args, 'timestamp');
      const name = reqString(args, 'name');
      const message = findMessage(channel, ts);
      if (!message) throw new SlackApiError('message_not_found');
      const reaction = message.reactions?.find((r) => r.name === name);
      if (!reaction || !reaction.users.includes(SLACK_IDS.botUserId)) throw new SlackApiError('no_reaction');
      reaction.users = reaction.users.filter((u) => u !== SLACK_IDS.botUserId);
      reaction.count -= 1;
      if (reaction.count === 0) message.reactions = message.reactions?.filter((r) => r !== reaction);
      if (message.reactions?.length === 0) delete message.reactions;
      return { ok: true };
    },

    'views.open': (args) => {
      const view = parseView(args);
      consumeTrigger(args);
      const stored = buildView(view, newViewId(), undefined, null);
      views.set(stored.id, stored);
      return { ok: true, view: clone(stored) };
    },

    'views.push': (args) => {
      const view = parseView(args);
      consumeTrigger(args);
      const current = [...views.values()].at(-1);
      const stored = buildView(view, newViewId(), undefined, current?.id ?? null);
      if (current) stored.root_view_id = current.root_view_id;
      views.set(stored.id, stored);
      return { ok: true, view: clone(stored) };
    },

    'views.update': (args) => {
      const view = parseView(args);
      const viewId = optString(args, 'view_id');
      const externalId = optString(args, 'external_id');
      if (viewId === undefined && externalId === undefined) {
        throw new SlackApiError('invalid_arguments', { response_metadata: { messages: ['[ERROR] missing required field: view_id or external_id'] } });
      }
      const existing = viewId !== undefined ? views.get(viewId) : [...views.values()].find((v) => v.external_id === externalId);
      if (!existing) throw new SlackApiError('not_found');
      const hash = optString(args, 'hash');
      if (hash !== undefined && hash !== existing.hash) throw new SlackApiError('hash_conflict');
      const stored = buildView(view, existing.id, existing, existing.previous_view_id);
      views.set(stored.id, stored);
      return { ok: true, view: clone(stored) };
    },

    'usergroups.users.list': (args) => {
      const id = reqString(args, 'usergroup');
      const users = usergroups.get(id);
      if (!users) throw new SlackApiError('no_such_subteam');
      return { ok: true, users: [...users] };
    },

    'conversations.replies': (args) => {
      const channel = resolveChannel(reqString(args, 'channel'));
      const ts = reqString(args, 'ts');
      const thread = threadOf(channel, ts);
      if (thread.length === 0) throw new SlackApiError('thread_not_found');
      const p = page(thread.map(wireMessage), args);
      return { ok: true, messages: p.items, has_more: p.has_more, response_metadata: { next_cursor: p.next_cursor } };
    },

    'conversations.history': (args) => {
      const channel = resolveChannel(reqString(args, 'channel'));
      const topLevel = (messagesByChannel.get(channel) ?? []).filter((m) => m.thread_ts === undefined || m.thread_ts === m.ts);
      const p = page([...topLevel].reverse().map(wireMessage), args);
      return { ok: true, messages: p.items, has_more: p.has_more, response_metadata: { next_cursor: p.next_cursor } };
    },

    'conversations.open': (args) => {
      const users = reqString(args, 'users').split(',').map((u) => u.trim()).filter(Boolean);
      const [first] = users;
      if (first === undefined) throw new SlackApiError('users_list_not_supplied');
      const id = users.length === 1 ? `D${first.slice(1)}` : `G${randomHex(5).toUpperCase()}`;
      return { ok: true, channel: { id } };
    },

    'users.info': (args) => {
      const id = reqString(args, 'user');
      if (!options.users?.[id] && !/^[UW][A-Z0-9]{2,}$/.test(id)) throw new SlackApiError('user_not_found');
      const u = userProfile(id);
      return {
        ok: true,
        user: {
          id: u.id,
          team_id: SLACK_IDS.teamId,
          name: u.name,
          deleted: u.deleted,
          real_name: u.real_name,
          tz: u.tz,
          is_bot: u.is_bot,
          is_app_user: false,
          profile: { real_name: u.real_name, display_name: u.name, team: SLACK_IDS.teamId },
        },
      };
    },
  };

  // -------------------------------------------------------------------------------------------

  function parseBody(raw: string, contentType: string, query: URLSearchParams): SlackArgs {
    const args: SlackArgs = {};
    for (const [k, v] of query) args[k] = v;
    if (raw.length === 0) return args;
    if (contentType.includes('application/json')) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(raw);
      } catch {
        throw new SlackApiError('invalid_json');
      }
      if (!isObj(parsed)) throw new SlackApiError('invalid_json');
      return { ...args, ...parsed };
    }
    for (const [k, v] of new URLSearchParams(raw)) {
      if (JSON_FORM_FIELDS.has(k)) {
        try {
          args[k] = JSON.parse(v);
        } catch {
          args[k] = v;
        }
      } else {
        args[k] = v;
      }
    }
    return args;
  }

  function tokenFrom(req: IncomingMessage, args: SlackArgs): string | undefined {
    const header = req.headers.authorization;
    if (header !== undefined) {
      const match = /^Bearer\s+(.+)$/i.exec(header.trim());
      return match?.[1];
    }
    return typeof args.token === 'string' && args.token !== '' ? args.token : undefined;
  }

  function record(call: RecordedCall): void {
    calls.push(call);
    emitter.emit('call', call);
  }

  function send(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'x-oauth-scopes': scopes, ...headers });
    res.end(body);
  }

  function takeQueued<T>(map: Map<string, T[]>, method: string): T | undefined {
    const queue = map.get(method);
    const item = queue?.shift();
    if (queue && queue.length === 0) map.delete(method);
    return item;
  }

  function handleResponseUrl(path: string, args: SlackArgs): Record<string, unknown> {
    const target = responseTargets.get(path);
    if (!target) throw new SlackApiError('no_such_response_url');
    const content = messageContent(args, !truthy(args.delete_original));
    if (truthy(args.delete_original)) {
      const list = messagesByChannel.get(target.channel) ?? [];
      const index = list.findIndex((m) => m.ts === target.messageTs);
      if (index >= 0) list.splice(index, 1);
      return { ok: true };
    }
    if (truthy(args.replace_original) && target.messageTs !== undefined) {
      const message = findMessage(target.channel, target.messageTs);
      if (!message) throw new SlackApiError('message_not_found');
      if (content.text !== undefined) message.text = content.text;
      message.blocks = content.blocks ? clone(content.blocks) : [];
      return { ok: true };
    }
    // response_type defaults to ephemeral: only the clicker sees it.
    if (args.response_type === 'in_channel') {
      const message: StoredMessage = { ...botMessage(target.channel, nextTs()), text: content.text ?? '' };
      if (content.blocks) message.blocks = clone(content.blocks);
      if (target.threadTs !== undefined) message.thread_ts = target.threadTs;
      insertMessage(message);
    } else {
      const ephemeral: StoredEphemeral = { channel: target.channel, user: target.user ?? '', message_ts: nextTs(), text: content.text ?? '' };
      if (content.blocks) ephemeral.blocks = clone(content.blocks);
      if (target.threadTs !== undefined) ephemeral.thread_ts = target.threadTs;
      ephemerals.push(ephemeral);
    }
    return { ok: true };
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const at = Date.now();
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const contentType = req.headers['content-type'] ?? '';

    const isApi = url.pathname.startsWith('/api/');
    const isResponseUrl = url.pathname.startsWith('/actions/');
    if (!isApi && !isResponseUrl) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found');
      return;
    }
    const method = isApi ? decodeURIComponent(url.pathname.slice('/api/'.length)) : 'response_url';

    let args: SlackArgs = {};
    let token: string | undefined;
    let status = 200;
    let response: Record<string, unknown> | undefined;
    let rawResponse: string | undefined;
    let extraHeaders: Record<string, string> = {};
    try {
      args = parseBody(raw, contentType, url.searchParams);
      token = isApi ? tokenFrom(req, args) : undefined;
      delete args.token;

      const delay = takeQueued(delays, method);
      if (delay !== undefined) await new Promise((r) => setTimeout(r, delay));

      const fault = takeQueued(faults, method);
      if (fault && 'status' in fault) {
        status = fault.status;
        if (fault.status === 429 || fault.retryAfter !== undefined) {
          extraHeaders = { 'retry-after': String(fault.retryAfter ?? 1) };
        }
        if (fault.status === 429) response = { ok: false, error: 'ratelimited' };
        else rawResponse = 'body' in fault && fault.body !== undefined ? fault.body : `fake slack: injected HTTP ${fault.status}`;
      } else if (fault) {
        response = { ok: false, error: fault.error };
      } else if (isResponseUrl) {
        response = handleResponseUrl(url.pathname, args);
      } else if (token === undefined) {
        response = { ok: false, error: 'not_authed' };
      } else if (method === 'apps.connections.open' || token.startsWith('xapp-')) {
        response = appLevelCall(method, token);
      } else if (!tokens.has(token)) {
        response = { ok: false, error: 'invalid_auth' };
      } else {
        const handler = handlers[method];
        response = handler ? handler(args, { token }) : { ok: false, error: 'unknown_method' };
      }
    } catch (err) {
      if (err instanceof SlackApiError) response = { ok: false, error: err.code, ...err.extra };
      else {
        status = 500;
        rawResponse = `fake slack crashed: ${err instanceof Error ? err.stack : String(err)}`;
      }
    }

    // State is updated before the call is announced, so a resolved waitFor sees it.
    record({
      method,
      args,
      at,
      token,
      status,
      response: response ? clone(response) : undefined,
      ok: response?.ok === true,
      error: typeof response?.error === 'string' ? response.error : undefined,
      path: url.pathname,
    });
    const held = takeQueued(responseHolds, method);
    if (held) await held;
    if (rawResponse !== undefined) {
      res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', ...extraHeaders });
      res.end(rawResponse);
    } else {
      send(res, status, JSON.stringify(response), extraHeaders);
    }
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(String(err));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const origin = `http://127.0.0.1:${port}`;
  let responseUrlCounter = 0;

  // -------------------------------------------------------------------------------------------
  // Socket Mode: the WebSocket shares the Web API's port, upgraded only with a fresh ticket
  // -------------------------------------------------------------------------------------------

  const wss = new WebSocketServer({ noServer: true });
  const openSockets = new Map<number, WebSocket>();
  const tickets = new Set<string>();
  let connectionCounter = 0;
  let connections: SocketConnection[] = [];
  let acks: SocketAck[] = [];
  let envelopeSentAt = new Map<string, number>();

  function appLevelCall(method: string, token: string): Record<string, unknown> {
    if (token !== appToken) return { ok: false, error: token.startsWith('xapp-') ? 'invalid_auth' : 'not_allowed_token_type' };
    if (method !== 'apps.connections.open') return { ok: false, error: 'not_allowed_token_type' };
    const ticket = randomUUID();
    tickets.add(ticket);
    return { ok: true, url: `ws://127.0.0.1:${port}/link/?ticket=${ticket}&app_id=${SLACK_IDS.appId}` };
  }

  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const ticket = url.searchParams.get('ticket') ?? '';
    // A ticket is good for one connection, like Slack's: a client must call apps.connections.open again to reconnect.
    if (url.pathname !== '/link/' || !tickets.delete(ticket)) {
      socket.end('HTTP/1.1 401 Unauthorized\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      connectionCounter += 1;
      const connection: SocketConnection = { id: connectionCounter, ticket, openedAt: Date.now() };
      connections.push(connection);
      openSockets.set(connection.id, ws);
      ws.on('message', (data, isBinary) => {
        if (isBinary) return;
        let message: unknown;
        try {
          message = JSON.parse(data.toString());
        } catch {
          return;
        }
        if (!isObj(message) || typeof message.envelope_id !== 'string') return;
        const at = Date.now();
        const sentAt = envelopeSentAt.get(message.envelope_id);
        const ack: SocketAck = { envelope_id: message.envelope_id, connection: connection.id, at, elapsedMs: sentAt === undefined ? undefined : at - sentAt };
        if ('payload' in message) ack.payload = clone(message.payload);
        acks.push(ack);
        emitter.emit('socket');
      });
      ws.on('close', (code) => {
        openSockets.delete(connection.id);
        connection.closedAt = Date.now();
        connection.closeCode = code;
        emitter.emit('socket');
      });
      ws.send(
        JSON.stringify({
          type: 'hello',
          num_connections: openSockets.size,
          debug_info: { host: 'applink-fake', build_number: 1, approximate_connection_time: 18060 },
          connection_info: { app_id: SLACK_IDS.appId },
        }),
      );
      emitter.emit('socket');
    });
  });

  /** Resolves with the first non-undefined `find()`, checked now and after every socket event. */
  function waitForSocket<T>(find: () => T | undefined, what: string, timeoutMs = 5_000): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const check = () => {
        const found = find();
        if (found === undefined) return;
        cleanup();
        resolve(found);
      };
      const timer = setTimeout(() => {
        cleanup();
        const seen = connections.map((c) => `#${c.id}${c.closedAt === undefined ? ' open' : ` closed ${c.closeCode}`}`).join(', ') || 'none';
        reject(new Error(`fake Slack: no ${what} within ${timeoutMs}ms; connections: ${seen}; acks: ${acks.length}`));
      }, timeoutMs);
      function cleanup() {
        clearTimeout(timer);
        emitter.off('socket', check);
      }
      emitter.on('socket', check);
      check();
    });
  }

  const socket: FakeSocketMode = {
    get connections() {
      return clone(connections);
    },
    get acks() {
      return clone(acks);
    },
    send: (envelope, connectionId) => {
      const id = connectionId ?? Math.max(...openSockets.keys());
      const ws = openSockets.get(id);
      if (!ws) throw new Error(`fake Slack: no open Socket Mode connection${connectionId === undefined ? '' : ` #${connectionId}`} to send to`);
      const envelopeId = typeof envelope.envelope_id === 'string' ? envelope.envelope_id : randomUUID();
      envelopeSentAt.set(envelopeId, Date.now());
      ws.send(JSON.stringify({ envelope_id: envelopeId, ...envelope }));
      return envelopeId;
    },
    event: (body, o = {}) =>
      socket.send({
        envelope_id: o.envelopeId ?? randomUUID(),
        payload: body,
        type: 'events_api',
        accepts_response_payload: false,
        retry_attempt: o.retryAttempt ?? 0,
        retry_reason: o.retryReason ?? (o.retryAttempt ? 'timeout' : ''),
      }),
    interaction: (payload, o = {}) => {
      const type = (payload as { type?: unknown }).type;
      return socket.send({
        envelope_id: o.envelopeId ?? randomUUID(),
        payload,
        type: 'interactive',
        // Only interactions whose ack can carry a response (modal errors, options) say so.
        accepts_response_payload: type === 'view_submission' || type === 'block_suggestion',
      });
    },
    disconnect: (reason = 'refresh_requested') => {
      const message = JSON.stringify({ type: 'disconnect', reason, debug_info: { host: 'applink-fake' } });
      for (const ws of openSockets.values()) ws.send(message);
    },
    waitForAck: (envelopeId, { timeoutMs } = {}) =>
      waitForSocket(() => acks.find((a) => a.envelope_id === envelopeId), `ack for envelope ${envelopeId}`, timeoutMs).then(clone),
    waitForConnection: ({ after = 0, timeoutMs } = {}) =>
      waitForSocket(() => connections.find((c) => c.id > after), `Socket Mode connection after #${after}`, timeoutMs).then(clone),
    waitForClose: (id, { timeoutMs } = {}) =>
      waitForSocket(() => connections.find((c) => c.id === id && c.closedAt !== undefined), `close of connection #${id}`, timeoutMs).then(clone),
  };

  const fake: FakeSlack = {
    apiUrl: `${origin}/api/`,
    origin,
    port,
    botToken,
    appToken,
    socket,
    get calls() {
      return [...calls];
    },
    callsTo: (method) => calls.filter((c) => c.method === method),
    messages: (channel, threadTs) =>
      clone(threadTs === undefined ? (messagesByChannel.get(channel) ?? []) : threadOf(channel, threadTs)),
    message: (channel, ts) => {
      const m = findMessage(channel, ts);
      return m ? clone(m) : undefined;
    },
    ephemerals: (channel) => clone(channel === undefined ? ephemerals : ephemerals.filter((e) => e.channel === channel)),
    views: () => clone([...views.values()]),
    view: (id) => {
      const v = views.get(id);
      return v ? clone(v) : undefined;
    },
    seedMessage: (m) => {
      const message: StoredMessage = { type: 'message', channel: m.channel, ts: m.ts ?? nextTs(), text: m.text };
      if (m.user !== undefined) message.user = m.user;
      if (m.botId !== undefined) message.bot_id = m.botId;
      message.team = SLACK_IDS.teamId;
      if (m.blocks !== undefined) message.blocks = clone(m.blocks);
      if (m.threadTs !== undefined) message.thread_ts = m.threadTs;
      insertMessage(message);
      return clone(message);
    },
    setUsergroup: (id, users) => {
      usergroups.set(id, [...users]);
    },
    setExpiredTriggerIds: (ids) => {
      expiredTriggers = ids === 'all' ? 'all' : new Set(ids);
    },
    failNext: (method, fault, times = 1) => {
      const queue = faults.get(method) ?? [];
      for (let i = 0; i < times; i++) queue.push(fault);
      faults.set(method, queue);
    },
    delayNext: (method, ms, times = 1) => {
      const queue = delays.get(method) ?? [];
      for (let i = 0; i < times; i++) queue.push(ms);
      delays.set(method, queue);
    },
    holdResponseNext: (method) => {
      let release!: () => void;
      const queue = responseHolds.get(method) ?? [];
      queue.push(new Promise<void>((resolve) => (release = resolve)));
      responseHolds.set(method, queue);
      return release;
    },
    responseUrl: (target) => {
      responseUrlCounter += 1;
      const path = `/actions/${SLACK_IDS.teamId}/${String(responseUrlCounter).padStart(13, '0')}/${randomHex(12)}`;
      responseTargets.set(path, { ...target });
      return `${origin}${path}`;
    },
    waitFor: (predicate, { timeoutMs = 5_000 } = {}) => {
      const matches = typeof predicate === 'string' ? (c: RecordedCall) => c.method === predicate : predicate;
      return new Promise<RecordedCall>((resolve, reject) => {
        const check = (c: RecordedCall): boolean => {
          try {
            return matches(c);
          } catch (err) {
            cleanup();
            reject(err instanceof Error ? err : new Error(String(err)));
            return false;
          }
        };
        const onCall = (c: RecordedCall) => {
          if (check(c)) {
            cleanup();
            resolve(c);
          }
        };
        const timer = setTimeout(() => {
          cleanup();
          const seen = calls.map((c) => `${c.method}${c.ok ? '' : `(${c.error ?? c.status})`}`).join(', ') || 'none';
          reject(new Error(`fake Slack: no matching call within ${timeoutMs}ms; calls so far: ${seen}`));
        }, timeoutMs);
        function cleanup() {
          clearTimeout(timer);
          emitter.off('call', onCall);
        }
        emitter.on('call', onCall);
        const past = calls.find(check);
        if (past) {
          cleanup();
          resolve(past);
        }
      });
    },
    reset: () => {
      calls = [];
      messagesByChannel = new Map();
      ephemerals = [];
      views = new Map();
      usedTriggers = new Set();
      faults = new Map();
      delays = new Map();
      responseHolds = new Map();
      responseTargets = new Map();
      nextMicros = firstMicros;
      viewCounter = 0;
      usergroups = new Map(Object.entries(options.usergroups ?? {}).map(([k, v]) => [k, [...v]]));
      expiredTriggers = options.expiredTriggerIds === 'all' ? 'all' : new Set(options.expiredTriggerIds ?? []);
      connections = connections.filter((c) => c.closedAt === undefined);
      acks = [];
      envelopeSentAt = new Map();
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        // Upgraded sockets are no longer the HTTP server's to close; a live one would keep the process up.
        for (const ws of openSockets.values()) ws.terminate();
        wss.close();
        server.close((err) => (err ? reject(err) : resolve()));
        // Keep-alive sockets from fetch would otherwise hold close() open until they idle out.
        server.closeAllConnections();
      }),
  };
  return fake;
}
