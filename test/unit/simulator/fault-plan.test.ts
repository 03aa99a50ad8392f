import { WebClient, type WebAPIPlatformError } from '@slack/web-api';
import { FAKE_BOT_TOKEN } from '../../../src/simulator/index.js';
import { describe, expect, it } from 'vitest';
import { useSimulatorClient } from '../../helpers/simulator-client.js';

const CHANNEL = 'C0CHANNEL01';

describe('Slack simulator fault injection per method and call count', () => {
  const sim = useSimulatorClient();

  it('failCall fails only the n-th call from now; the calls before and after it succeed', async () => {
    await sim.web.chat.postMessage({ channel: CHANNEL, text: 'before the plan' });
    sim.slack.failCall('chat.postMessage', 3, { error: 'channel_not_found' });
    const outcomes: string[] = [];
    for (let i = 1; i <= 4; i++) {
      outcomes.push(await sim.web.chat.postMessage({ channel: CHANNEL, text: `m${i}` }).then(() => 'ok', (e: WebAPIPlatformError) => e.data.error));
    }
    expect(outcomes).toEqual(['ok', 'ok', 'channel_not_found', 'ok']);
    expect(sim.slack.messages(CHANNEL).map((m) => m.text)).toEqual(['before the plan', 'm1', 'm2', 'm4']);
  });

  it('faults are per method: another method is not affected', async () => {
    sim.slack.failNext('chat.update', { status: 503 });
    await expect(sim.web.chat.postMessage({ channel: CHANNEL, text: 'fine' })).resolves.toMatchObject({ ok: true });
    const posted = sim.slack.messages(CHANNEL)[0]!;
    await expect(sim.web.chat.update({ channel: CHANNEL, ts: posted.ts, text: 'x' })).rejects.toThrow();
    expect(sim.slack.callsTo('chat.update').map((c) => c.status)).toEqual([503]);
  });

  it('dropResponseNext applies the call but never answers: the caller sees a failure, Slack has the message', async () => {
    sim.slack.dropResponseNext('chat.postMessage');
    await expect(sim.web.chat.postMessage({ channel: CHANNEL, text: 'lost answer' })).rejects.toThrow();
    expect(sim.slack.messages(CHANNEL).map((m) => m.text)).toEqual(['lost answer']);
    await expect(sim.web.chat.postMessage({ channel: CHANNEL, text: 'answered' })).resolves.toMatchObject({ ok: true });
  });

  it('rateLimit answers 429 with Retry-After past the burst, as Slack does per method, and lets calls through as the limit refills', async () => {
    await sim.web.chat.postMessage({ channel: CHANNEL, text: 'card' });
    const ts = sim.slack.messages(CHANNEL)[0]!.ts;
    // 50 a minute (Tier 3), bursts of 3: the fourth call at once is refused for about 1.2 s.
    sim.slack.rateLimit('chat.update', { perMinute: 50, burst: 3 });
    // Refused calls come back at once instead of pausing the client for Retry-After.
    const web = new WebClient(FAKE_BOT_TOKEN, { slackApiUrl: sim.slack.apiUrl, retryConfig: { retries: 0 }, rejectRateLimitedCalls: true });
    const outcomes: string[] = [];
    for (let i = 1; i <= 5; i++) {
      outcomes.push(await web.chat.update({ channel: CHANNEL, ts, text: `v${i}` }).then(() => 'ok', (e: { code?: string; retryAfter?: number }) => `${e.code}:${e.retryAfter}`));
    }
    expect(outcomes).toEqual(['ok', 'ok', 'ok', 'slack_webapi_rate_limited_error:2', 'slack_webapi_rate_limited_error:2']);
    expect(sim.slack.callsTo('chat.update').map((c) => c.status)).toEqual([200, 200, 200, 429, 429]);
    expect(sim.slack.messages(CHANNEL)[0]!.text).toBe('v3');
    // Another method is not limited.
    await expect(sim.web.chat.postMessage({ channel: CHANNEL, text: 'fine' })).resolves.toMatchObject({ ok: true });
    sim.slack.rateLimit('chat.update', undefined);
    await expect(sim.web.chat.update({ channel: CHANNEL, ts, text: 'v6' })).resolves.toMatchObject({ ok: true });
  });

  it('delayNext holds the answer for the given time', async () => {
    sim.slack.delayNext('auth.test', 300);
    const started = performance.now();
    await sim.web.auth.test();
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
  });

  it('onCall sees every call once, after its effect, until unsubscribed', async () => {
    const seen: string[] = [];
    const stop = sim.slack.onCall((call) => seen.push(`${call.method}:${sim.slack.messages(CHANNEL).length}`));
    await sim.web.chat.postMessage({ channel: CHANNEL, text: 'one' });
    stop();
    await sim.web.chat.postMessage({ channel: CHANNEL, text: 'two' });
    expect(seen).toEqual(['chat.postMessage:1']);
  });
});
