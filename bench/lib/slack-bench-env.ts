/**
 * What the slack suite's measurements share: its settings, the people who click, the count of the
 * bot's tool executions, and the mentions that start runs (see bench/suites/slack.ts).
 */
import { poolSize } from './bench-db.js';
import { mentionFor, withTimeout, type Mention, type PostedCard, type SignedResponse, type SlackHarness, type ThreadWatch } from './slack-harness.js';

export const fullConfig = {
  /** floorRounds: bursts a fresh floor process gets before it is measured (its code is cold: V8 compiles it meanwhile). */
  warmup: { sequentialCycles: 30, concurrentCycles: 1000, clickRounds: 1, floorRounds: 20 },
  /** Each round: this many suspended runs (one mention each), then one Approve click on each card, all at once. */
  distinctCards: { rounds: 10, clicks: 50 },
  /** Each round: one suspended run, then this many approvers click its Approve button at once. */
  sameCard: { rounds: 10, clicks: 50 },
  /**
   * Sequential cycles are measured in rounds, and the round with the median cycles/s is reported:
   * a round lasts about 3 s, and one busy moment of the machine (another process, the
   * hypervisor) moved a single round's CPU per cycle by a third.
   */
  sequential: { cycles: 300, rounds: 3 },
  concurrent: { cycles: 2000, inFlight: 20 },
  poolSize,
};

/** `--quick`: every measurement once with small counts (numbers not comparable). */
export const quickConfig: typeof fullConfig = {
  warmup: { sequentialCycles: 5, concurrentCycles: 20, clickRounds: 1, floorRounds: 2 },
  distinctCards: { rounds: 2, clicks: 50 },
  sameCard: { rounds: 2, clicks: 50 },
  sequential: { cycles: 50, rounds: 1 },
  concurrent: { cycles: 200, inFlight: 20 },
  poolSize,
};

export type SlackBenchConfig = typeof fullConfig;

const REQUESTER = 'U0BREQUESTR';
export const APPROVER = 'U0BAPPROVER';
/** Everyone who may approve: the race case has this many people click one card at once. */
export const APPROVERS = [APPROVER, ...Array.from({ length: 63 }, (_, i) => `U0BAPPR${String(i + 1).padStart(4, '0')}`)];

/** How long any one wait may take before the bench gives up (a lost message, not a slow one). */
const WAIT_MS = 20_000;

/**
 * Counts the bot's `execute` calls per record id (reported by the bot process), so every card can
 * be checked to have run its tool exactly once.
 */
export class Executions {
  private readonly byRecord = new Map<string, number>();
  private readonly waiters = new Map<string, () => void>();
  total = 0;

  readonly record = (recordId: string): void => {
    this.total += 1;
    this.byRecord.set(recordId, (this.byRecord.get(recordId) ?? 0) + 1);
    this.waiters.get(recordId)?.();
    this.waiters.delete(recordId);
  };

  /**
   * Throws unless the tool ran exactly once for this record; forgets it. (The report comes over
   * another channel than the answer, so it may still be on its way.) A later second run would
   * show up as a stray execution when the phase is checked.
   */
  async take(recordId: string): Promise<void> {
    if (!this.byRecord.has(recordId)) {
      await withTimeout(new Promise<void>((r) => this.waiters.set(recordId, r)), WAIT_MS, () => `execution of ${recordId}`);
    }
    const n = this.byRecord.get(recordId) ?? 0;
    if (n !== 1) throw new Error(`record ${recordId}: tool executed ${n} times, expected 1`);
    this.byRecord.delete(recordId);
  }

  /** Executions no check has claimed (should be none once a phase is over). */
  get stray(): number {
    return this.byRecord.size;
  }
}

export interface Env {
  h: SlackHarness;
  executions: Executions;
  config: SlackBenchConfig;
}

let recordCounter = 0;

export interface Planned {
  recordId: string;
  mention: Mention;
}

/** Mentions asking to delete new records, each in a channel of its own, seeded on the fake ahead of time. */
export async function plan(env: Env, n: number, prefix: string): Promise<Planned[]> {
  const planned = Array.from({ length: n }, () => {
    const recordId = `${prefix}${++recordCounter}`;
    return { recordId, mention: mentionFor(recordId, REQUESTER) };
  });
  // The messages exist on "Slack", so the bot's working reaction on them succeeds as it would.
  for (let i = 0; i < planned.length; i += 1000) await env.h.seed(planned.slice(i, i + 1000).map((p) => p.mention));
  return planned;
}

export interface Started {
  recordId: string;
  watch: ThreadWatch;
  /** performance.now() as the mention was sent. */
  at: number;
  mention: SignedResponse;
}

/** Sends the signed app_mention (to the bot unless another client is given). */
export async function mention(env: Env, p: Planned, client = env.h.client): Promise<Started> {
  const watch = env.h.traffic.watch(p.mention.channel, p.mention.ts);
  const request = client.prepare(p.mention.body);
  const response = await request.send();
  if (response.status !== 200) throw new Error(`app_mention for ${p.recordId} answered HTTP ${response.status}`);
  return { recordId: p.recordId, watch, at: response.at, mention: response };
}

export function waitForCard(s: Started): Promise<PostedCard> {
  return withTimeout(s.watch.card.promise, WAIT_MS, () => `approval card for ${s.recordId} (thread ${s.watch.channel}/${s.watch.threadTs}; other: ${s.watch.other.join(' | ')})`);
}

export async function waitForAnswer(s: Started) {
  const answer = await withTimeout(s.watch.answer.promise, WAIT_MS, () => `answer for ${s.recordId} (other: ${s.watch.other.join(' | ')})`);
  if (answer.text !== `Deleted ${s.recordId}.`) throw new Error(`record ${s.recordId}: unexpected answer "${answer.text}"`);
  return answer;
}

export function checkStatuses(what: string, responses: SignedResponse[]): void {
  const bad = responses.filter((r) => r.status !== 200);
  if (bad.length > 0) throw new Error(`${what}: ${bad.length} of ${responses.length} requests answered ${bad.map((r) => r.status).join(', ')}`);
}
