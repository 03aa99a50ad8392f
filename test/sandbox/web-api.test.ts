import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { quietLogger, startHarness, slackError, TOKEN, type Harness } from '../helpers/sandbox/harness.js';

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ echoBotMessages: false });
});
afterAll(async () => {
  await h.close();
});

async function raw(path: string, init: RequestInit = {}): Promise<{ status: number; json: any }> {
  const response = await fetch(`${h.sandbox.url}${path}`, init);
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = text;
  }
  return { status: response.status, json };
}

describe('sandbox Web API through the real WebClient', () => {
  it('answers auth.test with the bot identity, and refuses missing or wrong tokens', async () => {
    const auth = await h.client.auth.test();
    expect(auth).toMatchObject({ ok: true, user_id: 'U0BOT', bot_id: 'B0BOT', team_id: 'T0SANDBOX' });
    const { webApi } = await import('@slack/bolt');
    const wrong = new webApi.WebClient('xoxb-wrong', { slackApiUrl: h.sandbox.apiUrl, retryConfig: { retries: 0 }, logger: quietLogger });
    expect(await slackError(wrong.auth.test())).toBe('invalid_auth');
    const none = await raw('/api/auth.test', { method: 'POST' });
    expect(none.json).toMatchObject({ ok: false, error: 'not_authed' });
  });

  it('posts messages and thread replies and keeps the thread summary', async () => {
    const root = await h.client.chat.postMessage({ channel: 'C0GENERAL', text: 'root' });
    expect(root).toMatchObject({ ok: true, channel: 'C0GENERAL', message: { text: 'root', bot_id: 'B0BOT', user: 'U0BOT' } });
    const reply = await h.client.chat.postMessage({ channel: 'C0GENERAL', thread_ts: root.ts!, text: 'reply *one*', blocks: [{ type: 'section', text: { type: 'mrkdwn', text: 'reply *one*' } }] });
    expect(reply.message?.thread_ts).toBe(root.ts);
    const thread = await h.client.conversations.replies({ channel: 'C0GENERAL', ts: root.ts! });
    expect(thread.messages?.map((m) => m.text)).toEqual(['root', 'reply *one*']);
    expect(thread.messages?.[0]).toMatchObject({ reply_count: 1, thread_ts: root.ts, latest_reply: reply.ts });
    // Slack fills in a block_id the bot left out.
    expect(h.sandbox.store.message('C0GENERAL', reply.ts!)?.blocks?.[0]).toMatchObject({ type: 'section', block_id: expect.any(String) });
  });

  it('files a post to a user id under the DM with that person', async () => {
    const posted = await h.client.chat.postMessage({ channel: 'U0BOB', text: 'hi bob' });
    expect(posted.channel).toBe('D0BOB');
    expect(h.sandbox.store.messages('D0BOB').map((m) => m.text)).toContain('hi bob');
  });

  it('refuses what Slack refuses, with Slack error codes', async () => {
    expect(await slackError(h.client.chat.postMessage({ channel: 'C0NOPE', text: 'x' }))).toBe('channel_not_found');
    expect(await slackError(h.client.chat.postMessage({ channel: 'C0GENERAL', text: '' }))).toBe('no_text');
    expect(await slackError(h.client.chat.postMessage({ channel: 'C0GENERAL', text: 'x', thread_ts: '1.000001' }))).toBe('thread_not_found');
    expect(await slackError(h.client.chat.postMessage({ channel: 'C0GENERAL', text: 'x', blocks: 'not json' as never }))).toBe('invalid_blocks_format');
    expect(await slackError(h.client.chat.postMessage({ channel: 'C0GENERAL', text: 'x', blocks: [{ text: 'no type' }] as never }))).toBe('invalid_blocks');
    const many = Array.from({ length: 51 }, () => ({ type: 'divider' as const }));
    expect(await slackError(h.client.chat.postMessage({ channel: 'C0GENERAL', text: 'x', blocks: many }))).toBe('invalid_blocks');
    expect(await slackError(h.client.chat.postMessage({ channel: 'C0GENERAL', text: 'x'.repeat(40_001) }))).toBe('msg_too_long');
  });

  it('keeps block types it does not know, exactly as sent', async () => {
    const odd = { type: 'future_block', block_id: 'f1', payload: { anything: [1, 'two'] } };
    const posted = await h.client.chat.postMessage({ channel: 'C0GENERAL', text: 'odd', blocks: [odd as never] });
    expect(h.sandbox.store.message('C0GENERAL', posted.ts!)?.blocks).toEqual([odd]);
  });

  it('updates and deletes only the bot’s own messages', async () => {
    const posted = await h.client.chat.postMessage({ channel: 'C0GENERAL', text: 'v1', blocks: [{ type: 'section', text: { type: 'mrkdwn', text: 'v1' } }] });
    const updated = await h.client.chat.update({ channel: 'C0GENERAL', ts: posted.ts!, text: 'v2', blocks: [{ type: 'section', text: { type: 'mrkdwn', text: 'v2' } }] });
    expect(updated).toMatchObject({ ok: true, ts: posted.ts, text: 'v2' });
    const stored = h.sandbox.store.message('C0GENERAL', posted.ts!);
    expect(stored).toMatchObject({ text: 'v2', edited: { user: 'U0BOT' } });
    expect(await slackError(h.client.chat.update({ channel: 'C0GENERAL', ts: '1.000001', text: 'x' }))).toBe('message_not_found');
    const mine = await h.ui('/ui/message', { user: 'U0ALICE', channel: 'C0GENERAL', text: 'a person wrote this' });
    expect(await slackError(h.client.chat.update({ channel: 'C0GENERAL', ts: mine.json.ts, text: 'x' }))).toBe('cant_update_message');
    expect(await slackError(h.client.chat.delete({ channel: 'C0GENERAL', ts: mine.json.ts }))).toBe('cant_delete_message');
    expect(await h.client.chat.delete({ channel: 'C0GENERAL', ts: posted.ts! })).toMatchObject({ ok: true });
    expect(h.sandbox.store.message('C0GENERAL', posted.ts!)).toBeUndefined();
  });

  it('posts ephemerals for one person, in a thread when asked', async () => {
    const root = await h.client.chat.postMessage({ channel: 'C0GENERAL', text: 'root for ephemeral' });
    const eph = await h.client.chat.postEphemeral({ channel: 'C0GENERAL', user: 'U0BOB', text: 'only bob', thread_ts: root.ts! });
    expect(eph.message_ts).toMatch(/^\d+\.\d{6}$/);
    expect(h.sandbox.store.ephemeralsFor('U0BOB').at(-1)).toMatchObject({ text: 'only bob', thread_ts: root.ts, channel: 'C0GENERAL' });
    expect(h.sandbox.store.ephemeralsFor('U0ALICE').some((e) => e.text === 'only bob')).toBe(false);
    expect(await slackError(h.client.chat.postEphemeral({ channel: 'D0ALICE', user: 'U0BOB', text: 'x' }))).toBe('user_not_in_channel');
    expect(await slackError(h.client.chat.postEphemeral({ channel: 'C0GENERAL', user: 'U0NOBODY', text: 'x' }))).toBe('user_not_found');
  });

  it('adds and removes reactions', async () => {
    const posted = await h.client.chat.postMessage({ channel: 'C0GENERAL', text: 'react to me' });
    await h.client.reactions.add({ channel: 'C0GENERAL', timestamp: posted.ts!, name: 'eyes' });
    expect(h.sandbox.store.message('C0GENERAL', posted.ts!)?.reactions).toEqual([{ name: 'eyes', users: ['U0BOT'], count: 1 }]);
    expect(await slackError(h.client.reactions.add({ channel: 'C0GENERAL', timestamp: posted.ts!, name: 'eyes' }))).toBe('already_reacted');
    await h.client.reactions.remove({ channel: 'C0GENERAL', timestamp: posted.ts!, name: 'eyes' });
    expect(h.sandbox.store.message('C0GENERAL', posted.ts!)?.reactions).toBeUndefined();
    expect(await slackError(h.client.reactions.remove({ channel: 'C0GENERAL', timestamp: posted.ts!, name: 'eyes' }))).toBe('no_reaction');
    expect(await slackError(h.client.reactions.add({ channel: 'C0GENERAL', timestamp: posted.ts!, name: 'not an emoji!' }))).toBe('invalid_name');
  });

  it('opens, pushes and updates modals for the person whose click made the trigger', async () => {
    const trigger = h.sandbox.store.issueTrigger('U0CAROL');
    const view = { type: 'modal' as const, callback_id: 'cb', title: { type: 'plain_text' as const, text: 'Hello' }, close: { type: 'plain_text' as const, text: 'Cancel' }, blocks: [{ type: 'section' as const, text: { type: 'mrkdwn' as const, text: 'hi' } }] };
    const opened = await h.client.views.open({ trigger_id: trigger, view });
    expect(opened.view).toMatchObject({ id: expect.stringMatching(/^V/), callback_id: 'cb', state: { values: {} }, root_view_id: opened.view?.id });
    expect(h.sandbox.store.views('U0CAROL').map((v) => v.id)).toEqual([opened.view?.id]);
    expect(await slackError(h.client.views.open({ trigger_id: trigger, view }))).toBe('exchanged_trigger_id');
    expect(await slackError(h.client.views.open({ trigger_id: '1.2.abc', view }))).toBe('invalid_trigger_id');

    const updated = await h.client.views.update({ view_id: opened.view!.id!, hash: opened.view!.hash!, view: { ...view, title: { type: 'plain_text', text: 'Updated' } } });
    expect(updated.view?.title).toMatchObject({ text: 'Updated' });
    expect(await slackError(h.client.views.update({ view_id: opened.view!.id!, hash: opened.view!.hash!, view }))).toBe('hash_conflict');
    expect(await slackError(h.client.views.update({ view_id: 'V0NOPE', view }))).toBe('not_found');

    const pushed = await h.client.views.push({ trigger_id: h.sandbox.store.issueTrigger('U0CAROL'), view });
    expect(pushed.view?.previous_view_id).toBe(opened.view?.id);
    expect(h.sandbox.store.views('U0CAROL')).toHaveLength(2);

    const bad = { ...view, title: { type: 'plain_text' as const, text: 'A title far longer than twenty-four characters' } };
    expect(await slackError(h.client.views.open({ trigger_id: h.sandbox.store.issueTrigger('U0CAROL'), view: bad }))).toBe('invalid_arguments');
  });

  it('lists user group members and users', async () => {
    expect(await h.client.usergroups.users.list({ usergroup: 'S0FINANCE' })).toMatchObject({ ok: true, users: ['U0CAROL'] });
    expect(await slackError(h.client.usergroups.users.list({ usergroup: 'S0NOPE' }))).toBe('no_such_subteam');
    expect(await h.client.users.info({ user: 'U0ALICE' })).toMatchObject({ user: { id: 'U0ALICE', name: 'alice', is_bot: false } });
    expect(await slackError(h.client.users.info({ user: 'U0NOBODY' }))).toBe('user_not_found');
  });
});

