/**
 * Runs the real Slack front end (Bolt over HTTP on loopback) against the fake
 * Slack Web API, and reads what the bot posted back out of the fake's records.
 */
import { Writable } from 'node:stream';
import type { CustomRoute } from '@slack/bolt';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import type { Agent } from '../../src/agent/agent.js';
import { createLogger, type Logger } from '../../src/logger.js';
import { createSlackApp, type SlackApp } from '../../src/slack/app.js';
import { slackGroupResolver, slackWebClient } from '../../src/slack/transport/slack-web-client.js';
import { appMentionEnvelope, type BlockActionsOptions, type SlackUserRef, blockActionsPayload, blockLimitErrors, FAKE_BOT_TOKEN, newTriggerId, type RecordedCall, SLACK_IDS, slackSender, type SlackSimulator, type SlackSimulatorOptions, startSlackSimulator, type StoredView, viewLimitErrors } from '../../src/simulator/index.js';
import { createTestDatabase, type Backend, type TestDatabase } from './db.js';
import type { GroupResolver } from '../../src/approvals/group-resolver.js';
import type { Db } from '../../src/db/database.js';
export { recordingDeleteTool } from './recording-delete-tool.js';

export const SIGNING_SECRET = 'e2e-signing-secret-4f1c2b9a7d3e';

export interface Bot {
  fake: SlackSimulator;
  agent: Agent;
  slack: SlackApp;
  send: ReturnType<typeof slackSender>;
  url: string;
  logs: string[];
  stop(): Promise<void>;
}

export interface AgentDeps {
  logger: Logger;
  resolveGroupMembers: GroupResolver;
  botUserId: string;
}

/** A logger whose JSON lines are kept for assertions ("the reference id is in the logs"). */
export function captureLogger(): { logger: Logger; logs: string[] } {
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      logs.push(chunk.toString('utf8'));
      done();
    },
  });
  return { logger: createLogger({ level: 'debug', name: 'e2e' }, sink), logs };
}

export async function startBot(options: {
  fake: SlackSimulator;
  db: Db;
  makeAgent: (deps: AgentDeps) => Agent;
  ackFirstMaxHoldMs?: number;
  /** 0 unless given: most tests look for the reaction, and their scripted models answer at once. */
  workingReactionDelayMs?: number;
  customRoutes?: CustomRoute[];
  /** See SlackAppOptions.cardRepairAfterMs. */
  cardRepairAfterMs?: number;
  /** See SlackAppOptions.homeRefresh. */
  homeRefresh?: { debounceMs?: number; minIntervalMs?: number };
  /** SLACK_ASSISTANT (default off). */
  assistant?: 'auto' | 'on' | 'off';
}): Promise<Bot> {
  const { logger, logs } = captureLogger();
  const resolveGroupMembers = slackGroupResolver(slackWebClient({ botToken: FAKE_BOT_TOKEN, apiUrl: options.fake.apiUrl }, logger));
  const agent = options.makeAgent({ logger, resolveGroupMembers, botUserId: SLACK_IDS.botUserId });
  const slack = createSlackApp({
    config: { botToken: FAKE_BOT_TOKEN, signingSecret: SIGNING_SECRET, apiUrl: options.fake.apiUrl, port: 0 },
    agent,
    db: options.db,
    logger,
    retryConfig: { retries: 3, factor: 1, minTimeout: 10, maxTimeout: 20 },
    sweepIntervalMs: 0,
    ...(options.ackFirstMaxHoldMs !== undefined ? { ackFirstMaxHoldMs: options.ackFirstMaxHoldMs } : {}),
    workingReactionDelayMs: options.workingReactionDelayMs ?? 0,
    ...(options.customRoutes ? { customRoutes: options.customRoutes } : {}),
    ...(options.cardRepairAfterMs !== undefined ? { cardRepairAfterMs: options.cardRepairAfterMs } : {}),
    ...(options.homeRefresh ? { homeRefresh: options.homeRefresh } : {}),
    ...(options.assistant ? { assistant: options.assistant } : {}),
  });
  const { port } = await slack.start();
  const url = `http://127.0.0.1:${port}/slack/events`;
  return { fake: options.fake, agent, slack, send: slackSender(url, SIGNING_SECRET), url, logs, stop: () => slack.stop() };
}


