import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { MockLanguageModelV3 } from 'ai/test';
import { afterEach, describe, expect, it } from 'vitest';
import { Agent } from '../../src/agent/agent.js';
import { definePolicy } from '../../src/approvals/define-policy.js';
import { findAction } from '../../src/db/pending-actions.js';
import { ACTION_IDS } from '../../src/slack/kit/action-ids.js';
import { showCard } from '../../src/slack/card/show-card.js';
import { showAnswer } from '../../src/slack/thread/answer-stream.js';
import { recordThread } from '../../src/slack/card/cards.js';
import { ageRecords } from '../helpers/age-records.js';
import { bundledFixture } from '../helpers/bundled-fixture.js';
import { describeOnOneBackend, needing } from '../helpers/needs.js';
import { openSlowDelivery } from '../helpers/slow-delivery.js';
import { scriptedModel, type ScriptStep } from '../helpers/scripted-model.js';
import { clickButton, freshTs, mention, recordingDeleteTool, SIGNING_SECRET, slackHarness, startBot, textOf, updatesOf, waitForCard, waitForText, waitForUpdate, type AgentDeps, type Bot, type PostedCard } from '../helpers/slack-bot.js';
import { appMentionEnvelope, slackSender, SLACK_IDS } from '../../src/simulator/index.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const CHANNEL = 'C0CHANNEL01';
const REQUESTER = 'U0REQUESTER';
const ALICE = 'U0ALICE';
const BOB = 'U0BOB';
const REPAIR_AFTER_MS = 1_000;

const deleteStep = (id: string): ScriptStep => ({ toolCalls: [{ toolName: 'delete_record', args: { id } }] });
const hasButtons = (call: { args: Record<string, unknown> }) => JSON.stringify(call.args.blocks ?? '').includes('"type":"button"');

