import { createHmac } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { App, LogLevel } from '@slack/bolt';
import { ErrorCode, WebClient, WebClientEvent } from '@slack/web-api';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  FAKE_BOT_TOKEN,
  SLACK_IDS,
  appMentionEnvelope,
  blockActionsPayload,
  formBody,
  messageEnvelope,
  newTriggerId,
  richTextElements,
  sendSigned,
  signRequest,
  startSlackSimulator,
  viewSubmissionPayload,
  type SlackSimulator,
} from '../../../src/simulator/index.js';
import { silentLogger as silent } from '../../helpers/silent-logger.js';
import { platformError } from '../../helpers/simulator-client.js';

const CHANNEL = 'C0CHANNEL01';

const quiet = { logger: silent };

function client(fake: SlackSimulator, token: string = FAKE_BOT_TOKEN, extra: object = {}): WebClient {
  return new WebClient(token, { slackApiUrl: fake.apiUrl, retryConfig: { retries: 0 }, ...quiet, ...extra });
}

const approvalBlocks = [
  { type: 'header', block_id: 'req-42-hdr', text: { type: 'plain_text', text: 'Approval request #42', emoji: true } },
  {
    type: 'section',
    block_id: 'req-42-body',
    text: { type: 'mrkdwn', text: '*Deploy* api v2.3 to prod &amp; migrate', verbatim: true },
  },
  {
    type: 'actions',
    block_id: 'req-42-actions',
    elements: [
      { type: 'button', action_id: 'approval.approve', text: { type: 'plain_text', text: 'Approve' }, style: 'primary', value: '{"req":42,"v":1}' },
      { type: 'button', action_id: 'approval.reject', text: { type: 'plain_text', text: 'Reject' }, style: 'danger', value: '{"req":42,"v":1}' },
    ],
  },
];

