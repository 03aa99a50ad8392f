import { WebClient } from '@slack/web-api';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FAKE_BOT_TOKEN, startSlackSimulator, type SlackSimulator } from '../../../src/simulator/index.js';
import { silentLogger } from '../../helpers/silent-logger.js';
import { platformError } from '../../helpers/simulator-client.js';

const CHANNEL = 'C0CHANNEL01';
const THREAD = '1726133000.000100';

describe('simulator: assistant status and streamed messages', () => {
  let fake: SlackSimulator;
  let web: WebClient;
  beforeAll(async () => {
    fake = await startSlackSimulator({ usergroups: { S0FIN: ['U0A'] }, usergroupHandles: { S0FIN: 'finance' } });
    web = new WebClient(FAKE_BOT_TOKEN, { slackApiUrl: fake.apiUrl, retryConfig: { retries: 0 }, logger: silentLogger });
  });
  afterEach(() => fake.reset());
  afterAll(() => fake.close());

  it('assistant.threads.setStatus records the status, an empty one clearing it; a missing one is invalid_arguments', async () => {
    await web.assistant.threads.setStatus({ channel_id: CHANNEL, thread_ts: THREAD, status: 'waiting for approval from @finance' });
    expect(fake.assistantStatus(CHANNEL, THREAD)).toBe('waiting for approval from @finance');
    await web.assistant.threads.setStatus({ channel_id: CHANNEL, thread_ts: THREAD, status: '' });
    expect(fake.assistantStatus(CHANNEL, THREAD)).toBe('');
    const missing = await platformError(web.apiCall('assistant.threads.setStatus', { channel_id: CHANNEL, thread_ts: THREAD }));
    expect(missing.data.error).toBe('invalid_arguments');
    expect(fake.callsTo('assistant.threads.setStatus').map((c) => c.ok)).toEqual([true, true, false]);
  });

  it('a stream grows one message: start, append, stop (with metadata); appending after the stop is refused', async () => {
    const started = await web.chat.startStream({ channel: CHANNEL, thread_ts: THREAD, markdown_text: 'Hello', recipient_user_id: 'U0A', recipient_team_id: 'T0TEAM' });
    const ts = started.ts!;
    expect(fake.isStreaming(CHANNEL, ts)).toBe(true);
    await web.chat.appendStream({ channel: CHANNEL, ts, markdown_text: ', world' });
    await web.chat.stopStream({ channel: CHANNEL, ts, markdown_text: '!', metadata: { event_type: 'x', event_payload: { a: 1 } } });
    expect(fake.message(CHANNEL, ts)).toMatchObject({ text: 'Hello, world!', thread_ts: THREAD, metadata: { event_type: 'x' } });
    expect(fake.isStreaming(CHANNEL, ts)).toBe(false);
    expect((await platformError(web.chat.appendStream({ channel: CHANNEL, ts, markdown_text: 'more' }))).data.error).toBe('message_not_in_streaming_state');
    expect((await platformError(web.chat.appendStream({ channel: CHANNEL, ts: '1.000001', markdown_text: 'x' }))).data.error).toBe('message_not_found');
  });

  it('outside a DM a stream needs its recipient; in a DM it does not; markdown_text is at most 12,000 characters', async () => {
    expect((await platformError(web.chat.startStream({ channel: CHANNEL, thread_ts: THREAD, markdown_text: 'x' }))).data.error).toBe('invalid_arguments');
    const dm = await web.chat.startStream({ channel: 'D0A', thread_ts: THREAD, markdown_text: 'x' });
    expect(dm.ok).toBe(true);
    expect((await platformError(web.chat.appendStream({ channel: 'D0A', ts: dm.ts!, markdown_text: 'y'.repeat(12_001) }))).data.error).toBe('msg_too_long');
  });

  it('fault injection applies to the streaming methods', async () => {
    fake.failNext('chat.startStream', { error: 'not_allowed_token_type' });
    expect((await platformError(web.chat.startStream({ channel: 'D0A', thread_ts: THREAD, markdown_text: 'x' }))).data.error).toBe('not_allowed_token_type');
  });

  it('usergroups.list gives each group its handle', async () => {
    const list = await web.usergroups.list({});
    expect(list.usergroups?.map((g) => [g.id, g.handle])).toEqual([['S0FIN', 'finance']]);
  });
});