describe('sandbox Web API on the wire', () => {
  it('accepts JSON bodies with a Bearer token and form bodies with a token argument', async () => {
    const json = await raw('/api/chat.postMessage', {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=utf-8', authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify({ channel: 'C0GENERAL', text: 'json body', blocks: [{ type: 'divider' }] }),
    });
    expect(json.json).toMatchObject({ ok: true, message: { text: 'json body', blocks: [{ type: 'divider' }] } });
    const form = await raw('/api/chat.postMessage', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: TOKEN, channel: 'C0GENERAL', text: 'form body', blocks: JSON.stringify([{ type: 'divider' }]) }).toString(),
    });
    expect(form.json).toMatchObject({ ok: true, message: { text: 'form body', blocks: [{ type: 'divider' }] } });
  });

  it('answers malformed requests with Slack-style errors, unknown methods with unknown_method, other paths with 404', async () => {
    const auth = { authorization: `Bearer ${TOKEN}` };
    expect((await raw('/api/chat.postMessage', { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: '{not json' })).json).toEqual({ ok: false, error: 'invalid_json' });
    expect((await raw('/api/chat.postMessage', { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: '[1,2]' })).json).toMatchObject({ ok: false, error: 'json_not_object' });
    expect((await raw('/api/chat.postMessage', { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ channel: { id: 'C0GENERAL' }, text: 'x' }) })).json).toMatchObject({ ok: false, error: 'invalid_arguments' });
    expect((await raw('/api/chat.fly', { method: 'POST', headers: auth })).json).toMatchObject({ ok: false, error: 'unknown_method' });
    expect((await raw('/nowhere')).status).toBe(404);
    expect((await raw('/ui/nowhere', { method: 'POST', body: '{}' })).status).toBe(404);
  });

  it('never fails other than the Slack way, whatever arguments arrive', async () => {
    const methods = ['chat.postMessage', 'chat.update', 'chat.postEphemeral', 'chat.delete', 'reactions.add', 'reactions.remove', 'views.open', 'views.update', 'views.push', 'usergroups.users.list', 'conversations.replies', 'users.info'];
    const value = fc.oneof(fc.string(), fc.integer(), fc.constant(null), fc.boolean(), fc.array(fc.oneof(fc.string(), fc.constant(null), fc.object()), { maxLength: 3 }), fc.object({ maxDepth: 2 }));
    const args = fc.record(
      { channel: fc.oneof(fc.constant('C0GENERAL'), value), ts: value, text: value, blocks: value, view: value, trigger_id: value, user: value, usergroup: value, name: value, timestamp: value, thread_ts: value },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...methods), args, async (method, body) => {
        const res = await raw(`/api/${method}`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
        expect(res.status).toBe(200);
        expect(typeof res.json.ok).toBe('boolean');
        if (!res.json.ok) {
          expect(typeof res.json.error).toBe('string');
          expect(res.json.error).not.toBe('internal_error');
        }
      }),
      { numRuns: 150 },
    );
    expect((await h.client.auth.test()).ok).toBe(true);
  });

  it('injects the simulator faults into the calls of the bot: a 429 with Retry-After, then the call goes through', async () => {
    h.sandbox.faults.failNext('chat.postMessage', { status: 429, retryAfter: 2 });
    const limited = await raw('/api/chat.postMessage', { method: 'POST', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify({ channel: 'C0GENERAL', text: 'rate limited' }) });
    expect(limited).toEqual({ status: 429, json: { ok: false, error: 'ratelimited' } });
    expect(h.sandbox.store.messages('C0GENERAL').some((m) => m.text === 'rate limited')).toBe(false);
    await h.client.chat.postMessage({ channel: 'C0GENERAL', text: 'after the limit' });
    expect(h.sandbox.store.messages('C0GENERAL').some((m) => m.text === 'after the limit')).toBe(true);
  });

  it('refuses blocks over the Block Kit limits with the simulator checker, as Slack would', async () => {
    const long = 'x'.repeat(3001);
    expect(await slackError(h.client.chat.postMessage({ channel: 'C0GENERAL', text: 't', blocks: [{ type: 'section', text: { type: 'mrkdwn', text: long } }] }))).toBe('invalid_blocks');
  });
});
