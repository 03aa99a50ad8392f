import { WebClient } from '@slack/web-api';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FAKE_BOT_TOKEN } from '../../../../src/simulator/index.js';
import { MethodPace, PacedClientStoppedError, PacedWebClient } from '../../../../src/slack/transport/paced-web-client.js';
import { useSimulatorClient } from '../../../helpers/simulator-client.js';
import { silentLogger } from '../../../helpers/silent-logger.js';

const CHANNEL = 'C0CHANNEL01';

describe('a method\'s pace', () => {
  afterEach(() => vi.useRealTimers());

  /** Starts `count` calls; returns when each started, in ms from now (fake clock). */
  async function starts(pace: MethodPace, count: number, runForMs: number): Promise<number[]> {
    const t0 = performance.now();
    const at: number[] = [];
    for (let i = 0; i < count; i++) void pace.turn().then(() => at.push(performance.now() - t0));
    await vi.advanceTimersByTimeAsync(runForMs);
    return at;
  }

  it('lets a burst of ten go at once, then about one a second (Tier 3), faster with each call that goes through while others wait', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const pace = new MethodPace();
    const at = await starts(pace, 13, 5_000);
    expect(at.slice(0, 10)).toEqual(Array(10).fill(0));
    expect(at.slice(10)).toEqual([1_000, 2_000, 3_000]);
    // Nothing waits now: a method used now and then keeps its pace.
    pace.succeeded();
    expect(pace.perMinute).toBeCloseTo(60);
    const busy = new MethodPace();
    const waiting = await starts(busy, 12, 0);
    expect(waiting).toHaveLength(10);
    // Until Slack first refuses a call, 10% a call; after that, 2%.
    busy.succeeded();
    expect(busy.perMinute).toBeCloseTo(66);
    busy.limited(0);
    busy.succeeded();
    expect(busy.perMinute).toBeCloseTo(66 * 0.7 * 1.02);
  });

  it('after a 429 holds every call until Retry-After has passed, and slows down once for the calls that heard it together', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const pace = new MethodPace();
    pace.limited(2);
    pace.limited(2);
    pace.limited(2);
    expect(pace.perMinute).toBeCloseTo(42);
    const at = await starts(pace, 2, 10_000);
    expect(at[0]).toBe(2_000);
    expect(at[1]).toBeCloseTo(2_000 + 60_000 / 42, -1);
  });

  it('fails the calls still waiting when dropped (a stop)', async () => {
    const pace = new MethodPace();
    pace.limited(60);
    const waiting = pace.turn();
    pace.drop(new PacedClientStoppedError());
    await expect(waiting).rejects.toBeInstanceOf(PacedClientStoppedError);
  });
});

describe('the backlog\'s Web API client', () => {
  const sim = useSimulatorClient();

  it('waits out a 429 and sends the call again on its own, while the app\'s client goes on unpaused; the app\'s 429s slow it down', async () => {
    const app = new WebClient(FAKE_BOT_TOKEN, { slackApiUrl: sim.slack.apiUrl, retryConfig: { retries: 0 }, logger: silentLogger });
    const paced = new PacedWebClient(FAKE_BOT_TOKEN, { slackApiUrl: sim.slack.apiUrl, retryConfig: { retries: 0 }, logger: silentLogger }, app);
    await sim.web.chat.postMessage({ channel: CHANNEL, text: 'card' });
    const ts = sim.slack.messages(CHANNEL)[0]!.ts;

    sim.slack.failNext('chat.update', { status: 429, retryAfter: 1 });
    const order: string[] = [];
    const redraw = paced.chat.update({ channel: CHANNEL, ts, text: 'expired' }).then(() => order.push('backlog redraw'));
    await sim.slack.waitFor((c) => c.method === 'chat.update' && c.status === 429);
    await app.chat.postMessage({ channel: CHANNEL, text: 'a click answered' }).then(() => order.push('app call'));
    await redraw;
    expect(order).toEqual(['app call', 'backlog redraw']);
    expect(sim.slack.callsTo('chat.update').map((c) => c.status)).toEqual([429, 200]);
    expect(sim.slack.messages(CHANNEL)[0]!.text).toBe('expired');
    expect(paced.perMinute('chat.update')).toBeCloseTo(42);

    // Slack limits the app per method: when the app's own client is refused, the backlog gives way on that method.
    sim.slack.failNext('chat.postMessage', { status: 429, retryAfter: 1 });
    await expect(app.chat.postMessage({ channel: CHANNEL, text: 'refused' })).rejects.toThrow();
    expect(paced.perMinute('chat.postMessage')).toBeCloseTo(42);

    paced.stop();
    await expect(paced.chat.update({ channel: CHANNEL, ts, text: 'too late' })).rejects.toBeInstanceOf(PacedClientStoppedError);
  });
});