export interface SlackHarness {
  database: TestDatabase;
  fake: SlackSimulator;
  bot: Bot | undefined;
}

/**
 * The lifecycle every e2e file shares: one database and one fake Slack per
 * file, at most one bot at a time (stopped after each test), and the check
 * that everything the bot sent was valid, escaped Block Kit.
 */
export function slackHarness(backend: Backend, fakeOptions: SlackSimulatorOptions = {}): SlackHarness {
  const h = { bot: undefined } as SlackHarness;
  beforeAll(async () => {
    [h.database, h.fake] = await Promise.all([createTestDatabase(backend), startSlackSimulator(fakeOptions)]);
  });
  // Each test starts on an empty database and an empty Slack: what one test leaves (a failure
  // halfway, say) never reaches the next. Emptied even when the output check fails.
  afterEach(async () => {
    await h.bot?.stop();
    h.bot = undefined;
    try {
      expectCleanSlackOutput(h.fake);
    } finally {
      h.fake.reset();
      await h.database.empty();
    }
  });
  afterAll(async () => {
    await h.fake?.close();
    await h.database?.close();
  });
  return h;
}

// ---------------------------------------------------------------------------------------------
// Reading what the bot sent
// ---------------------------------------------------------------------------------------------

type Block = Record<string, any>;

export function blocksOf(call: RecordedCall): Block[] {
  const blocks = call.args.blocks;
  return Array.isArray(blocks) ? (blocks as Block[]) : [];
}

/** All the text a message shows: its `text` and every text object in its blocks. */
export function textOf(call: RecordedCall): string {
  const parts: string[] = [];
  const walk = (node: unknown) => {
    if (Array.isArray(node)) return node.forEach(walk);
    if (node && typeof node === 'object') {
      const o = node as Record<string, unknown>;
      if ((o.type === 'plain_text' || o.type === 'mrkdwn') && typeof o.text === 'string') parts.push(o.text);
      Object.values(o).forEach(walk);
    }
  };
  if (typeof call.args.text === 'string') parts.push(call.args.text);
  walk(call.args.blocks);
  return parts.join('\n');
}

export function inThread(call: RecordedCall, channel: string, threadTs: string): boolean {
  return call.args.channel === channel && call.args.thread_ts === threadTs;
}

export interface PostedCard {
  call: RecordedCall;
  actionId: number;
  ts: string;
  channel: string;
  threadTs: string;
  blocks: Block[];
}

/** The actions block of a card (block_id `<kind>:<actionId>`). */
export function cardActions(blocks: Block[], kind: 'approval' | 'question' | 'suspension'): Block | undefined {
  return blocks.find((b) => b.type === 'actions' && typeof b.block_id === 'string' && b.block_id.startsWith(`${kind}:`));
}

/**
 * How long the waits below give the bot to show something: the simulator's own 5 s is ample for a
 * bot in the test's process, yet a bot process answering while the machine starts a dozen others
 * (the team's repository, the fresh clone) has taken longer from a click to its answer. A wait
 * that is met returns at once; only a failure waits this long.
 */
const SHOWN_WITHIN = { timeoutMs: 15_000 };

