import { WebClient, type WebAPIPlatformError } from '@slack/web-api';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FAKE_BOT_TOKEN, startSlackSimulator, type SlackSimulator } from '../../../src/simulator/index.js';
import { silentLogger as silent } from '../../helpers/silent-logger.js';

const CHANNEL = 'C0CHANNEL01';

describe('Slack simulator fault injection per method and call count', () => {
  let slack: SlackSimulator;
  let web: WebClient;

  beforeAll(async () => {
    slack = await startSlackSimulator();
    web = new WebClient(FAKE_BOT_TOKEN, { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 }, logger: silent });
  });
  afterAll(() => slack.close());
  beforeEach(() => slack.reset());

  it('failCall fails only the n-th call from now; the calls before and after it succeed', async () => {
    await web.chat.postMessage({ channel: CHANNEL, text: 'before the plan' });
    slack.failCall('chat.postMessage', 3, { error: 'channel_not_found' });
    const outcomes: string[] = [];
    for (let i = 1; i <= 4; i++) {
      outcomes.push(await web.chat.postMessage({ channel: CHANNEL, text: `m${i}` }).then(() => 'ok', (e: WebAPIPlatformError) => e.data.error));
    }
    expect(outcomes).toEqual(['ok', 'ok', 'channel_not_found', 'ok']);
    expect(slack.messages(CHANNEL).map((m) => m.text)).toEqual(['before the plan', 'm1', 'm2', 'm4']);
  });

  it('faults are per method: another method is not affected', async () => {
    slack.failNext('chat.update', { status: 503 });
    await expect(web.chat.postMessage({ channel: CHANNEL, text: 'fine' })).resolves.toMatchObject({ ok: true });
    const posted = slack.messages(CHANNEL)[0]!;
    await expect(web.chat.update({ channel: CHANNEL, ts: posted.ts, text: 'x' })).rejects.toThrow();
    expect(slack.callsTo('chat.update').map((c) => c.status)).toEqual([503]);
  });

  it('dropResponseNext applies the call but never answers: the caller sees a failure, Slack has the message', async () => {
    slack.dropResponseNext('chat.postMessage');
    await expect(web.chat.postMessage({ channel: CHANNEL, text: 'lost answer' })).rejects.toThrow();
    expect(slack.messages(CHANNEL).map((m) => m.text)).toEqual(['lost answer']);
    await expect(web.chat.postMessage({ channel: CHANNEL, text: 'answered' })).resolves.toMatchObject({ ok: true });
  });

  it('delayNext holds the answer for the given time', async () => {
    slack.delayNext('auth.test', 300);
    const started = performance.now();
    await web.auth.test();
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
  });

  it('onCall sees every call once, after its effect, until unsubscribed', async () => {
    const seen: string[] = [];
    const stop = slack.onCall((call) => seen.push(`${call.method}:${slack.messages(CHANNEL).length}`));
    await web.chat.postMessage({ channel: CHANNEL, text: 'one' });
    stop();
    await web.chat.postMessage({ channel: CHANNEL, text: 'two' });
    expect(seen).toEqual(['chat.postMessage:1']);
  });
});
