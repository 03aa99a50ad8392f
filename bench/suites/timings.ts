/**
 * The time bounds the tests used to assert, measured here instead (a test asserts what happens,
 * the bench how fast): the inbox lists over 50,000 finished requests, Markdown → mrkdwn on
 * hostile input (each input in bounded time, 4× the input in about 4× the time), and the Slack
 * acknowledgements of a mention, a click and a modal submission, in-process over HTTP against the Slack simulator. See docs/benchmarks.md ("The `timings` suite").
 */
import { performance } from 'node:perf_hooks';
import { sql } from 'kysely';
import { inboxRequests } from '../../src/db/inbox-requests.js';
import { markdownToMrkdwn } from '../../src/slack/kit/mrkdwn/markdown-to-mrkdwn.js';
import { openBenchDatabase } from '../lib/bench-db.js';
import { loadNow, machineInfo } from '../lib/machine.js';
import { round, summarize } from '../lib/stats.js';
import type { Suite, SuiteContext, TableRow } from '../lib/suite.js';
import { measureAcks } from '../lib/timings-acks.js';
import { hostileMarkdown } from '../../test/helpers/hostile-markdown.js';
import { insertFinishedRequests } from '../../test/helpers/finished-requests.js';

const targets = {
  inboxListsMs: 50,
  hostileMarkdownMs: 3000,
  /** 4× the input: linear is about 4×, quadratic 16×. */
  markdownGrowth: 10,
  ackMs: 1000,
};

const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

/** 50,000 finished requests of 500 people, a few of them U0ME's, and both inbox lists read 20 times. */
async function measureInbox(ctx: SuiteContext): Promise<{ meanMs: number; p99Ms: number }> {
  const bench = await openBenchDatabase(ctx.databaseUrl);
  try {
    const finished = ctx.quick ? 5_000 : 50_000;
    await insertFinishedRequests(bench.db, finished);
    await sql`ANALYZE pending_actions`.execute(bench.db);
    const times: number[] = [];
    for (let i = 0; i < 200; i++) {
      const started = performance.now();
      await inboxRequests(bench.db, 'ops', 'U0ME', { requested: 10, decided: 10 });
      times.push(performance.now() - started);
    }
    const measured = times.slice(20);
    const s = summarize(measured);
    return { meanMs: round(s.mean, 3), p99Ms: round(s.p99, 3) };
  } finally {
    await bench.close();
  }
}


function convertMs(text: string): number {
  const started = performance.now();
  if (!markdownToMrkdwn(text).length) throw new Error('markdownToMrkdwn returned nothing');
  return performance.now() - started;
}

function measureMarkdown(ctx: SuiteContext): Array<{ name: string; smallMs: number; largeMs: number }> {
  const small = ctx.quick ? 10_000 : 50_000;
  return Object.entries(hostileMarkdown).map(([name, make]) => ({
    name,
    smallMs: Math.min(convertMs(make(small)), convertMs(make(small))),
    largeMs: Math.min(convertMs(make(4 * small)), convertMs(make(4 * small))),
  }));
}

export const timingsSuite: Suite = {
  name: 'timings',
  description: 'The bounds the tests do not assert: inbox lists on 50,000 rows, hostile Markdown, Slack acks',
  referenceLabel: 'Reference',
  async run(ctx) {
    const loadBefore = loadNow(ctx.log);
    const pg = await openBenchDatabase(ctx.databaseUrl);
    const postgres = (await sql<{ v: string }>`SELECT current_setting('server_version') AS v`.execute(pg.admin.db)).rows[0]!.v;
    await pg.close();
    ctx.log('inbox lists');
    const inbox = await measureInbox(ctx);
    ctx.log('hostile markdown');
    const markdown = measureMarkdown(ctx);
    ctx.log('Slack acks');
    const acks = await measureAcks(ctx);
    const rows: TableRow[] = [
      { metric: 'Inbox: both lists, 50,000 finished rows, mean / p99', value: `${fmt(inbox.meanMs, 2)} / ${fmt(inbox.p99Ms, 2)} ms`, target: `< ${targets.inboxListsMs} ms`, ok: inbox.meanMs < targets.inboxListsMs },
      ...markdown.map((m) => {
        const growth = m.largeMs / Math.max(m.smallMs, 0.01);
        return {
          metric: `Markdown: ${m.name}, ×4 input`,
          value: `${fmt(m.smallMs)} → ${fmt(m.largeMs)} ms (×${fmt(growth, 1)})`,
          target: `< ${fmt(targets.hostileMarkdownMs)} ms, < ×${targets.markdownGrowth}`,
          ok: m.largeMs < targets.hostileMarkdownMs && m.largeMs < targets.markdownGrowth * m.smallMs + 2000,
          reference: 'linear ×4, quadratic ×16',
        };
      }),
      ...acks.map((a) => {
        const s = summarize(a.ms);
        return { metric: `Ack: ${a.what}, p50 / max (n=${s.n})`, value: `${fmt(s.p50, 1)} / ${fmt(s.max, 1)} ms`, target: `< ${fmt(targets.ackMs)} ms`, ok: s.max < targets.ackMs, reference: 'Slack: 3,000 ms' };
      }),
    ];
    const loadAfter = loadNow(ctx.log);
    return {
      rows,
      notes: [`load average (1 min) before / after: ${loadBefore.toFixed(2)} / ${loadAfter.toFixed(2)}`],
      json: { machine: machineInfo(postgres, loadBefore, loadAfter), targets, inbox, markdown: markdown.map((m) => ({ ...m, smallMs: round(m.smallMs), largeMs: round(m.largeMs) })), acks: acks.map((a) => ({ what: a.what, ...summarize(a.ms) })) },
    };
  },
};