/** Waits for the bot to post a card of `kind` in the thread (the nth one, counting from 0). */
export async function waitForCard(
  fake: SlackSimulator,
  where: { channel: string; threadTs: string },
  kind: 'approval' | 'question' | 'suspension',
  nth = 0,
): Promise<PostedCard> {
  // A free-text question has no buttons to recognise it by, only its heading.
  const looksLike = (c: RecordedCall) =>
    cardActions(blocksOf(c), kind) !== undefined || (kind === 'question' && /^\*Question\b/m.test(textOf(c)) && blocksOf(c).length > 0);
  const isCard = (c: RecordedCall) => c.method === 'chat.postMessage' && c.ok && inThread(c, where.channel, where.threadTs) && looksLike(c);
  await fake.waitFor((c) => isCard(c) && fake.calls.filter(isCard).length > nth, SHOWN_WITHIN);
  const call = fake.calls.filter(isCard)[nth]!;
  const actions = cardActions(blocksOf(call), kind);
  return {
    call,
    actionId: actions ? Number(String(actions.block_id).split(':')[1]) : Number.NaN,
    ts: String(call.response?.ts),
    channel: where.channel,
    threadTs: where.threadTs,
    blocks: blocksOf(call),
  };
}

/** Waits for a plain answer in the thread whose text contains `needle`. */
export function waitForText(fake: SlackSimulator, where: { channel: string; threadTs?: string }, needle: string | RegExp): Promise<RecordedCall> {
  return fake.waitFor(
    (c) =>
      c.method === 'chat.postMessage' &&
      c.ok &&
      c.args.channel === where.channel &&
      (where.threadTs === undefined || c.args.thread_ts === where.threadTs) &&
      (typeof needle === 'string' ? textOf(c).includes(needle) : needle.test(textOf(c))),
    SHOWN_WITHIN,
  );
}

/** Waits for the card's message to be redrawn with text matching `needle`. */
export function waitForUpdate(fake: SlackSimulator, card: PostedCard, needle: string | RegExp): Promise<RecordedCall> {
  return fake.waitFor(
    (c) =>
      c.method === 'chat.update' &&
      c.args.ts === card.ts &&
      (typeof needle === 'string' ? textOf(c).includes(needle) : needle.test(textOf(c))),
    SHOWN_WITHIN,
  );
}

export function waitForEphemeral(fake: SlackSimulator, user: string, needle: string | RegExp): Promise<RecordedCall> {
  return fake.waitFor(
    (c) =>
      c.method === 'chat.postEphemeral' &&
      c.args.user === user &&
      (typeof needle === 'string' ? String(c.args.text).includes(needle) : needle.test(String(c.args.text))),
    SHOWN_WITHIN,
  );
}

export function updatesOf(fake: SlackSimulator, card: PostedCard): RecordedCall[] {
  return fake.callsTo('chat.update').filter((c) => c.args.ts === card.ts);
}

// ---------------------------------------------------------------------------------------------
// Doing what people do
// ---------------------------------------------------------------------------------------------

let tsCounter = 0;
/** A fresh message ts, unique within the process, like Slack's. */
export function freshTs(): string {
  tsCounter += 1;
  return `17261${String(40000 + tsCounter).padStart(5, '0')}.${String(100000 + tsCounter).padStart(6, '0')}`;
}

export async function mention(bot: Bot, o: { user: string; channel: string; text: string; ts?: string; threadTs?: string; eventId?: string }) {
  const ts = o.ts ?? freshTs();
  // The message exists on "Slack" too, so reactions on it work as they would.
  bot.fake.seedMessage({ channel: o.channel, text: `<@${SLACK_IDS.botUserId}> ${o.text}`, user: o.user, ts, ...(o.threadTs ? { threadTs: o.threadTs } : {}) });
  const body = appMentionEnvelope({
    text: `<@${SLACK_IDS.botUserId}> ${o.text}`,
    user: o.user,
    channel: o.channel,
    ts,
    ...(o.threadTs ? { threadTs: o.threadTs } : {}),
    ...(o.eventId ? { eventId: o.eventId } : {}),
  });
  const response = await bot.send.event(body);
  expect(response.status).toBe(200);
  return { ts, threadTs: o.threadTs ?? ts, channel: o.channel, body, response };
}

