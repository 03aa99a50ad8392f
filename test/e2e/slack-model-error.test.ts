import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, it } from 'vitest';
import { Agent } from '../../src/agent/agent.js';
import { definePolicy } from '../../src/approvals/define-policy.js';
import { describeOnOneBackend } from '../helpers/needs.js';
import { startFakeOpenAI } from '../helpers/fake-openai.js';
import { freshTs, mention, startBot, recordingDeleteTool, textOf, waitForText, type AgentDeps, slackHarness } from '../helpers/slack-bot.js';

const CHANNEL = 'C0CHANNEL01';
const REQUESTER = 'U0REQUESTER';

/** OpenAI's API on loopback refusing every request as it refuses a bad key (401, its error body). */
async function refusingOpenAI(): Promise<{ baseURL: string; requests: () => number; close: () => Promise<void> }> {
  let requests = 0;
  const server: Server = createServer((req, res) => {
    requests += 1;
    req.resume();
    req.on('end', () => {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'Incorrect API key provided: sk-te****1234.', type: 'invalid_request_error', param: null, code: 'invalid_api_key' } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    requests: () => requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describeOnOneBackend('a model that refuses the bot, in Slack, on %s', (backend) => {
  const h = slackHarness(backend);

  async function boot(baseURL: string) {
    const { deleteRecord } = recordingDeleteTool();
    h.bot = await startBot({
      fake: h.fake,
      db: h.database.db,
      makeAgent: (deps: AgentDeps) =>
        new Agent({
          id: 'ops',
          model: 'openai/gpt-test',
          providers: { openai: { apiKey: 'sk-test-1234', baseURL }, anthropic: {}, openaiCompatible: {} },
          tools: { delete_record: deleteRecord },
          storage: h.database,
          policy: definePolicy({}),
          ...deps,
        }),
    });
    return h.bot;
  }

  it('answers the mention with an error naming the model and the status, not the provider\'s text; the thread stays usable', async () => {
    const openai = await refusingOpenAI();
    try {
      const b = await boot(openai.baseURL);
      const thread = await mention(b, { user: REQUESTER, channel: CHANNEL, text: 'look up abc-123' });
      const message = await waitForText(h.fake, thread, 'did not answer');
      const text = textOf(message);
      expect(text).toMatch(/^:warning: Something went wrong while working on this: the model `openai\.responses\/gpt-test` did not answer \(HTTP 401\)\. Reference: `[0-9a-f]{8}`$/);
      expect(text).not.toContain('sk-');
      const ref = /Reference: `([0-9a-f]{8})`/.exec(text)![1]!;
      // The operator finds the provider's own words under the reference.
      const line = b.logs.find((l) => l.includes(`"ref":"${ref}"`));
      expect(line).toContain('MODEL_CALL_FAILED');
      expect(line).toContain('openai.responses/gpt-test');
      expect(openai.requests()).toBe(1);

      // The failed run let go of its thread: the next mention there is a new run, which fails the same way.
      await b.slack.idle();
      await mention(b, { user: REQUESTER, channel: CHANNEL, text: 'try again', threadTs: thread.threadTs, ts: freshTs() });
      await h.fake.waitFor((c) => c.method === 'chat.postMessage' && c.args.thread_ts === thread.threadTs && h.fake.calls.filter((x) => x.method === 'chat.postMessage' && x.args.thread_ts === thread.threadTs && textOf(x).includes('did not answer')).length === 2);
      expect(openai.requests()).toBe(2);
    } finally {
      await openai.close();
    }
  });

  it('with the key fixed, the same bot answers (the error came from the provider, not the bot)', async () => {
    const openai = await startFakeOpenAI([{ text: 'Record abc-123 is active.' }]);
    try {
      const b = await boot(openai.baseUrl);
      const thread = await mention(b, { user: REQUESTER, channel: CHANNEL, text: 'look up abc-123' });
      await waitForText(h.fake, thread, 'Record abc-123 is active.');
      await b.slack.idle();
      expect(h.fake.calls.some((c) => c.method === 'chat.postMessage' && textOf(c).includes('did not answer'))).toBe(false);
    } finally {
      await openai.close();
    }
  });
});
