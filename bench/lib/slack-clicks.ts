/** The slack suite's click-to-ack measurements: bursts of 50 clicks on the bot, then on the floors. */
import { approveClickBody, type LoopStats, type PostedCard, type SignedClient, type SignedResponse, type SlackHarness } from './slack-harness.js';
import { APPROVER, APPROVERS, checkStatuses, mention, plan, waitForAnswer, waitForCard, type Env, type Started } from './slack-bench-env.js';
import { round, roundSummary, summarize } from './stats.js';
import type { SuiteContext } from './suite.js';

// 1. Click-to-ack under 50 concurrent clicks
// ---------------------------------------------------------------------------------------------

/** `n` suspended runs, each with its approval card posted, and the bot idle again. */
async function prepareCards(env: Env, n: number, prefix: string): Promise<Array<Started & { card: PostedCard }>> {
  const planned = await plan(env, n, prefix);
  const started = await Promise.all(planned.map((p) => mention(env, p)));
  const cards = await Promise.all(started.map(waitForCard));
  await env.h.settle();
  return started.map((s, i) => ({ ...s, card: cards[i]! }));
}

/** One click of a burst, from Slack's side and from the bot's. */
interface ClickTiming {
  /** Request handed to the kernel → response read (the ack as Slack waits for it). */
  ackMs: number;
  /** The same from the request() call, with the driver's own connecting and writing. */
  totalMs: number;
  /** Sent → the bot's HTTP server takes it up: waiting in the socket while the bot's event loop does other work. */
  queuedMs: number;
  /** Taken up → ack handed to the kernel: Bolt (parse, verify, middleware) and the listener up to ack(). */
  handledMs: number;
}

/** Sends every body at once on fresh connections; resolves with each request's timings. */
async function burst(
  env: Env,
  client: SignedClient,
  bodies: string[],
  serverTimings: SlackHarness['takeServerTimings'] = env.h.takeServerTimings,
): Promise<{ responses: SignedResponse[]; clicks: ClickTiming[]; loop: LoopStats }> {
  client.freshConnections();
  const prepared = bodies.map((b) => client.prepare(b));
  await serverTimings(true);
  const responses = await Promise.all(prepared.map((p) => p.send()));
  const { requests, loop } = await serverTimings();
  const server = new Map(requests.map((t) => [t.id, t]));
  const clicks = responses.map((r) => {
    const t = server.get(r.id);
    if (!t) throw new Error(`the bot's server has no record of request ${r.id}`);
    return { ackMs: r.ms, totalMs: r.totalMs, queuedMs: t.arrived - r.sentEpoch, handledMs: t.acked - t.arrived };
  });
  return { responses, clicks, loop };
}

interface ClickRound {
  clicks: ClickTiming[];
  /** The bot's event loop from the first click until every ack was read (the work the clicks started included). */
  loop: LoopStats;
  /** Click sent → the answer posted in that card's thread. */
  clickToAnswerMs: number[];
  /** First click sent → last answer posted. */
  roundMs: number;
}

async function distinctCardsRound(env: Env, clicks: number): Promise<ClickRound & { cards: PostedCard[] }> {
  const runs = await prepareCards(env, clicks, 'd');
  const { responses, clicks: timings, loop } = await burst(
    env,
    env.h.client,
    runs.map((r) => approveClickBody(env.h.fakeOrigin, r.card, APPROVER)),
  );
  checkStatuses('distinct-card clicks', responses);
  const answers = await Promise.all(runs.map(waitForAnswer));
  await env.h.settle();
  for (const r of runs) {
    await env.executions.take(r.recordId);
    if (r.watch.cardUpdates !== 1) throw new Error(`card of ${r.recordId} was redrawn ${r.watch.cardUpdates} times, expected 1`);
    if (r.watch.other.length > 0 || r.watch.ephemerals > 0) throw new Error(`thread of ${r.recordId} got unexpected messages: ${r.watch.other.join(' | ')}`);
    env.h.traffic.forget(r.watch);
  }
  const first = Math.min(...responses.map((r) => r.at));
  return {
    clicks: timings,
    loop,
    clickToAnswerMs: answers.map((a, i) => a.at - responses[i]!.at),
    roundMs: Math.max(...answers.map((a) => a.at)) - first,
    cards: runs.map((r) => r.card),
  };
}

async function sameCardRound(env: Env, clicks: number): Promise<ClickRound> {
  const [run] = await prepareCards(env, 1, 's');
  const r = run!;
  const { responses, clicks: timings, loop } = await burst(
    env,
    env.h.client,
    APPROVERS.slice(0, clicks).map((user) => approveClickBody(env.h.fakeOrigin, r.card, user)),
  );
  checkStatuses('same-card clicks', responses);
  const answer = await waitForAnswer(r);
  await env.h.settle();
  // Exactly one click wins; everyone else is told, privately, that it was already approved.
  await env.executions.take(r.recordId);
  if (r.watch.ephemerals !== clicks - 1) throw new Error(`race on ${r.recordId}: ${r.watch.ephemerals} refusals for ${clicks - 1} losing clicks`);
  if (r.watch.cardUpdates !== 1) throw new Error(`race on ${r.recordId}: card redrawn ${r.watch.cardUpdates} times, expected 1`);
  if (r.watch.other.length > 0) throw new Error(`race on ${r.recordId}: unexpected messages: ${r.watch.other.join(' | ')}`);
  env.h.traffic.forget(r.watch);
  const first = Math.min(...responses.map((x) => x.at));
  return { clicks: timings, loop, clickToAnswerMs: [answer.at - first], roundMs: answer.at - first };
}

