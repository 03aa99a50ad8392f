import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { Agent } from '../../src/agent/agent.js';
import { definePolicy } from '../../src/approvals/define-policy.js';
import { describeOnOneBackend } from '../helpers/needs.js';
import { ageRecords } from '../helpers/age-records.js';
import { backlogModel } from '../helpers/backlog-model.js';
import { inThread, mention, recordingDeleteTool, slackHarness, startBot, textOf, updatesOf, waitForCard, type AgentDeps, type PostedCard } from '../helpers/slack-bot.js';
import { CHANNEL, REQUESTER } from '../helpers/test-workspace.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

describeOnOneBackend('a backlog of expired requests through Slack, on %s', (backend) => {
  const h = slackHarness(backend);

  it('all expire in one sweep; their runs go on maxConcurrentRuns at a time; cards redrawn once each through Slack\'s 429s, which never reach the app\'s own client', async () => {
    const m = backlogModel();
    const { deleteRecord, deleted } = recordingDeleteTool();
    const bot = await startBot({
      fake: h.fake,
      db: h.database.db,
      makeAgent: (deps) =>
        new Agent({ id: 'ops', instructions: 'test', model: m.model, tools: { delete_record: deleteRecord }, storage: h.database, policy: definePolicy({}), maxConcurrentRuns: 2, ...deps }),
    });
    // Five, more than the runs at once and the redraws Slack lets through at once; their notices and
    // answers (ten) fit the backlog client's burst of posts, whose pace past it the backlog bench measures.
    const cards: PostedCard[] = [];
    for (let i = 0; i < 5; i++) {
      const thread = await mention(bot, { user: REQUESTER, channel: CHANNEL, text: `delete r${i}` });
      cards.push(await waitForCard(h.fake, thread, 'approval'));
    }
    await bot.slack.idle();
    await sql`UPDATE pending_actions SET expires_at = now() - interval '1 minute' WHERE status = 'pending'`.execute(h.database.db);
    // Slack allows chat.update about once a second here, in bursts of three: fewer than the cards.
    h.fake.rateLimit('chat.update', { perMinute: 60, burst: 3 });
    const release = m.hold();

    expect(await bot.slack.sweepExpired()).toBe(5);
    await until(() => m.inFlight === 2, 'two runs going on');
    // The others wait their turn; none has started.
    await sleep(100);
    expect(m.inFlight).toBe(2);
    release();
    await bot.slack.idle();

    expect(m.maxInFlight).toBe(2);
    expect([...m.continued.values()]).toEqual(Array(5).fill(1));
    expect(deleted).toEqual([]);
    for (const card of cards) {
      const shown = updatesOf(h.fake, card).filter((c) => c.ok);
      expect(shown).toHaveLength(1);
      expect(textOf(shown[0]!)).toContain('Expired');
      const said = h.fake.callsTo('chat.postMessage').filter((c) => c.ok && inThread(c, card.channel, card.threadTs)).map(textOf);
      expect(said.filter((t) => t.includes('expired: nobody decided'))).toHaveLength(1);
      expect(said.filter((t) => t.startsWith('Did not delete'))).toHaveLength(1);
    }
    // Slack refused some redraws; the backlog waited them out on its own client, and nothing was redrawn twice.
    expect(h.fake.callsTo('chat.update').filter((c) => c.status === 429).length).toBeGreaterThan(0);
    expect(bot.logs.join('').match(/rate limiting/g) ?? []).toEqual([]);
    expect(await bot.slack.sweepExpired()).toBe(0);
  });

  it('an instance that stops mid-backlog loses no run, card or answer: another takes the runs over and repairs the cards; each answer is shown once', async () => {
    const m = backlogModel();
    const { deleteRecord, deleted } = recordingDeleteTool();
    const agentWith = (maxConcurrentRuns: number) => (deps: AgentDeps) =>
      new Agent({ id: 'ops', instructions: 'test', model: m.model, tools: { delete_record: deleteRecord }, storage: h.database, policy: definePolicy({}), maxConcurrentRuns, runLeaseMs: 300, ...deps });
    const first = await startBot({ fake: h.fake, db: h.database.db, makeAgent: agentWith(1), cardRepairAfterMs: 1_000 });
    const cards: PostedCard[] = [];
    for (let i = 0; i < 6; i++) {
      const thread = await mention(first, { user: REQUESTER, channel: CHANNEL, text: `delete s${i}` });
      cards.push(await waitForCard(h.fake, thread, 'approval'));
    }
    await first.slack.idle();
    await sql`UPDATE pending_actions SET expires_at = now() - interval '1 minute' WHERE status = 'pending'`.execute(h.database.db);
    const release = m.hold();
    expect(await first.slack.sweepExpired()).toBe(6);
    await until(() => m.inFlight === 1, 'the first run going on');
    // It stops with one run going on and five waiting their turn in memory.
    const stopping = first.stop();
    release();
    await stopping;

    h.bot = await startBot({ fake: h.fake, db: h.database.db, makeAgent: agentWith(32), cardRepairAfterMs: 1_000 });
    const answers = () => cards.map((card) => h.fake.callsTo('chat.postMessage').filter((c) => c.ok && inThread(c, card.channel, card.threadTs) && textOf(c).startsWith('Did not delete')).length);
    const expiredCards = () => cards.filter((card) => textOf(updatesOf(h.fake, card).filter((c) => c.ok).at(-1) ?? card.call).includes('Expired')).length;
    // Past the lease and the repair delay, the other instance's sweeps make good what the first left.
    const deadline = Date.now() + 20_000;
    while (answers().some((n) => n === 0) || expiredCards() < cards.length) {
      if (Date.now() > deadline) throw new Error(`not made good: answers ${answers().join(',')}, ${expiredCards()} cards expired`);
      await ageRecords(h.database.db);
      await h.bot.slack.sweepExpired();
      await h.bot.slack.idle();
    }
    expect(answers()).toEqual(Array(6).fill(1));
    // The five that waited in the first instance's memory went on here, from their record.
    expect(h.bot.logs.join('').match(/the process that recorded it stopped before continuing it/g)).toHaveLength(5);
    expect([...m.continued.values()]).toEqual(Array(6).fill(1));
    expect(deleted).toEqual([]);
  });
});
