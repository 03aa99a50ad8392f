import type { WebAPIPlatformError } from '@slack/web-api';
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