describe('fake Slack Web API through the real WebClient', () => {
  let fake: SlackSimulator;
  let web: WebClient;

  beforeAll(async () => {
    fake = await startSlackSimulator({ usergroups: { S0APPROVERS: ['U0APPROVER1', 'U0APPROVER2'] } });
    web = client(fake);
  });
  afterEach(() => fake.reset());
  afterAll(() => fake.close());

  it('serves on loopback with an apiUrl WebClient can use', () => {
    expect(fake.apiUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/$/);
  });

  it('auth.test reports the bot identity', async () => {
    const res = await web.auth.test();
    expect(res).toMatchObject({
      ok: true,
      user_id: 'U0BOTUSER',
      bot_id: 'B0BOTID0001',
      team_id: 'T0G9PQBBK',
      team: expect.any(String),
      user: expect.any(String),
      url: expect.stringMatching(/^https:\/\//),
    });
  });

  it('chat.postMessage round-trips blocks that WebClient form-encodes as JSON strings', async () => {
    const res = await web.chat.postMessage({ channel: CHANNEL, text: 'Approval request #42', blocks: approvalBlocks, thread_ts: '1726133698.626339' });
    expect(res.ok).toBe(true);
    expect(res.channel).toBe(CHANNEL);
    expect(res.ts).toMatch(/^\d{10}\.\d{6}$/);
    expect(res.message?.blocks).toEqual(approvalBlocks);
    expect(res.message).toMatchObject({ bot_id: SLACK_IDS.botId, user: SLACK_IDS.botUserId, thread_ts: '1726133698.626339' });

    // Proves the fake saw a form body and decoded the nested field, not that it was handed objects.
    const [call] = fake.callsTo('chat.postMessage');
    expect(call?.args.blocks).toEqual(approvalBlocks);
    expect(call?.token).toBe(FAKE_BOT_TOKEN);

    const stored = fake.messages(CHANNEL, '1726133698.626339');
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({ ts: res.ts, text: 'Approval request #42', blocks: approvalBlocks });
  });

  it('hands out unique, increasing ts values', async () => {
    const a = await web.chat.postMessage({ channel: CHANNEL, text: 'one' });
    const b = await web.chat.postMessage({ channel: CHANNEL, text: 'two' });
    expect(a.ts).toBe('1726133700.000100');
    expect(b.ts).toBe('1726133700.000200');
    expect(fake.messages(CHANNEL).map((m) => m.text)).toEqual(['one', 'two']);
  });

  it('chat.update replaces the stored message', async () => {
    const posted = await web.chat.postMessage({ channel: CHANNEL, text: 'pending', blocks: approvalBlocks });
    const decided = [{ type: 'section', text: { type: 'mrkdwn', text: 'Approved by <@U0APPROVER1>' } }];
    const res = await web.chat.update({ channel: CHANNEL, ts: posted.ts!, text: 'approved', blocks: decided });
    expect(res).toMatchObject({ ok: true, channel: CHANNEL, ts: posted.ts, text: 'approved' });
    const stored = fake.message(CHANNEL, posted.ts!);
    expect(stored?.text).toBe('approved');
    expect(stored?.blocks).toEqual(decided);
    expect(stored?.edited?.user).toBe(SLACK_IDS.botUserId);
  });

  it('records ephemeral messages separately from the channel', async () => {
    const res = await web.chat.postEphemeral({ channel: CHANNEL, user: 'U0APPROVER1', text: 'only you can see this', thread_ts: '1726133698.626339' });
    expect(res.ok).toBe(true);
    expect(res.message_ts).toMatch(/^\d{10}\.\d{6}$/);
    expect(fake.ephemerals(CHANNEL)).toEqual([
      { channel: CHANNEL, user: 'U0APPROVER1', message_ts: res.message_ts, text: 'only you can see this', thread_ts: '1726133698.626339' },
    ]);
    expect(fake.messages(CHANNEL)).toEqual([]);
  });

  it('keeps thread bookkeeping and serves conversations.replies with pagination', async () => {
    const root = fake.seedMessage({ channel: CHANNEL, user: 'U0REQUESTER', text: 'please approve', ts: '1726133698.626339' });
    await web.chat.postMessage({ channel: CHANNEL, thread_ts: root.ts, text: 'request #42' });
    fake.seedMessage({ channel: CHANNEL, user: 'U0APPROVER1', text: 'lgtm', threadTs: root.ts });

    const texts: string[] = [];
    for await (const page of web.paginate('conversations.replies', { channel: CHANNEL, ts: root.ts, limit: 2 })) {
      for (const m of (page as unknown as { messages: Array<{ text: string }> }).messages) texts.push(m.text);
    }
    expect(texts).toEqual(['please approve', 'request #42', 'lgtm']);
    expect(fake.message(CHANNEL, root.ts)).toMatchObject({ reply_count: 2, thread_ts: root.ts, reply_users: [SLACK_IDS.botUserId, 'U0APPROVER1'] });
    expect((await platformError(web.conversations.replies({ channel: CHANNEL, ts: '1.000000' }))).data.error).toBe('thread_not_found');
  });

  it('lists message metadata only with include_all_metadata, and bounds replies and history by oldest/latest', async () => {
    const root = fake.seedMessage({ channel: CHANNEL, user: 'U0REQUESTER', text: 'please approve', ts: '1726133698.000100' });
    const metadata = { event_type: 'approval_bot_card', event_payload: { action_ids: '42' } };
    const early = fake.seedMessage({ channel: CHANNEL, user: 'U0APPROVER1', text: 'early', threadTs: root.ts, ts: '1726133698.000200' });
    const card = await web.chat.postMessage({ channel: CHANNEL, thread_ts: root.ts, text: 'request #42', metadata });
    const top = await web.chat.postMessage({ channel: CHANNEL, text: 'top level', metadata });

    type Listed = { ts: string; text: string; metadata?: unknown };
    const replies = async (args: Record<string, unknown>) =>
      ((await web.conversations.replies({ channel: CHANNEL, ts: root.ts, ...args })).messages as Listed[]).map((m) => [m.text, m.metadata]);
    expect(await replies({})).toEqual([['please approve', undefined], ['early', undefined], ['request #42', undefined]]);
    expect(await replies({ include_all_metadata: true })).toEqual([['please approve', undefined], ['early', undefined], ['request #42', metadata]]);
    // The root always comes first; the window bounds the replies (oldest excluded unless inclusive).
    expect(await replies({ oldest: early.ts })).toEqual([['please approve', undefined], ['request #42', undefined]]);
    expect(await replies({ oldest: early.ts, inclusive: true, latest: early.ts })).toEqual([['please approve', undefined], ['early', undefined]]);

    const history = async (args: Record<string, unknown>) => ((await web.conversations.history({ channel: CHANNEL, ...args })).messages as Listed[]).map((m) => [m.text, m.metadata]);
    expect(await history({ include_all_metadata: true })).toEqual([['top level', metadata], ['please approve', undefined]]);
    expect(await history({})).toEqual([['top level', undefined], ['please approve', undefined]]);
    expect(await history({ latest: top.ts! })).toEqual([['please approve', undefined]]);
    expect(await history({ oldest: top.ts!, latest: top.ts!, inclusive: true, include_all_metadata: true })).toEqual([['top level', metadata]]);
    // The message itself keeps it: a later call that asks sees it.
    expect(fake.message(CHANNEL, card.ts!)?.metadata).toEqual(metadata);
  });

  it('reactions behave like Slack, including already_reacted and no_reaction', async () => {
    const posted = await web.chat.postMessage({ channel: CHANNEL, text: 'x' });
    await web.reactions.add({ channel: CHANNEL, timestamp: posted.ts!, name: 'hourglass' });
    expect(fake.message(CHANNEL, posted.ts!)?.reactions).toEqual([{ name: 'hourglass', users: [SLACK_IDS.botUserId], count: 1 }]);
    expect((await platformError(web.reactions.add({ channel: CHANNEL, timestamp: posted.ts!, name: 'hourglass' }))).data.error).toBe('already_reacted');
    await web.reactions.remove({ channel: CHANNEL, timestamp: posted.ts!, name: 'hourglass' });
    expect(fake.message(CHANNEL, posted.ts!)?.reactions).toBeUndefined();
    expect((await platformError(web.reactions.remove({ channel: CHANNEL, timestamp: posted.ts!, name: 'hourglass' }))).data.error).toBe('no_reaction');
  });

  it('chat.delete removes the message', async () => {
    const posted = await web.chat.postMessage({ channel: CHANNEL, text: 'bye' });
    await web.chat.delete({ channel: CHANNEL, ts: posted.ts! });
    expect(fake.messages(CHANNEL)).toEqual([]);
    expect((await platformError(web.chat.delete({ channel: CHANNEL, ts: posted.ts! }))).data.error).toBe('message_not_found');
  });

  it('views.open / views.update keep the view and can expire triggers', async () => {
    const view = {
      type: 'modal' as const,
      callback_id: 'approval_reject_modal',
      private_metadata: '{"req":42}',
      title: { type: 'plain_text' as const, text: 'Reject request' },
      submit: { type: 'plain_text' as const, text: 'Reject' },
      blocks: [{ type: 'input', block_id: 'reason', label: { type: 'plain_text', text: 'Reason' }, element: { type: 'plain_text_input', action_id: 'reason_input' } }],
    };
    const opened = await web.views.open({ trigger_id: newTriggerId(), view });
    expect(opened.view).toMatchObject({ id: expect.stringMatching(/^V/), callback_id: 'approval_reject_modal', private_metadata: '{"req":42}', state: { values: {} } });

    const updated = await web.views.update({ view_id: opened.view!.id!, hash: opened.view!.hash!, view: { ...view, private_metadata: '{"req":43}' } });
    expect(updated.view?.id).toBe(opened.view?.id);
    expect(fake.view(opened.view!.id!)?.private_metadata).toBe('{"req":43}');
    expect((await platformError(web.views.update({ view_id: opened.view!.id!, hash: opened.view!.hash!, view }))).data.error).toBe('hash_conflict');

    fake.setExpiredTriggerIds('all');
    expect((await platformError(web.views.open({ trigger_id: newTriggerId(), view }))).data.error).toBe('expired_trigger_id');
  });

  it('usergroups.users.list serves the configured map', async () => {
    expect((await web.usergroups.users.list({ usergroup: 'S0APPROVERS' })).users).toEqual(['U0APPROVER1', 'U0APPROVER2']);
    expect((await platformError(web.usergroups.users.list({ usergroup: 'S0NOPE' }))).data.error).toBe('no_such_subteam');
  });

  it('users.info returns a minimal profile', async () => {
    const res = await web.users.info({ user: 'U0APPROVER1' });
    expect(res.user).toMatchObject({ id: 'U0APPROVER1', is_bot: false, deleted: false });
  });

  it('surfaces errors as WebClient platform errors carrying data.error', async () => {
    const err = await platformError(web.chat.update({ channel: CHANNEL, ts: '1726133600.000100', text: 'x' }));
    expect(err.code).toBe(ErrorCode.PlatformError);
    expect(err.data).toMatchObject({ ok: false, error: 'message_not_found' });

    expect((await platformError(web.apiCall('chat.nonsense', {}))).data.error).toBe('unknown_method');
    expect((await platformError(web.apiCall('chat.postMessage', { text: 'no channel' }))).data.error).toBe('invalid_arguments');
  });

  it('enforces Slack message limits', async () => {
    const many = Array.from({ length: 51 }, () => ({ type: 'divider' }));
    expect((await platformError(web.chat.postMessage({ channel: CHANNEL, text: 't', blocks: many }))).data.error).toBe('invalid_blocks');

    const bulky = Array.from({ length: 6 }, (_, i) => ({ type: 'section', block_id: `b${i}`, text: { type: 'mrkdwn', text: 'x'.repeat(2500) } }));
    expect((await platformError(web.chat.postMessage({ channel: CHANNEL, text: 't', blocks: bulky }))).data.error).toBe('msg_blocks_too_long');

    expect((await platformError(web.chat.postMessage({ channel: CHANNEL, text: 'x'.repeat(40_001) }))).data.error).toBe('msg_too_long');

    const longSection = [{ type: 'section', text: { type: 'mrkdwn', text: 'x'.repeat(3001) } }];
    const err = await platformError(web.chat.postMessage({ channel: CHANNEL, text: 't', blocks: longSection }));
    expect(err.data.error).toBe('invalid_blocks');
    expect(err.data.response_metadata?.messages?.[0]).toContain('/blocks/0/text/text');

    // Text objects anywhere below a block: a blank context line, a confirm dialog's long title.
    const confirm = { title: { type: 'plain_text', text: 'x'.repeat(101) }, text: { type: 'mrkdwn', text: 'Sure?' }, confirm: { type: 'plain_text', text: 'Yes' }, deny: { type: 'plain_text', text: 'No' } };
    const deep = [
      { type: 'context', elements: [{ type: 'mrkdwn', text: ' ' }] },
      { type: 'actions', elements: [{ type: 'button', action_id: 'go', text: { type: 'plain_text', text: 'Go' }, confirm }] },
    ];
    const deepErr = await platformError(web.chat.postMessage({ channel: CHANNEL, text: 't', blocks: deep }));
    expect(deepErr.data.error).toBe('invalid_blocks');
    expect(deepErr.data.response_metadata?.messages).toEqual([
      '[ERROR] must be more than 0 characters [json-pointer:/blocks/0/elements/0/text]',
      '[ERROR] must be less than 101 characters [json-pointer:/blocks/1/elements/0/confirm/title/text]',
    ]);
    expect(fake.messages(CHANNEL)).toEqual([]);
  });

  it('rejects unknown tokens as invalid_auth and missing ones as not_authed', async () => {
    const stranger = client(fake, 'xoxb-not-a-real-token');
    expect((await platformError(stranger.chat.postMessage({ channel: CHANNEL, text: 'hi' }))).data.error).toBe('invalid_auth');
    const anonymous = new WebClient(undefined, { slackApiUrl: fake.apiUrl, retryConfig: { retries: 0 }, ...quiet });
    expect((await platformError(anonymous.auth.test())).data.error).toBe('not_authed');
    expect(fake.messages(CHANNEL)).toEqual([]);
  });

  it('accepts JSON bodies too', async () => {
    const res = await fetch(`${fake.apiUrl}chat.postMessage`, {
      method: 'POST',
      headers: { authorization: `Bearer ${FAKE_BOT_TOKEN}`, 'content-type': 'application/json; charset=utf-8' },
      body: JSON.stringify({ channel: CHANNEL, text: 'json', blocks: [{ type: 'divider' }] }),
    });
    expect(await res.json()).toMatchObject({ ok: true, message: { text: 'json', blocks: [{ type: 'divider' }] } });
  });

  it('serves response_url posts: ephemeral by default, replace_original edits the source message', async () => {
    const posted = await web.chat.postMessage({ channel: CHANNEL, text: 'pending' });
    const url = fake.responseUrl({ channel: CHANNEL, messageTs: posted.ts!, user: 'U0APPROVER1' });
    const post = (body: object) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

    expect((await post({ text: 'you are not an approver' })).status).toBe(200);
    expect(fake.ephemerals(CHANNEL)).toMatchObject([{ user: 'U0APPROVER1', text: 'you are not an approver' }]);

    await post({ replace_original: true, text: 'approved' });
    expect(fake.message(CHANNEL, posted.ts!)?.text).toBe('approved');
    expect(fake.callsTo('response_url')).toHaveLength(2);
  });

  describe('fault injection', () => {
    it('a 429 carries Retry-After, and WebClient waits it out and retries', async () => {
      fake.failNext('chat.postMessage', { status: 429, retryAfter: 1 });
      const retrying = client(fake, FAKE_BOT_TOKEN, { retryConfig: { retries: 2, minTimeout: 10 } });
      const rateLimited: number[] = [];
      retrying.on(WebClientEvent.RATE_LIMITED, (sec: number) => rateLimited.push(sec));

      const started = performance.now();
      const res = await retrying.chat.postMessage({ channel: CHANNEL, text: 'eventually' });
      const elapsed = performance.now() - started;

      expect(res.ok).toBe(true);
      expect(rateLimited).toEqual([1]);
      expect(elapsed).toBeGreaterThanOrEqual(950);
      expect(fake.callsTo('chat.postMessage').map((c) => c.status)).toEqual([429, 200]);
      expect(fake.messages(CHANNEL)).toHaveLength(1);
    });

    it('sends the Retry-After header on the wire', async () => {
      fake.failNext('auth.test', { status: 429, retryAfter: 7 });
      const res = await fetch(`${fake.apiUrl}auth.test`, { method: 'POST', headers: { authorization: `Bearer ${FAKE_BOT_TOKEN}` } });
      expect(res.status).toBe(429);
      expect(res.headers.get('retry-after')).toBe('7');
      expect(await res.json()).toEqual({ ok: false, error: 'ratelimited' });
    });

    it('5xx is retried by WebClient; faults queue per method and run out', async () => {
      fake.failNext('chat.postMessage', { status: 500 }, 2);
      const retrying = client(fake, FAKE_BOT_TOKEN, { retryConfig: { retries: 2, minTimeout: 10 } });
      await expect(retrying.chat.postMessage({ channel: CHANNEL, text: 'third time lucky' })).resolves.toMatchObject({ ok: true });
      expect(fake.callsTo('chat.postMessage').map((c) => c.status)).toEqual([500, 500, 200]);
    });

    it('{ error } answers ok:false, which WebClient does not retry', async () => {
      fake.failNext('chat.update', { error: 'ratelimited' });
      const err = await platformError(web.chat.update({ channel: CHANNEL, ts: '1726133700.000100', text: 'x' }));
      expect(err.data.error).toBe('ratelimited');
      expect(fake.callsTo('chat.update')).toHaveLength(1);
    });
  });

  describe('waitFor', () => {
    it('resolves on a call that arrives later, and on one already recorded', async () => {
      const waiting = fake.waitFor((c) => c.method === 'chat.postMessage' && c.args.text === 'later', { timeoutMs: 2000 });
      await web.chat.postMessage({ channel: CHANNEL, text: 'later' });
      const call = await waiting;
      expect(call.ok).toBe(true);
      // The call is announced after state changes, so the message is already visible.
      expect(fake.messages(CHANNEL).map((m) => m.text)).toEqual(['later']);
      await expect(fake.waitFor('chat.postMessage', { timeoutMs: 10 })).resolves.toMatchObject({ method: 'chat.postMessage' });
    });

    it('rejects after the timeout, listing what it saw', async () => {
      await web.auth.test();
      await expect(fake.waitFor('views.open', { timeoutMs: 50 })).rejects.toThrow(/within 50ms.*auth\.test/);
    });
  });
});

// -----------------------------------------------------------------------------------------------
// Signing
// -----------------------------------------------------------------------------------------------

/**
 * Copied from the reference capture of Slack's signing (fake secret), so the project carries its
 * own fixture: an Events API app_mention and a url_verification challenge.
 */
const VECTOR = {
  secret: 'test-signing-secret-0123456789abcdef',
  timestamp: '1726134300',
  appMention: {
    body: '{"token":"verification_token_deprecated","team_id":"T0G9PQBBK","context_team_id":"T0G9PQBBK","context_enterprise_id":null,"api_app_id":"A0APPID0001","event":{"client_msg_id":"9cbd4c5b-7ddf-4ede-b479-ad21fca66d63","type":"app_mention","text":"<@U0BOTUSER> please approve deploy of api v2.3 to prod","user":"U0REQUESTER","ts":"1726133698.626339","blocks":[{"type":"rich_text","block_id":"BCCO","elements":[{"type":"rich_text_section","elements":[{"type":"user","user_id":"U0BOTUSER"},{"type":"text","text":" please approve deploy of api v2.3 to prod"}]}]}],"team":"T0G9PQBBK","channel":"C0CHANNEL01","event_ts":"1726133698.626339"},"type":"event_callback","event_id":"Ev07ABCDEF01","event_time":1726133698,"authorizations":[{"enterprise_id":null,"team_id":"T0G9PQBBK","user_id":"U0BOTUSER","is_bot":true,"is_enterprise_install":false}],"is_ext_shared_channel":false,"event_context":"4-eyJldCI6ImFwcF9tZW50aW9uIn0"}',
    signature: 'v0=a61da22f7dc413c82a9a278f95a94c73b6628490356b42a1e65868ba80da51e1',
  },
  urlVerification: {
    body: '{"token":"Jhj5dZrVaK7ZwHHjRyZWjbDl","challenge":"3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P","type":"url_verification"}',
    signature: 'v0=96080023d3a0b05a616a5efdb536646b0635dbe1b7f0e0ae7b0681b838558695',
  },
} as const;

describe('signRequest', () => {
  it('matches HMAC-SHA256 over "v0:<ts>:<body>" computed by hand', () => {
    const secret = 'shhh';
    const body = 'payload=%7B%22type%22%3A%22block_actions%22%7D';
    const expected = `v0=${createHmac('sha256', secret).update(`v0:1700000000:${body}`).digest('hex')}`;
    expect(signRequest(secret, body, 1700000000)).toEqual({
      'x-slack-signature': expected,
      'x-slack-request-timestamp': '1700000000',
      'content-type': 'application/x-www-form-urlencoded',
    });
  });

  it('reproduces the reference vectors', () => {
    const mention = signRequest(VECTOR.secret, VECTOR.appMention.body, VECTOR.timestamp);
    expect(mention['x-slack-signature']).toBe(VECTOR.appMention.signature);
    expect(mention['content-type']).toBe('application/json');
    expect(signRequest(VECTOR.secret, VECTOR.urlVerification.body, Number(VECTOR.timestamp))['x-slack-signature']).toBe(VECTOR.urlVerification.signature);
  });

  it('defaults the timestamp to now', () => {
    const ts = Number(signRequest('s', '{}')['x-slack-request-timestamp']);
    expect(Math.abs(ts - Date.now() / 1000)).toBeLessThan(5);
  });
});

describe('payload builders', () => {
  it('appMentionEnvelope serialises exactly like the Slack delivery', () => {
    const envelope = appMentionEnvelope({
      text: '<@U0BOTUSER> please approve deploy of api v2.3 to prod',
      user: 'U0REQUESTER',
      channel: CHANNEL,
      ts: '1726133698.626339',
      eventId: 'Ev07ABCDEF01',
      clientMsgId: '9cbd4c5b-7ddf-4ede-b479-ad21fca66d63',
      blockId: 'BCCO',
    });
    expect(JSON.stringify(envelope)).toBe(VECTOR.appMention.body);
  });

  it('gives each envelope its own event_id unless pinned', () => {
    const base = { text: 'hi', user: 'U0REQUESTER', channel: CHANNEL, ts: '1726133698.626339' };
    expect(appMentionEnvelope(base).event_id).not.toBe(appMentionEnvelope(base).event_id);
  });

  it('rich text mirrors mentions, links and escapes', () => {
    expect(richTextElements('<@U0BOTUSER> ship <#C0CHANNEL01|deploys> &amp; ping <!subteam^S0APPROVERS> <https://x.test|docs>')).toEqual([
      { type: 'user', user_id: 'U0BOTUSER' },
      { type: 'text', text: ' ship ' },
      { type: 'channel', channel_id: 'C0CHANNEL01' },
      { type: 'text', text: ' & ping ' },
      { type: 'usergroup', usergroup_id: 'S0APPROVERS' },
      { type: 'text', text: ' ' },
      { type: 'link', url: 'https://x.test', text: 'docs' },
    ]);
  });

  it('messageEnvelope covers thread replies, DMs, bot echoes and edits', () => {
    const reply = messageEnvelope({ channel: 'G0PRIVATE01', user: 'U0APPROVER2', text: 'LGTM', ts: '1726134000.003400', threadTs: '1726133950.000100', parentUserId: 'U0REQUESTER' });
    expect(reply.event).toMatchObject({ type: 'message', channel_type: 'group', thread_ts: '1726133950.000100', parent_user_id: 'U0REQUESTER' });

    expect(messageEnvelope({ channel: 'D0DMCHAN001', user: 'U0APPROVER1', text: 'pending?', ts: '1726134100.004500' }).event.channel_type).toBe('im');

    const echo = messageEnvelope({ channel: CHANNEL, user: SLACK_IDS.botUserId, botId: SLACK_IDS.botId, text: 'req', ts: '1726133699.000200' });
    expect(echo.event).toMatchObject({ bot_id: SLACK_IDS.botId, bot_profile: { id: SLACK_IDS.botId } });
    expect(echo.event).not.toHaveProperty('client_msg_id');

    const edit = messageEnvelope({
      channel: CHANNEL,
      ts: '1726134200.005600',
      subtype: 'message_changed',
      message: { ts: '1726133900.002300', user: 'U0APPROVER1', text: 'approved (edited)', threadTs: '1726133698.626339' },
      previousMessage: { ts: '1726133900.002300', user: 'U0APPROVER1', text: 'approved', threadTs: '1726133698.626339' },
    });
    expect(edit.event).not.toHaveProperty('user');
    expect(edit.event).toMatchObject({
      subtype: 'message_changed',
      hidden: true,
      message: { text: 'approved (edited)', edited: { user: 'U0APPROVER1', ts: '1726134200.000000' } },
      previous_message: { text: 'approved' },
    });
  });

  it('blockActionsPayload infers the action shape and state', () => {
    const click = blockActionsPayload({ user: 'U0APPROVER1', channel: CHANNEL, messageTs: '1726133699.000200', threadTs: '1726133698.626339', actionId: 'approval.approve', value: '{"req":42}', blockId: 'req-42-actions' });
    expect(click).toMatchObject({
      type: 'block_actions',
      container: { type: 'message', message_ts: '1726133699.000200', channel_id: CHANNEL, thread_ts: '1726133698.626339' },
      actions: [{ type: 'button', action_id: 'approval.approve', block_id: 'req-42-actions', value: '{"req":42}' }],
      state: { values: {} },
    });
    expect(click.trigger_id).toMatch(/^\d+\.\d+\.[0-9a-f]{32}$/);

    const pick = blockActionsPayload({ user: 'U0APPROVER1', channel: CHANNEL, messageTs: '1', actionId: 'approval.approvers', blockId: 'b', selectedOptions: ['sre', 'security'] });
    expect(pick.actions).toEqual([expect.objectContaining({ type: 'multi_static_select', selected_options: [expect.objectContaining({ value: 'sre' }), expect.objectContaining({ value: 'security' })] })]);
    expect(pick.state).toEqual({ values: { b: { 'approval.approvers': { type: 'multi_static_select', selected_options: expect.any(Array) } } } });

    // Round-trips through the interactivity wire format.
    const decoded = JSON.parse(decodeURIComponent(formBody(click).slice('payload='.length)));
    expect(decoded).toEqual(click);
  });

  it('viewSubmissionPayload wraps state values', () => {
    const payload = viewSubmissionPayload({ user: 'U0APPROVER1', callbackId: 'approval_reject_modal', privateMetadata: '{"req":42}', stateValues: { reason: { reason_input: 'Change freeze' } }, viewId: 'V0VIEWID001' });
    expect(payload).toMatchObject({
      type: 'view_submission',
      view: { id: 'V0VIEWID001', callback_id: 'approval_reject_modal', private_metadata: '{"req":42}', state: { values: { reason: { reason_input: { type: 'plain_text_input', value: 'Change freeze' } } } } },
    });
  });

  it('sendSigned refuses anything but loopback', async () => {
    await expect(sendSigned('https://example.com/slack/events', { secret: 's', body: '{}' })).rejects.toThrow(/loopback/);
  });
});

// -----------------------------------------------------------------------------------------------
// Both fakes together against a real Bolt app: the setup end-to-end tests will use
// -----------------------------------------------------------------------------------------------

describe('Bolt App between signed requests and the fake Web API', () => {
  const secret = 'e2e-signing-secret';
  let fake: SlackSimulator;
  let app: App;
  let endpoint: string;

  beforeAll(async () => {
    fake = await startSlackSimulator();
    app = new App({ token: FAKE_BOT_TOKEN, signingSecret: secret, clientOptions: { slackApiUrl: fake.apiUrl }, logLevel: LogLevel.ERROR });
    app.event('app_mention', async ({ event, say }) => {
      await say({ text: `on it: ${event.text}`, thread_ts: event.thread_ts ?? event.ts });
    });
    app.action('approval.approve', async ({ ack, body, client }) => {
      await ack();
      if (body.type === 'block_actions' && body.container.type === 'message') {
        await client.chat.update({ channel: body.container.channel_id, ts: body.container.message_ts, text: `approved by ${body.user.id}` });
      }
    });
    const server = (await app.start({ port: 0, host: '127.0.0.1' })) as Server;
    endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}/slack/events`;
  });
  afterAll(async () => {
    await app.stop();
    await fake.close();
  });

  it('verifies auth.test against the fake, answers a mention in the thread and handles a click', async () => {
    const mention = appMentionEnvelope({ text: '<@U0BOTUSER> deploy?', user: 'U0REQUESTER', channel: CHANNEL, ts: '1726133698.626339' });
    const res = await sendSigned(endpoint, { secret, body: mention });
    expect(res.status).toBe(200);

    const posted = await fake.waitFor('chat.postMessage', { timeoutMs: 5000 });
    expect(posted.args).toMatchObject({ channel: CHANNEL, thread_ts: '1726133698.626339', text: 'on it: <@U0BOTUSER> deploy?' });
    expect(fake.callsTo('auth.test').length).toBeGreaterThan(0);

    const messageTs = String(posted.response?.ts);
    const click = blockActionsPayload({ user: 'U0APPROVER1', channel: CHANNEL, messageTs, threadTs: '1726133698.626339', actionId: 'approval.approve', value: '42' });
    const clicked = await sendSigned(endpoint, { secret, body: formBody(click), retryNum: 0 });
    expect(clicked.status).toBe(200);
    await fake.waitFor('chat.update', { timeoutMs: 5000 });
    expect(fake.message(CHANNEL, messageTs)?.text).toBe('approved by U0APPROVER1');

    const forged = await sendSigned(endpoint, { secret: 'wrong', body: mention });
    expect(forged.status).toBe(401);
  });
});
