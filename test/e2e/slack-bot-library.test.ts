import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { Agent } from '../../src/agent/agent.js';
import { createSlackBot, type SlackBot } from '../../src/bot/create-slack-bot.js';
import { ACTION_IDS, CALLBACK_IDS } from '../../src/slack/kit/action-ids.js';
import { describeOnOneBackend } from '../helpers/needs.js';
import { FAKE_BOT_TOKEN, slackSender, viewSubmissionPayload } from '../../src/simulator/index.js';
import { scriptedModel } from '../helpers/scripted-model.js';
import { captureLogger, clickButton, mention, recordingDeleteTool, SIGNING_SECRET, slackHarness, waitForCard, waitForText, waitForUpdate, type Bot } from '../helpers/slack-bot.js';

const CHANNEL = 'C0CHANNEL01';
const REQUESTER = 'U0REQUESTER';
const ALICE = 'U0ALICE';

describeOnOneBackend('createSlackBot hosted in a server of the user’s own on %s', (backend) => {
  const h = slackHarness(backend);
  let bot: SlackBot | undefined;
  let server: Server | undefined;
  afterEach(async () => {
    await bot?.stop();
    await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
    bot = undefined;
    server = undefined;
  });

  /** A user's app: their own routes, and the bot's handler mounted at the path their Slack app points to. */
  async function hostBot(script: Parameters<typeof scriptedModel>[0]) {
    const { deleteRecord, deleted } = recordingDeleteTool();
    // Defined the way a library user would: no storage, no workspace; the bot attaches both.
    const agent = new Agent({ id: 'ops', model: scriptedModel(script), tools: { delete_record: deleteRecord } });
    const { logger } = captureLogger();
    bot = createSlackBot({
      agents: { default: agent },
      policy: { defaults: { requireApproval: false }, tools: { delete_record: { requireApproval: true, allowSelfApproval: false } } },
      database: h.database,
      slack: { token: FAKE_BOT_TOKEN, signingSecret: SIGNING_SECRET, apiUrl: h.fake.apiUrl },
      logger,
      timings: { sweepIntervalMs: 0 },
    });
    const started = await bot.start();
    expect(started.port).toBeUndefined();
    const handler = bot.handler!;
    server = createServer((req, res) => {
      if (req.url === '/integrations/slack') return handler(req, res);
      res.writeHead(req.url === '/status' ? 200 : 404).end(req.url === '/status' ? 'my app is up' : '');
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/integrations/slack`;
    const b = { fake: h.fake, send: slackSender(url, SIGNING_SECRET), url } as unknown as Bot;
    return { b, deleted, agent, base: url.replace('/integrations/slack', '') };
  }

  it('mention → card → another person approves → the tool runs once → the answer; the host’s own routes still work', async () => {
    const { b, deleted, agent, base } = await hostBot([{ toolCalls: [{ toolName: 'delete_record', args: { id: 'lib-1' } }] }, { text: 'Deleted lib-1.' }]);
    expect(await (await fetch(`${base}/status`)).text()).toBe('my app is up');
    const thread = await mention(b, { user: REQUESTER, channel: CHANNEL, text: 'delete lib-1' });
    const card = await waitForCard(h.fake, thread, 'approval');
    // The policy given to createSlackBot is the one in force: the requester may not approve their own request.
    await clickButton(b, card, REQUESTER, ACTION_IDS.approve);
    await h.fake.waitFor((c) => c.method === 'chat.postEphemeral' && String(c.args.text).includes('someone else has to approve'));
    await clickButton(b, card, ALICE, ACTION_IDS.approve);
    await waitForUpdate(h.fake, card, `Approved by <@${ALICE}>`);
    await waitForText(h.fake, thread, 'Deleted lib-1.');
    expect(deleted).toEqual([{ id: 'lib-1' }]);
    expect(agent.policy.tools.delete_record?.allowSelfApproval).toBe(false);
  });

  it('a decline through the modal runs nothing', async () => {
    const { b, deleted } = await hostBot([{ toolCalls: [{ toolName: 'delete_record', args: { id: 'lib-2' } }] }, { text: 'Not deleting lib-2.' }]);
    const thread = await mention(b, { user: REQUESTER, channel: CHANNEL, text: 'delete lib-2' });
    const card = await waitForCard(h.fake, thread, 'approval');
    await clickButton(b, card, ALICE, ACTION_IDS.decline);
    const opened = await h.fake.waitFor('views.open');
    const view = opened.args.view as { private_metadata: string };
    await b.send.interaction(viewSubmissionPayload({ user: ALICE, callbackId: CALLBACK_IDS.declineModal, privateMetadata: view.private_metadata, stateValues: { reason: { reason: 'not this one' } } }));
    await waitForUpdate(h.fake, card, `Declined by <@${ALICE}>`);
    await waitForText(h.fake, thread, 'Not deleting lib-2.');
    expect(deleted).toEqual([]);
  });

  it('refuses a request whose signature does not match, on the user’s own route', async () => {
    await hostBot([{ text: 'never' }]);
    const forged = slackSender(`http://127.0.0.1:${(server!.address() as AddressInfo).port}/integrations/slack`, 'not-the-secret');
    const response = await forged.event({ type: 'event_callback', event: { type: 'app_mention' } });
    expect(response.status).toBe(401);
  });
});
