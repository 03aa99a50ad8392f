import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAKE_BOT_TOKEN, startSlackSimulator, type SlackSimulator } from '../../../src/simulator/index.js';

const METHODS = [
  'chat.postMessage',
  'chat.update',
  'chat.postEphemeral',
  'chat.delete',
  'chat.getPermalink',
  'reactions.add',
  'reactions.remove',
  'views.open',
  'views.push',
  'views.update',
  'views.publish',
  'usergroups.users.list',
  'conversations.replies',
  'conversations.history',
  'conversations.open',
  'conversations.info',
  'conversations.members',
  'users.info',
];

describe('Slack simulator under arbitrary arguments', () => {
  let slack: SlackSimulator;

  beforeAll(async () => {
    slack = await startSlackSimulator();
  });
  afterAll(() => slack.close());

  it('answers every method the Slack way (HTTP 200, ok true or an error code), never with a crash', async () => {
    const value = fc.oneof(fc.string(), fc.integer(), fc.constant(null), fc.boolean(), fc.array(fc.oneof(fc.string(), fc.constant(null), fc.object()), { maxLength: 3 }), fc.object({ maxDepth: 2 }));
    const args = fc.record(
      {
        channel: fc.oneof(fc.constant('C0CHANNEL01'), value),
        ts: value,
        text: value,
        blocks: value,
        view: value,
        trigger_id: value,
        user: value,
        user_id: value,
        users: value,
        usergroup: value,
        name: value,
        timestamp: value,
        thread_ts: value,
        message_ts: value,
        cursor: value,
        limit: value,
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...METHODS), args, async (method, body) => {
        const res = await fetch(`${slack.apiUrl}${method}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${FAKE_BOT_TOKEN}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        expect(res.status).toBe(200);
        const json = (await res.json()) as { ok: unknown; error?: unknown };
        expect(typeof json.ok).toBe('boolean');
        if (!json.ok) expect(typeof json.error).toBe('string');
      }),
      { numRuns: 200 },
    );
  });

  it('answers malformed bodies with Slack error codes', async () => {
    const post = (body: string, contentType: string) =>
      fetch(`${slack.apiUrl}chat.postMessage`, { method: 'POST', headers: { authorization: `Bearer ${FAKE_BOT_TOKEN}`, 'content-type': contentType }, body }).then((r) => r.json());
    expect(await post('{not json', 'application/json')).toEqual({ ok: false, error: 'invalid_json' });
    expect(await post('[1]', 'application/json')).toMatchObject({ ok: false, error: 'json_not_object' });
    expect(await post('channel=C0CHANNEL01&blocks=%5Bnot', 'application/x-www-form-urlencoded')).toMatchObject({ ok: false, error: 'invalid_blocks_format' });
    expect(await post('x'.repeat(1024 * 1024 + 1), 'application/x-www-form-urlencoded')).toMatchObject({ ok: false, error: 'request_too_large' });
  });
});