describeOnOneBackend('Slack threads converge on what is stored, on %s', (backend) => {
  const h = slackHarness(backend);

  async function boot(model: MockLanguageModelV3, options: { policy?: Parameters<typeof definePolicy>[0]; ackFirstMaxHoldMs?: number } = {}) {
    const { deleteRecord, deleted } = recordingDeleteTool();
    h.bot = await startBot({
      fake: h.fake,
      db: h.database.db,
      // The production delay: what a sweep here must find old is made an hour old (ageEverything),
      // and what must still be too young stays so however long the machine takes to get there.
      cardRepairAfterMs: 60_000,
      ...(options.ackFirstMaxHoldMs !== undefined ? { ackFirstMaxHoldMs: options.ackFirstMaxHoldMs } : {}),
      makeAgent: (deps: AgentDeps) =>
        new Agent({ id: 'ops', model, tools: { delete_record: deleteRecord }, storage: h.database, policy: definePolicy(options.policy ?? {}), ...deps }),
    });
    return { b: h.bot, deleted };
  }

  /** Makes every change on record look older than the repair delay, as the sweep will find it a minute on. */
  async function ageEverything() {
    await sql`UPDATE pending_actions SET created_at = now() - interval '1 hour', decided_at = decided_at - interval '1 hour'`.execute(h.database.db);
    await sql`UPDATE run_results SET finished_at = now() - interval '1 hour'`.execute(h.database.db);
  }

  /** What a stopped process leaves when it ended a run but never showed it: the answer kept, the card as first drawn. */
  async function runEndedUnshown(b: Bot, answer: string) {
    const ts = freshTs();
    h.fake.seedMessage({ channel: CHANNEL, text: `<@${SLACK_IDS.botUserId}> delete u1`, user: REQUESTER, ts });
    const runId = randomUUID();
    const thread = { channel: CHANNEL, threadTs: ts };
    await recordThread(b.slack.context.slackDb, { run_id: runId, channel: CHANNEL, thread_ts: ts, team_id: SLACK_IDS.teamId, requester: REQUESTER, message_ts: ts });
    await b.agent.generate('delete u1', { runId, threadId: `${CHANNEL}:${ts}`, resourceId: SLACK_IDS.teamId, requester: REQUESTER });
    const { runs } = await b.agent.listSuspendedRuns({ threadId: `${CHANNEL}:${ts}` });
    await showCard(b.slack.context, runs[0]!.toolCalls[0]!.actionId, thread);
    const card = await waitForCard(h.fake, thread, 'approval');
    const done = await b.agent.approveToolCallGenerate({ runId, actor: { userId: ALICE } });
    expect(done.text).toBe(answer);
    return { runId, thread, card };
  }

  it('a run that ended while its process could not show it is answered once by the sweep, and its card redrawn', async () => {
    const model = scriptedModel([deleteStep('u1'), { text: 'Deleted u1.' }, { text: 'A new run.' }]);
    const { b, deleted } = await boot(model);
    const { thread, card } = await runEndedUnshown(b, 'Deleted u1.');
    const answers = () => h.fake.callsTo('chat.postMessage').filter((c) => c.args.thread_ts === thread.threadTs && textOf(c).includes('Deleted u1.'));

    // Too young: whoever ended it may still be posting.
    await b.slack.sweepExpired();
    await b.slack.idle();
    expect(answers()).toEqual([]);
    expect(updatesOf(h.fake, card)).toEqual([]);

    await ageEverything();
    await b.slack.sweepExpired();
    await waitForText(h.fake, thread, 'Deleted u1.');
    await waitForUpdate(h.fake, card, `Approved by <@${ALICE}>`);
    await b.slack.sweepExpired();
    await b.slack.idle();
    expect(answers()).toHaveLength(1);
    expect(updatesOf(h.fake, card)).toHaveLength(1);
    expect(hasButtons(updatesOf(h.fake, card)[0]!)).toBe(false);
    expect(deleted).toEqual([{ id: 'u1' }]);
    // The thread is free again: a new mention starts a run.
    await mention(b, { user: REQUESTER, channel: CHANNEL, threadTs: thread.threadTs, text: 'anything else?' });
    await waitForText(h.fake, thread, 'A new run.');
  });

  it('an answer its process posted in part is completed by the sweep, without posting any part twice', async () => {
    const long = Array.from({ length: 30 }, (_, i) => `## Part ${i}\n${'Everything went fine. '.repeat(40)}`).join('\n\n');
    const { b } = await boot(scriptedModel([deleteStep('u1'), { text: long }]));
    const { runId, thread } = await runEndedUnshown(b, long);
    // The stopped process had posted the first part of the answer, marked as this run's.
    await showAnswer(b.slack.context, thread, long, { runId }, new Set(Array.from({ length: 20 }, (_, i) => i + 1)));
    const parts = () => h.fake.callsTo('chat.postMessage').filter((c) => c.args.thread_ts === thread.threadTs && (c.args.metadata as { event_payload?: { run_id?: string } } | undefined)?.event_payload?.run_id === runId);
    const before = parts().length;
    expect(before).toBe(1);

    await ageEverything();
    await b.slack.sweepExpired();
    await b.slack.idle();
    const all = parts().map((c) => (c.args.metadata as { event_payload: { part: number; parts: number } }).event_payload);
    expect(all[0]!.parts).toBeGreaterThan(1);
    expect(all.length).toBe(all[0]!.parts);
    expect(new Set(all.map((p) => p.part)).size).toBe(all.length);
    expect(textOf(parts().at(-1)!)).toContain('Part 29');
  });

  it('a redraw that fails every retry is made good by the sweep; the card converges on Approved', async () => {
    const { b } = await boot(scriptedModel([deleteStep('r1'), { text: 'Deleted r1.' }]));
    const thread = await mention(b, { user: REQUESTER, channel: CHANNEL, text: 'delete r1' });
    const card = await waitForCard(h.fake, thread, 'approval');
    h.fake.failNext('chat.update', { status: 500 }, 4);
    await clickButton(b, card, ALICE, ACTION_IDS.approve);
    await waitForText(h.fake, thread, 'Deleted r1.');
    await b.slack.idle();
    expect(updatesOf(h.fake, card).map((c) => c.status)).toEqual([500, 500, 500, 500]);

    await ageEverything();
    await b.slack.sweepExpired();
    const redrawn = await h.fake.waitFor((c) => c.method === 'chat.update' && c.args.ts === card.ts && c.ok);
    expect(textOf(redrawn)).toContain(`Approved by <@${ALICE}>`);
    expect(hasButtons(redrawn)).toBe(false);
    await b.slack.sweepExpired();
    await b.slack.idle();
    expect(updatesOf(h.fake, card).filter((c) => c.ok)).toHaveLength(1);
  });

  it('a "1 of 2" redraw held up by a rate limit never lands after the "Approved" that followed it', async () => {
    const { b, deleted } = await boot(scriptedModel([deleteStep('q1'), { text: 'Deleted q1.' }]), {
      policy: { tools: { delete_record: { requireApproval: true, quorum: 2 } } },
    });
    const thread = await mention(b, { user: REQUESTER, channel: CHANNEL, text: 'delete q1' });
    const card = await waitForCard(h.fake, thread, 'approval');
    h.fake.failNext('chat.update', { status: 429, retryAfter: 1 });
    await clickButton(b, card, ALICE, ACTION_IDS.approve);
    await h.fake.waitFor((c) => c.method === 'chat.update' && c.status === 429);
    await clickButton(b, card, BOB, ACTION_IDS.approve);
    await waitForText(h.fake, thread, 'Deleted q1.');
    await b.slack.idle();
    const landed = updatesOf(h.fake, card).filter((c) => c.ok);
    expect(textOf(landed.at(-1)!)).toMatch(/Approved by/);
    expect(hasButtons(landed.at(-1)!)).toBe(false);
    expect(deleted).toEqual([{ id: 'q1' }]);
  });

  it('two mentions in one thread at the same moment start one run; the other is told the thread is busy', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const inner = scriptedModel([{ text: 'First request done.' }]);
    const model = new MockLanguageModelV3({ doStream: async (options) => (await gate, inner.doStream(options)) });
    const { b } = await boot(model);
    const root = freshTs();
    h.fake.seedMessage({ channel: CHANNEL, text: 'thread root', user: REQUESTER, ts: root });
    const send = (text: string, user: string) => {
      const ts = freshTs();
      h.fake.seedMessage({ channel: CHANNEL, text, user, ts, threadTs: root });
      return b.send.event(appMentionEnvelope({ text: `<@${SLACK_IDS.botUserId}> ${text}`, user, channel: CHANNEL, ts, threadTs: root }));
    };
    const responses = await Promise.all([send('look up a1', REQUESTER), send('look up b2', ALICE)]);
    expect(responses.map((r) => r.status)).toEqual([200, 200]);
    await waitForText(h.fake, { channel: CHANNEL, threadTs: root }, 'still working on the earlier request here');
    release();
    await waitForText(h.fake, { channel: CHANNEL, threadTs: root }, 'First request done.');
    await b.slack.idle();
    expect(model.doStreamCalls).toHaveLength(1);
  });

  it('a click is acknowledged only once its decision is on record; the work after it still waits for the ack of what came before', async () => {
    const { b, deleted } = await boot(scriptedModel([deleteStep('k1'), { text: 'Deleted k1.' }]), { ackFirstMaxHoldMs: 60_000 });
    const thread = await mention(b, { user: REQUESTER, channel: CHANNEL, text: 'delete k1' });
    const card = await waitForCard(h.fake, thread, 'approval');
    await b.slack.idle();
    // Another delivery still on its way in (headers sent, body not yet): work handed off after an ack waits for it.
    const slow = await openSlowDelivery(b.url);
    expect((await fetch(new URL('/healthz', b.url))).status).toBe(200);

    await clickButton(b, card, ALICE, ACTION_IDS.approve);
    // Acknowledged: the approval is on record, whatever happens to this process now; the tool has not run yet.
    expect((await findAction(h.database.db, card.actionId))?.status).toBe('approved');
    await sleep(200);
    expect(deleted).toEqual([]);
    slow.destroy();
    await waitForText(h.fake, thread, 'Deleted k1.');
    expect(deleted).toEqual([{ id: 'k1' }]);
  });
});

