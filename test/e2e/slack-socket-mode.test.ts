/**
 * The Slack front end in Socket Mode, end to end: the real Bolt App and @slack/socket-mode client
 * fetch a WebSocket URL from the fake Slack (apps.connections.open with the app token), take
 * envelopes over that socket, ack them there, and answer through the fake Web API. No HTTP port.
 */
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { Agent } from '../../src/agent/agent.js';
import { definePolicy } from '../../src/approvals/define-policy.js';
import { ACTION_IDS } from '../../src/slack/kit/action-ids.js';
import { createSlackApp, type SlackApp } from '../../src/slack/app.js';
import { slackGroupResolver, slackWebClient } from '../../src/slack/transport/slack-web-client.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { describeOnOneBackend } from '../helpers/needs.js';
import { appMentionEnvelope, FAKE_APP_TOKEN, FAKE_BOT_TOKEN, SLACK_IDS, type SlackSimulator, startSlackSimulator } from '../../src/simulator/index.js';
import { scriptedModel, type ScriptStep } from '../helpers/scripted-model.js';
import { captureLogger, buttonClick, recordingDeleteTool, expectCleanSlackOutput, freshTs, textOf, waitForCard, waitForText, waitForUpdate, type AgentDeps, type PostedCard } from '../helpers/slack-bot.js';

const CHANNEL = 'C0CHANNEL01';
const REQUESTER = 'U0REQUESTER';
const ALICE = 'U0ALICE';
/**
 * @slack/socket-mode waits its client ping timeout before reconnecting: 2 s here (5 s by default),
 * still well above a pong's delay on a loaded machine, which would drop the connection.
 */
const PING_TIMEOUT_MS = 2_000;
const RECONNECT_WITHIN_MS = 15_000;

interface SocketBot {
  slack: SlackApp;
  logs: string[];
  deleted: unknown[];
  model: ReturnType<typeof scriptedModel>;
}

