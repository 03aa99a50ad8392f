/**
 * What the simulator's method table does that the sandbox relies on too: the bot's own posts
 * echoed back, threads filed under their root, modal stacks, response URLs that wear out, and
 * the directory methods. The sandbox runs the same table (test/sandbox/web-api.test.ts).
 */
import { WebClient, type WebAPIPlatformError } from '@slack/web-api';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FAKE_BOT_TOKEN, SLACK_IDS, newTriggerId, startSlackSimulator, type JsonObject, type SlackSimulator } from '../../../src/simulator/index.js';
import { silentLogger } from '../../helpers/silent-logger.js';

const CHANNEL = 'C0CHANNEL01';
const PERSON = 'U0PERSON01';

let slack: SlackSimulator;
let web: WebClient;
const echoed: JsonObject[] = [];

beforeAll(async () => {
  slack = await startSlackSimulator({ echo: (envelope) => echoed.push(envelope), usergroups: { S0OPS: [PERSON] }, usergroupHandles: { S0OPS: 'ops' } });
  web = new WebClient(FAKE_BOT_TOKEN, { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 }, logger: silentLogger });
});
afterEach(() => {
  slack.reset();
  echoed.length = 0;
});
afterAll(() => slack.close());

async function slackError(call: Promise<unknown>): Promise<string | undefined> {
  return ((await call.then(() => undefined, (e: unknown) => e)) as WebAPIPlatformError | undefined)?.data.error;
}

const modal = (title: string, externalId?: string) => ({
  type: 'modal' as const,
  title: { type: 'plain_text' as const, text: title },
  blocks: [{ type: 'section' as const, text: { type: 'mrkdwn' as const, text: title } }],
  ...(externalId ? { external_id: externalId } : {}),
});

describe('the Slack method table', () => {
  it('echoes the bot’s posts, edits and deletions as the message events Slack sends back', async () => {
    const posted = await web.chat.postMessage({ channel: CHANNEL, text: 'v1' });
    await web.chat.update({ channel: CHANNEL, ts: posted.ts!, text: 'v2' });
    await web.chat.delete({ channel: CHANNEL, ts: posted.ts! });
    const events = echoed.map((e) => e.event as Record<string, unknown>);
    expect(events[0]).toMatchObject({ type: 'message', bot_id: SLACK_IDS.botId, user: SLACK_IDS.botUserId, text: 'v1', ts: posted.ts, channel: CHANNEL, channel_type: 'channel' });
    expect(events[1]).toMatchObject({ subtype: 'message_changed', message: { text: 'v2', ts: posted.ts }, previous_message: { text: 'v1' } });
    expect(events[2]).toMatchObject({ subtype: 'message_deleted', deleted_ts: posted.ts, previous_message: { text: 'v2' } });
    expect(echoed.every((e) => e.team_id === SLACK_IDS.teamId && e.type === 'event_callback')).toBe(true);
  });

  it('files a reply under its thread’s root, answers a reply’s ts with the whole thread, and lists a broadcast in the channel', async () => {
    const root = slack.seedMessage({ channel: CHANNEL, user: PERSON, text: 'root' });
    const first = await web.chat.postMessage({ channel: CHANNEL, thread_ts: root.ts, text: 'first' });
    const second = await web.chat.postMessage({ channel: CHANNEL, thread_ts: first.ts!, text: 'second', reply_broadcast: true });
    expect(second.message?.thread_ts).toBe(root.ts);
    const thread = await web.conversations.replies({ channel: CHANNEL, ts: first.ts! });
    expect(thread.messages?.map((m) => m.text)).toEqual(['root', 'first', 'second']);
    const history = await web.conversations.history({ channel: CHANNEL });
    expect(history.messages?.map((m) => m.text)).toEqual(['second', 'root']);
  });

  it('stacks at most three modals, pushed on the one last opened, and keeps external ids unique among open ones', async () => {
    const opened = await web.views.open({ trigger_id: newTriggerId(), view: modal('One', 'req-1') });
    expect(await slackError(web.views.open({ trigger_id: newTriggerId(), view: modal('Again', 'req-1') }))).toBe('duplicate_external_id');
    const two = await web.views.push({ trigger_id: newTriggerId(), view: modal('Two') });
    const three = await web.views.push({ trigger_id: newTriggerId(), view: modal('Three') });
    expect([two.view?.previous_view_id, three.view?.previous_view_id]).toEqual([opened.view?.id, two.view?.id]);
    expect(three.view?.root_view_id).toBe(opened.view?.id);
    expect(await slackError(web.views.push({ trigger_id: newTriggerId(), view: modal('Four') }))).toBe('push_limit_reached');
    const trigger = newTriggerId();
    await web.views.open({ trigger_id: trigger, view: modal('Other') });
    expect(await slackError(web.views.open({ trigger_id: trigger, view: modal('Reused') }))).toBe('exchanged_trigger_id');
    const byExternalId = await web.views.update({ external_id: 'req-1', view: modal('Updated', 'req-1') });
    expect(byExternalId.view).toMatchObject({ id: opened.view?.id, title: { text: 'Updated' } });
  });

  it('lets a response_url answer five times, and replaces the ephemeral a click came from', async () => {
    const posted = await web.chat.postEphemeral({ channel: CHANNEL, user: PERSON, text: 'pick a page' });
    const url = slack.responseUrl({ channel: CHANNEL, user: PERSON, messageTs: posted.message_ts!, isEphemeral: true });
    const post = async (body: object) => (await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).json();
    expect(await post({ replace_original: true, text: 'page 2' })).toEqual({ ok: true });
    expect(slack.ephemerals(CHANNEL)).toMatchObject([{ message_ts: posted.message_ts, user: PERSON, text: 'page 2' }]);
    for (let i = 0; i < 4; i++) expect(await post({ text: `more ${i}` })).toEqual({ ok: true });
    expect(await post({ text: 'one too many' })).toEqual({ ok: false, error: 'used_url' });
    const unknown = await fetch(`${slack.origin}/actions/${SLACK_IDS.teamId}/1/abc`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"text":"x"}' });
    expect(await unknown.json()).toEqual({ ok: false, error: 'expired_url' });
  });

  it('answers the directory methods and api.test’s asked-for error', async () => {
    expect((await web.users.list({})).members?.map((m) => m.id)).toEqual([SLACK_IDS.botUserId]);
    expect((await web.usergroups.list({ include_users: true })).usergroups).toMatchObject([{ id: 'S0OPS', handle: 'ops', users: [PERSON], user_count: 1 }]);
    const posted = await web.chat.postMessage({ channel: CHANNEL, text: 'react' });
    await web.reactions.add({ channel: CHANNEL, timestamp: posted.ts!, name: ':eyes:' });
    expect(await web.reactions.get({ channel: CHANNEL, timestamp: posted.ts! })).toMatchObject({ message: { reactions: [{ name: 'eyes', count: 1 }] } });
    expect(await slackError(web.api.test({ error: 'ratelimited' }))).toBe('ratelimited');
  });
});