/** A bot in a process of its own, on the test's PostgreSQL schema and fake Slack, that a test can SIGKILL. */
async function childBot(h: ReturnType<typeof slackHarness>, script: ScriptStep[]): Promise<{ child: ChildProcess; bot: Bot; executed: string[] }> {
  // Bundled (bundled-fixture.ts): through tsx, each start compiled the whole app again.
  const child = spawn(process.execPath, [bundledFixture('test/helpers/slack-bot-child.ts')], {
    env: {
      ...process.env,
      CHILD_SCHEMA: h.database.schema,
      SLACK_API_URL: h.fake.apiUrl,
      CHILD_SIGNING_SECRET: SIGNING_SECRET,
      CHILD_SCRIPT: JSON.stringify(script),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const executed: string[] = [];
  const lines = createInterface({ input: child.stdout! });
  const port = await new Promise<number>((resolve, reject) => {
    lines.on('line', (line) => {
      if (line.startsWith('{')) resolve((JSON.parse(line) as { port: number }).port);
      else if (line.startsWith('executed ')) executed.push(line.slice('executed '.length));
    });
    child.once('exit', (code) => reject(new Error(`child bot exited with ${code}`)));
  });
  const url = `http://127.0.0.1:${port}/slack/events`;
  return { child, executed, bot: { fake: h.fake, send: slackSender(url, SIGNING_SECRET), url } as unknown as Bot };
}

describe('Slack threads converge after a process is killed (SIGKILL, PostgreSQL)', needing('postgres'), () => {
  const h = slackHarness('postgres');
  let child: ChildProcess | undefined;
  afterEach(async () => {
    if (child && child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await once(child, 'exit');
    }
    child = undefined;
  });

  async function survivor() {
    const { deleteRecord, deleted } = recordingDeleteTool();
    h.bot = await startBot({
      fake: h.fake,
      db: h.database.db,
      cardRepairAfterMs: REPAIR_AFTER_MS,
      makeAgent: (deps: AgentDeps) =>
        new Agent({ id: 'ops', model: scriptedModel([{ text: 'the survivor was asked' }]), tools: { delete_record: deleteRecord }, storage: h.database, policy: definePolicy({}), runLeaseMs: 1_000, ...deps }),
    });
    return { b: h.bot, deleted };
  }

  /** Sweeps, with everything on record old enough to take over and repair, until `done` or `rounds` sweeps. */
  async function sweepUntil(b: Bot, done: () => boolean, rounds = 100) {
    for (let i = 0; i < rounds && !done(); i++) {
      await ageRecords(h.database.db);
      await b.slack.sweepExpired();
      await b.slack.idle();
      await sleep(50);
    }
  }

  it('killed while its card redraw waits on Retry-After: the run has ended, and another instance posts its answer once and redraws the card', async () => {
    const started = await childBot(h, [deleteStep('x1'), { text: 'Deleted x1.' }]);
    child = started.child;
    const thread = await mention(started.bot, { user: REQUESTER, channel: CHANNEL, text: 'delete x1' });
    const card: PostedCard = await waitForCard(h.fake, thread, 'approval');
    h.fake.failNext('chat.update', { status: 429, retryAfter: 120 });
    await clickButton(started.bot, card, ALICE, ACTION_IDS.approve);
    // The run ends in PostgreSQL while the redraw, and so the answer, wait on Slack's Retry-After.
    for (let i = 0; i < 800; i++) {
      const kept = await sql<{ n: number }>`SELECT count(*)::int AS n FROM run_results`.execute(h.database.db);
      if (kept.rows[0]!.n > 0) break;
      await sleep(25);
    }
    expect(started.executed).toEqual(['x1']);
    child.kill('SIGKILL');
    await once(child, 'exit');
    expect(h.fake.callsTo('chat.postMessage').filter((c) => textOf(c).includes('Deleted x1.'))).toEqual([]);

    const { b, deleted } = await survivor();
    const answered = () => h.fake.callsTo('chat.postMessage').filter((c) => c.ok && textOf(c).includes('Deleted x1.')).length > 0;
    const redrawn = () => updatesOf(h.fake, card).some((c) => c.ok && textOf(c).includes('Approved by'));
    await sweepUntil(b, () => answered() && redrawn());
    // Sweeps after that find nothing more to post or redraw: the first would, were anything left.
    await sweepUntil(b, () => false, 3);
    expect(h.fake.callsTo('chat.postMessage').filter((c) => textOf(c).includes('Deleted x1.'))).toHaveLength(1);
    expect(updatesOf(h.fake, card).filter((c) => c.ok)).toHaveLength(1);
    expect(hasButtons(updatesOf(h.fake, card).find((c) => c.ok)!)).toBe(false);
    expect(deleted).toEqual([]);
  }, 120_000);

  it('killed right after acknowledging a click: the approval is on record, another instance carries the run on and the card converges', async () => {
    const started = await childBot(h, [deleteStep('y1'), { text: 'Deleted y1.' }]);
    child = started.child;
    const thread = await mention(started.bot, { user: REQUESTER, channel: CHANNEL, text: 'delete y1' });
    const card = await waitForCard(h.fake, thread, 'approval');
    // Everything after the ack is held up, then the process dies: only what happened before the ack counts.
    const release = h.fake.holdResponseNext('chat.update');
    await clickButton(started.bot, card, ALICE, ACTION_IDS.approve);
    child.kill('SIGKILL');
    await once(child, 'exit');
    release();
    expect((await findAction(h.database.db, card.actionId))?.status).toBe('approved');

    const { b, deleted } = await survivor();
    const inThread = () => h.fake.callsTo('chat.postMessage').filter((c) => c.ok && c.args.thread_ts === thread.threadTs);
    const redrawn = () => updatesOf(h.fake, card).some((c) => c.ok && !hasButtons(c) && textOf(c).includes('Approved by'));
    await sweepUntil(b, () => redrawn() && inThread().length > 1);
    // The call ran at most once: in the killed process, or not at all (then the model is told it was interrupted).
    expect(started.executed.length + deleted.length).toBeLessThanOrEqual(1);
    expect(redrawn()).toBe(true);
    expect(inThread().length).toBeGreaterThan(1);
  }, 120_000);
});