describeOnOneBackend('Slack Socket Mode end to end on %s', (backend) => {
  let database: TestDatabase;
  let fake: SlackSimulator;
  let bot: SocketBot | undefined;

  beforeAll(async () => {
    [database, fake] = await Promise.all([createTestDatabase(backend), startSlackSimulator()]);
  });

  afterEach(async () => {
    const open = fake.socket.connections.filter((c) => c.closedAt === undefined);
    await bot?.slack.stop();
    bot = undefined;
    // Bolt's stop() returns before the close handshake ends; once it has, reset() drops the record, so the next test sees only its own bot's connections.
    await Promise.all(open.map((c) => fake.socket.waitForClose(c.id)));
    expectCleanSlackOutput(fake);
    fake.reset();
  });

  afterAll(async () => {
    await bot?.slack.stop();
    await fake?.close();
    await database?.close();
  });

  async function startSocketBot(steps: ScriptStep[], options: { socketPingTimeoutMs?: number } = {}): Promise<SocketBot> {
    const { logger, logs } = captureLogger();
    const { deleteRecord, deleted } = recordingDeleteTool();
    const model = scriptedModel(steps);
    const deps: AgentDeps = {
      logger,
      resolveGroupMembers: slackGroupResolver(slackWebClient({ botToken: FAKE_BOT_TOKEN, apiUrl: fake.apiUrl }, logger)),
      botUserId: SLACK_IDS.botUserId,
    };
    const agent = new Agent({ id: 'ops', instructions: 'test', model, tools: { delete_record: deleteRecord }, storage: database, policy: definePolicy({}), ...deps });
    const slack = createSlackApp({
      config: { botToken: FAKE_BOT_TOKEN, appToken: FAKE_APP_TOKEN, apiUrl: fake.apiUrl, port: 0 },
      agent,
      db: database.db,
      logger,
      retryConfig: { retries: 3, factor: 1, minTimeout: 10, maxTimeout: 20 },
      sweepIntervalMs: 0,
      workingReactionDelayMs: 0,
      ...options,
    });
    bot = { slack, logs, deleted, model };
    const started = await slack.start();
    expect(started).toEqual({ botUserId: SLACK_IDS.botUserId });
    return bot;
  }

  /** Someone mentions the bot: the message exists on "Slack" (so reactions land) and the event arrives over the socket. */
  function mention(text: string, o: { eventId?: string } = {}) {
    const ts = freshTs();
    const fullText = `<@${SLACK_IDS.botUserId}> ${text}`;
    fake.seedMessage({ channel: CHANNEL, text: fullText, user: REQUESTER, ts });
    const body = appMentionEnvelope({ text: fullText, user: REQUESTER, channel: CHANNEL, ts, ...(o.eventId ? { eventId: o.eventId } : {}) });
    const envelopeId = fake.socket.event(body);
    return { envelopeId, body, thread: { channel: CHANNEL, threadTs: ts }, ts };
  }

  /** A click on one of the card's buttons, delivered as an `interactive` envelope. */
  function click(card: PostedCard, user: string, actionId: string): string {
    const { payload, button } = buttonClick(card, user, actionId, {
      responseUrl: fake.responseUrl({ channel: card.channel, messageTs: card.ts, user, threadTs: card.threadTs }),
    });
    expect(button, `button ${actionId} on the card`).toBeDefined();
    return fake.socket.interaction(payload);
  }

  it('mention → ack → approval card → approve over the socket → the tool runs once → the answer; a redelivery starts nothing', async () => {
    const b = await startSocketBot([
      { toolCalls: [{ toolName: 'delete_record', args: { id: 'abc' } }] },
      { text: 'Deleted **abc**.' },
    ]);
    // start() resolved, so the hello has already been sent: this resolves at once.
    const connection = await fake.socket.waitForConnection();
    const opened = fake.callsTo('apps.connections.open');
    expect(opened).toHaveLength(1);
    expect(opened[0]).toMatchObject({ ok: true, token: FAKE_APP_TOKEN });

    const m = mention('please delete abc');
    // Slack redelivers an event it saw no ack for as a new envelope with the same event_id; one can
    // overtake the first delivery's work, another can come once the run already waits.
    const retryNow = fake.socket.event(m.body, { retryAttempt: 1, retryReason: 'timeout' });
    const ack = await fake.socket.waitForAck(m.envelopeId);
    expect(ack.connection).toBe(connection.id);
    expect((await fake.socket.waitForAck(retryNow)).connection).toBe(connection.id);

    const eyes = await fake.waitFor((c) => c.method === 'reactions.add' && c.args.timestamp === m.ts);
    // Bolt acks before any listener runs, so the ack cannot wait on the run's Slack calls.
    expect(ack.at).toBeLessThanOrEqual(eyes.at);
    const card = await waitForCard(fake, m.thread, 'approval');
    expect(textOf(card.call)).toContain('Approval needed: Delete record');
    expect(b.deleted).toEqual([]);

    const retryLate = fake.socket.event(m.body, { retryAttempt: 2, retryReason: 'timeout' });
    await fake.socket.waitForAck(retryLate);
    await b.slack.idle();
    expect(b.model.doStreamCalls).toHaveLength(1);

    const approve = click(card, ALICE, ACTION_IDS.approve);
    const approveAck = await fake.socket.waitForAck(approve);
    await waitForUpdate(fake, card, `Approved by <@${ALICE}>`);
    const answer = await waitForText(fake, m.thread, 'Deleted *abc*');
    expect(approveAck.at).toBeLessThanOrEqual(answer.at);
    await b.slack.idle();

    // One run, one card, one answer: neither redelivery reacted, posted or called the model.
    expect(b.deleted).toEqual([{ id: 'abc' }]);
    expect(b.model.doStreamCalls).toHaveLength(2);
    const posted = fake.callsTo('chat.postMessage').filter((c) => c.args.channel === CHANNEL);
    expect(posted.map((c) => c.response?.ts)).toEqual([card.ts, answer.response?.ts]);
    expect(fake.callsTo('reactions.add').filter((c) => c.args.timestamp === m.ts)).toHaveLength(1);
    expect(fake.callsTo('chat.postEphemeral')).toEqual([]);
    expect(b.logs.filter((line) => line.includes('duplicate event delivery ignored'))).toHaveLength(2);

    // Every envelope was acked exactly once, with the empty payload Slack expects.
    expect(fake.socket.acks.map((a) => a.envelope_id).sort()).toEqual([m.envelopeId, retryNow, retryLate, approve].sort());
    expect(fake.socket.acks.map((a) => a.payload)).toEqual([{}, {}, {}, {}]);
    // The app token is a credential like the bot token: it must not reach the logs, even at debug.
    expect(b.logs.join('')).not.toContain(FAKE_APP_TOKEN);
    expect(b.logs.join('')).not.toContain(FAKE_BOT_TOKEN);
  });

  it('disconnect (refresh_requested) → the client reconnects with a new ticket → a waiting approval and new events still flow', async () => {
    const b = await startSocketBot([
      { toolCalls: [{ toolName: 'delete_record', args: { id: 'r1' } }] },
      { text: 'Deleted r1.' },
      { text: 'Still here.' },
    ], { socketPingTimeoutMs: PING_TIMEOUT_MS });
    const first = await fake.socket.waitForConnection();
    const m = mention('delete r1');
    await fake.socket.waitForAck(m.envelopeId);
    const card = await waitForCard(fake, m.thread, 'approval');

    fake.socket.disconnect('refresh_requested');
    // The client closes the old socket itself, then asks apps.connections.open for a new URL.
    const closed = await fake.socket.waitForClose(first.id);
    expect(closed.closeCode).toBe(1000);
    const second = await fake.socket.waitForConnection({ after: first.id, timeoutMs: RECONNECT_WITHIN_MS });
    expect(second.ticket).not.toBe(first.ticket);
    expect(fake.callsTo('apps.connections.open').map((c) => [c.ok, c.token])).toEqual([
      [true, FAKE_APP_TOKEN],
      [true, FAKE_APP_TOKEN],
    ]);

    // A card posted before the reconnect is still answerable after it.
    const approve = click(card, ALICE, ACTION_IDS.approve);
    expect((await fake.socket.waitForAck(approve)).connection).toBe(second.id);
    await waitForUpdate(fake, card, `Approved by <@${ALICE}>`);
    await waitForText(fake, m.thread, 'Deleted r1.');
    expect(b.deleted).toEqual([{ id: 'r1' }]);

    const next = mention('are you there?');
    const nextAck = await fake.socket.waitForAck(next.envelopeId);
    expect(nextAck.connection).toBe(second.id);
    await waitForText(fake, next.thread, 'Still here.');
    await b.slack.idle();
    expect(fake.socket.connections.filter((c) => c.closedAt === undefined).map((c) => c.id)).toEqual([second.id]);
  });
});
