/** The shapes the simulator stores, records and takes as options. */
import type { JsonObject } from './json.js';
import type { ResponseUrlTarget } from './response-urls.js';
import type { SlashCommandOptions } from './slash-command.js';
import type { Args } from './wire-args.js';

/** A Web API call's arguments, as read from the wire (wire-args.ts). */
export type SlackArgs = Args;

export interface RecordedCall {
  /** Web API method name, or 'response_url' for posts to one of the simulator's response URLs. */
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

interface StoredReaction {
  name: string;
  users: string[];
  count: number;
}

/** A message as Slack returns it from the API, plus the channel it lives in. */
export interface StoredMessage {
  type: 'message';
  channel: string;
  ts: string;
  text: string;
  user?: string;
  bot_id?: string;
  app_id?: string;
  bot_profile?: Record<string, unknown>;
  team?: string;
  subtype?: string;
  client_msg_id?: string;
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

export interface SimulatedUser {
  id: string;
  name: string;
  real_name: string;
  is_bot: boolean;
  deleted: boolean;
  tz: string;
  tz_label?: string;
  /** Seconds east of UTC. */
  tz_offset?: number;
  /** The person's team (default: the simulated workspace's): another is a Slack Connect partner. */
  team_id?: string;
}

export type Fault =
  /** HTTP 429; Slack always includes Retry-After (seconds), default 1. */
  | { status: 429; retryAfter?: number }
  /** Any other HTTP status (5xx etc.), with an optional raw body. */
  | { status: number; retryAfter?: number; body?: string }
  /** HTTP 200 with `{ ok: false, error }`, e.g. 'ratelimited', 'channel_not_found'. */
  | { error: string };

/** A method's rate limit as Slack applies it: about `perMinute` calls a minute, bursts of up to `burst`. */
export interface RateLimit {
  perMinute: number;
  /** Calls allowed at once after a quiet spell; default 1, i.e. calls evenly spaced. */
  burst?: number;
}

export interface SlackSimulatorOptions {
  /** The bot token the simulator accepts; default FAKE_BOT_TOKEN. */
  botToken?: string;
  /** More tokens to accept (e.g. a user token). */
  extraTokens?: string[];
  /** Usergroup id → member user ids, for usergroups.users.list. */
  usergroups?: Record<string, string[]>;
  /** Usergroup id → handle (without @), for usergroups.list; default the id in lower case. */
  usergroupHandles?: Record<string, string>;
  /** Users known to users.info; other ids that look like user ids get a synthesised profile. */
  users?: Record<string, Partial<SimulatedUser>>;
  /** When set, only these channels exist (others → channel_not_found). */
  channels?: string[];
  /** Channel id → member user ids, for conversations.members (a DM's members are its person and the bot). */
  channelMembers?: Record<string, string[]>;
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
  /** Listen on this port; default 0 (a free one). */
  port?: number;
  /** Receives the bot's own posts, edits and deletions as the message events Slack sends back. */
  echo?(envelope: JsonObject): void;
}

interface WaitForOptions {
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
  /** Time since the envelope was pushed; undefined for an id the simulator never sent. */
  elapsedMs: number | undefined;
}

interface SocketEventOptions {
  envelopeId?: string;
  /** A redelivery is a new envelope carrying the same event_id with retry_attempt counting up. */
  retryAttempt?: number;
  retryReason?: string;
}

export interface SocketModeSide {
  readonly connections: SocketConnection[];
  readonly acks: SocketAck[];
  /** Pushes a raw envelope to one open connection (the newest unless `connection` is given); returns its envelope_id. */
  send(envelope: Record<string, unknown>, connection?: number): string;
  /** Wraps an Events API body (`event_callback`) in an `events_api` envelope and pushes it. */
  event(body: object, options?: SocketEventOptions): string;
  /** Wraps an interactivity payload (block_actions, view_submission, …) in an `interactive` envelope and pushes it. */
  interaction(payload: object, options?: { envelopeId?: string }): string;
  /** Wraps a slash command in a `slash_commands` envelope and pushes it. */
  command(options: SlashCommandOptions, envelope?: { envelopeId?: string }): string;
  /** Tells every open connection to go away, as Slack does before recycling the host behind it. */
  disconnect(reason?: 'refresh_requested' | 'warning' | 'link_disabled'): void;
  /** Resolves with the ack (past or future) for `envelopeId`. */
  waitForAck(envelopeId: string, options?: WaitForOptions): Promise<SocketAck>;
  /** Resolves with the first connection (past or future) with an id above `after` that has been sent its hello. */
  waitForConnection(options?: WaitForOptions & { after?: number }): Promise<SocketConnection>;
  /** Resolves once connection `id` is closed. */
  waitForClose(id: number, options?: WaitForOptions): Promise<SocketConnection>;
}

export interface SlackSimulator {
  /** Base for `slackApiUrl`; ends with '/api/'. */
  readonly apiUrl: string;
  /** http://127.0.0.1:<port> */
  readonly origin: string;
  readonly port: number;
  readonly botToken: string;
  readonly appToken: string;
  /** The Socket Mode side: connections, envelopes pushed, acks received. */
  readonly socket: SocketModeSide;
  /** Snapshot of every request, in arrival order. */
  readonly calls: RecordedCall[];
  callsTo(method: string): RecordedCall[];
  /** Current messages (after updates/deletes), oldest first. With `threadTs`: the thread as conversations.replies returns it (root first, if stored). */
  messages(channel: string, threadTs?: string): StoredMessage[];
  message(channel: string, ts: string): StoredMessage | undefined;
  ephemerals(channel?: string): StoredEphemeral[];
  views(): StoredView[];
  view(id: string): StoredView | undefined;
  /** The App Home view published for `user` with views.publish, if any. */
  homeView(user: string): StoredView | undefined;
  /** The thread's assistant status as last set ('' once cleared; undefined if never set). */
  assistantStatus(channel: string, threadTs: string): string | undefined;
  /** Whether chat.startStream began the message and chat.stopStream has not ended it. */
  isStreaming(channel: string, ts: string): boolean;
  /** Put a message in place as if someone else had posted it (e.g. the thread root a human wrote). */
  seedMessage(message: { channel: string; text: string; user?: string; ts?: string; threadTs?: string; botId?: string; blocks?: unknown[] }): StoredMessage;
  setUsergroup(id: string, users: string[]): void;
  setExpiredTriggerIds(ids: 'all' | string[]): void;
  /** Make the next `times` calls to `method` fail; faults queue in order. */
  failNext(method: string, fault: Fault, times?: number): void;
  /** Make the `n`-th call to `method` from now (1 = the next one) fail, leaving the calls before it alone. */
  failCall(method: string, n: number, fault: Fault): void;
  /** Hold the next `times` responses to `method` for `ms` before answering normally. */
  delayNext(method: string, ms: number, times?: number): void;
  /**
   * Handle and record the next `times` calls to `method` (their effects happen) but never answer:
   * the connection is cut, as when Slack's response is lost on the way back.
   */
  dropResponseNext(method: string, times?: number): void;
  /**
   * Handle and record the next call to `method` at once (its message exists, waitFor sees it),
   * but send the caller its response only when the returned function is called.
   */
  holdResponseNext(method: string): () => void;
  /**
   * Slack's rate limit on `method` (e.g. chat.update, Tier 3: about 50 a minute): calls beyond it
   * are answered HTTP 429 with Retry-After until reset(); undefined lifts it.
   */
  rateLimit(method: string, limit: RateLimit | undefined): void;
  /** A response_url served by the simulator, to put in interaction payloads. */
  responseUrl(target: ResponseUrlTarget): string;
  /** Calls `listener` with each call as it is recorded (after its effects); returns the unsubscribe. */
  onCall(listener: (call: RecordedCall) => void): () => void;
  /** Resolves with the first recorded call (past or future) matching; a string matches the method. */
  waitFor(predicate: string | ((call: RecordedCall) => boolean), options?: WaitForOptions): Promise<RecordedCall>;
  /** Forget all state, calls and pending faults; keeps options and listeners. */
  reset(): void;
  close(): Promise<void>;
}