/**
 * The same bursts against a floor server alone in a fresh process, with that process's CPU per
 * request: 50 requests that arrive at once on one event loop are answered
 * one after the other, so the last ack waits for about 50 times this, whatever else happens.
 */
async function floorRounds(env: Env, kind: 'http' | 'bolt', rounds: number, bodies: string[]): Promise<{ clicks: ClickTiming[]; cpuUsPerRequest: number }> {
  const floor = await env.h.startFloorProcess(kind);
  try {
    const out: ClickTiming[] = [];
    let cpu0 = await floor.cpu();
    const warm = env.config.warmup.floorRounds;
    for (let i = 0; i < warm + rounds; i++) {
      const { responses, clicks } = await burst(env, floor.client, bodies, floor.takeServerTimings);
      checkStatuses(`${kind} floor`, responses);
      if (i >= warm) out.push(...clicks);
      else if (i === warm - 1) cpu0 = await floor.cpu();
    }
    const cpu1 = await floor.cpu();
    return { clicks: out, cpuUsPerRequest: round((cpu1.user - cpu0.user + cpu1.system - cpu0.system) / out.length, 0) };
  } finally {
    await floor.stop();
  }
}

const roundLoop = (l: LoopStats) => ({ maxDelayMs: round(l.maxDelayMs, 1), gcMs: round(l.gcMs, 1), gcMaxMs: round(l.gcMaxMs, 1) });

function clickSummary(clicks: ClickTiming[]) {
  const of = (key: keyof ClickTiming) => roundSummary(summarize(clicks.map((c) => c[key])));
  return { ackMs: of('ackMs'), totalMs: of('totalMs'), queuedMs: of('queuedMs'), handledMs: of('handledMs') };
}

export async function measureClicks(ctx: SuiteContext, env: Env) {
  const d = env.config.distinctCards;
  const s = env.config.sameCard;
  const warm = env.config.warmup.clickRounds;
  ctx.log(`click-to-ack: ${warm} + ${d.rounds} rounds × ${d.clicks} clicks on distinct cards, ${warm} + ${s.rounds} rounds × ${s.clicks} clicks on one card`);
  let cards: PostedCard[] = [];
  for (let i = 0; i < warm; i++) {
    cards = (await distinctCardsRound(env, d.clicks)).cards;
    await sameCardRound(env, s.clicks);
  }
  const distinct: ClickRound[] = [];
  const same: ClickRound[] = [];
  // Interleaved, so load that comes and goes on the machine hits both cases alike.
  for (let i = 0; i < Math.max(d.rounds, s.rounds); i++) {
    if (i < d.rounds) distinct.push(await distinctCardsRound(env, d.clicks));
    if (i < s.rounds) same.push(await sameCardRound(env, s.clicks));
  }
  ctx.log(
    `click-to-ack floors, each in a fresh process: ${env.config.warmup.floorRounds} + ${d.rounds} rounds × ${d.clicks} clicks on a bare node:http server, then on an ack-only Bolt app`,
  );
  // Real click bodies (already decided cards: the floors do not look at them).
  const floorBodies = cards.map((c) => approveClickBody(env.h.fakeOrigin, c, APPROVER));
  const http = await floorRounds(env, 'http', d.rounds, floorBodies);
  const bolt = await floorRounds(env, 'bolt', d.rounds, floorBodies);
  const flat = (rounds: ClickRound[]) => rounds.flatMap((r) => r.clicks);
  return {
    distinctCards: {
      rounds: d.rounds,
      clicksPerRound: d.clicks,
      ...clickSummary(flat(distinct)),
      /** p99 of each round on its own: shows whether one bad round makes the overall figure. */
      ackP99MsPerRound: distinct.map((r) => round(summarize(r.clicks.map((c) => c.ackMs)).p99, 2)),
      /** Per round: the bot's longest event-loop stall and its GC pauses during the burst. */
      loopPerRound: distinct.map((r) => roundLoop(r.loop)),
      clickToAnswerMs: roundSummary(summarize(distinct.flatMap((r) => r.clickToAnswerMs))),
      roundMs: roundSummary(summarize(distinct.map((r) => r.roundMs))),
    },
    sameCard: {
      rounds: s.rounds,
      clicksPerRound: s.clicks,
      ...clickSummary(flat(same)),
      ackP99MsPerRound: same.map((r) => round(summarize(r.clicks.map((c) => c.ackMs)).p99, 2)),
      loopPerRound: same.map((r) => roundLoop(r.loop)),
      firstClickToAnswerMs: roundSummary(summarize(same.flatMap((r) => r.clickToAnswerMs))),
    },
    floors: {
      bareHttp: { ...clickSummary(http.clicks), cpuUsPerRequest: http.cpuUsPerRequest },
      boltAckOnly: { ...clickSummary(bolt.clicks), cpuUsPerRequest: bolt.cpuUsPerRequest },
    },
  };
}

// ---------------------------------------------------------------------------------------------
// 2. Complete mention → card → Approve → answer cycles