/** The block_actions payload of `user` clicking a card's button: the card's own value and block id unless overridden. */
export function buttonClick(card: PostedCard, user: string, actionId: string, overrides: Partial<BlockActionsOptions> = {}) {
  const actions = cardActions(card.blocks, 'approval') ?? cardActions(card.blocks, 'suspension') ?? cardActions(card.blocks, 'question');
  const button = (actions?.elements as Block[] | undefined)?.find((e) => e.action_id === actionId);
  const payload = blockActionsPayload({
    user,
    channel: card.channel,
    messageTs: card.ts,
    threadTs: card.threadTs,
    actionId,
    blockId: actions?.block_id,
    ...(button?.value !== undefined ? { value: button.value } : {}),
    ...overrides,
  });
  return { payload, button };
}

/** The block_actions payload Slack sends for a button on a person's Home tab: a view container, no channel, no message. */
export function homeClickPayload(view: StoredView, user: string | SlackUserRef, button: Block, blockId: string) {
  const id = typeof user === 'string' ? user : user.id;
  // `team` is the app's workspace whoever clicks; `user.team_id` the clicker's own (another for a Slack Connect partner).
  const teamId = (typeof user === 'string' ? undefined : user.teamId) ?? SLACK_IDS.teamId;
  return {
    type: 'block_actions',
    user: { id, username: id.toLowerCase(), name: id.toLowerCase(), team_id: teamId },
    api_app_id: SLACK_IDS.appId,
    token: 'verification-token',
    container: { type: 'view', view_id: view.id },
    trigger_id: newTriggerId(),
    team: { id: SLACK_IDS.teamId, domain: SLACK_IDS.teamDomain },
    enterprise: null,
    is_enterprise_install: false,
    view,
    state: { values: {} },
    actions: [{ action_id: button.action_id, block_id: blockId, text: button.text, value: button.value, style: button.style, type: 'button', action_ts: '1726133800.000100' }],
  };
}

/** Clicks a button on a card as `user`, over HTTP. */
export async function clickButton(
  bot: Bot,
  card: PostedCard,
  user: string,
  actionId: string,
  overrides: Partial<BlockActionsOptions> = {},
) {
  const response = await bot.send.interaction(buttonClick(card, user, actionId, overrides).payload);
  expect(response.status).toBe(200);
  return response;
}

// ---------------------------------------------------------------------------------------------
// What every test checks at the end
// ---------------------------------------------------------------------------------------------

const NOTIFYING = /<!(channel|here|everyone)\b/;

/**
 * Every block and view the fake received passes the simulator's Block Kit checker and notifies
 * nobody. The simulator refuses invalid output on its own; this names the problem even when a test
 * turned that off (validateBlocks: false) or the bot swallowed the refusal.
 */
export function expectCleanSlackOutput(fake: SlackSimulator): void {
  for (const call of fake.calls) {
    if (['chat.postMessage', 'chat.update', 'chat.postEphemeral'].includes(call.method)) {
      if (Array.isArray(call.args.blocks)) expect(blockLimitErrors(call.args.blocks), `${call.method} blocks`).toEqual([]);
      expect(textOf(call), `${call.method} text`).not.toMatch(NOTIFYING);
      expect(call.args.link_names, 'link_names').toBeUndefined();
      expect(call.args.parse, 'parse').toBeUndefined();
    }
    if (['chat.startStream', 'chat.appendStream', 'chat.stopStream'].includes(call.method)) {
      expect(String(call.args.markdown_text ?? ''), `${call.method} markdown_text`).not.toMatch(NOTIFYING);
    }
    if (call.method === 'views.publish') {
      expect(viewLimitErrors(call.args.view, 'home'), 'views.publish view').toEqual([]);
      expect(JSON.stringify(call.args.view)).not.toMatch(NOTIFYING);
    }
    if (['views.open', 'views.push', 'views.update'].includes(call.method)) {
      expect(viewLimitErrors(call.args.view, 'modal'), `${call.method} view`).toEqual([]);
      expect(JSON.stringify(call.args.view)).not.toMatch(NOTIFYING);
    }
  }
}
