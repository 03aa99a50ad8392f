import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { App, LogLevel } from '@slack/bolt';
import type { WebAPIPlatformError } from '@slack/web-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  FAKE_BOT_TOKEN,
  SLACK_LIMITS,
  appHomeOpenedEnvelope,
  slackSender,
  slashCommandBody,
  startSlackSimulator,
  type SlackSimulator,
} from '../../../src/simulator/index.js';
import { useSimulatorClient } from '../../helpers/simulator-client.js';

const PERSON = 'U0PERSON01';
const homeView = (text: string) => ({ type: 'home' as const, blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }] });

describe('Slack simulator: App Home, DMs and slash commands through WebClient', () => {
  const sim = useSimulatorClient();

  it('views.publish stores one Home view per person and republishing replaces it under the same id', async () => {
    const first = await sim.web.views.publish({ user_id: PERSON, view: homeView('Pending: 1') });
    expect(first.view).toMatchObject({ id: expect.stringMatching(/^V/), type: 'home', blocks: homeView('Pending: 1').blocks });
    const second = await sim.web.views.publish({ user_id: PERSON, view: homeView('Pending: 0'), hash: first.view?.hash });
    expect(second.view?.id).toBe(first.view?.id);
    expect(sim.slack.homeView(PERSON)?.blocks).toEqual(homeView('Pending: 0').blocks);
    expect(sim.slack.homeView('U0SOMEONE')).toBeUndefined();
  });

  it('views.publish refuses a stale hash, a modal, a non-user and too many blocks, like Slack', async () => {
    const published = await sim.web.views.publish({ user_id: PERSON, view: homeView('v1') });
    await sim.web.views.publish({ user_id: PERSON, view: homeView('v2') });
    const fails = async (p: Promise<unknown>) => ((await p.then(() => undefined, (e: unknown) => e)) as WebAPIPlatformError | undefined)?.data.error;
    expect(await fails(sim.web.views.publish({ user_id: PERSON, view: homeView('v3'), hash: published.view?.hash }))).toBe('hash_conflict');
    expect(await fails(sim.web.views.publish({ user_id: PERSON, view: { type: 'modal', title: { type: 'plain_text', text: 'x' }, blocks: [] } as never }))).toBe('invalid_arguments');
    expect(await fails(sim.web.views.publish({ user_id: 'C0CHANNEL01', view: homeView('x') }))).toBe('invalid_user');
    const tooMany = { type: 'home' as const, blocks: Array.from({ length: SLACK_LIMITS.blocksPerView + 1 }, () => ({ type: 'divider' })) };
    expect(await fails(sim.web.views.publish({ user_id: PERSON, view: tooMany }))).toBe('invalid_arguments');
    expect(sim.slack.homeView(PERSON)?.blocks).toEqual(homeView('v2').blocks);
  });

  it('conversations.open gives the DM where chat.postMessage and chat.postEphemeral land', async () => {
    const opened = await sim.web.conversations.open({ users: PERSON });
    const dm = String(opened.channel?.id);
    expect(dm).toMatch(/^D/);
    await sim.web.chat.postMessage({ channel: dm, text: 'you have 2 requests waiting' });
    await sim.web.chat.postEphemeral({ channel: dm, user: PERSON, text: 'only you see this' });
    expect(sim.slack.messages(dm).map((m) => m.text)).toEqual(['you have 2 requests waiting']);
    expect(sim.slack.ephemerals(dm)).toMatchObject([{ user: PERSON, text: 'only you see this' }]);
    expect((await sim.web.conversations.info({ channel: dm })).channel).toMatchObject({ id: dm, is_im: true, user: PERSON });
    expect((await sim.web.conversations.members({ channel: dm })).members).toEqual([PERSON, 'U0BOTUSER']);
  });
});

describe('Slack simulator delivering slash commands and app_home_opened to a Bolt app', () => {
  const secret = 'simulator-signing-secret';
  let slack: SlackSimulator;
  let app: App;
  let deliver: ReturnType<typeof slackSender>;

  beforeAll(async () => {
    slack = await startSlackSimulator();
    app = new App({ token: FAKE_BOT_TOKEN, signingSecret: secret, clientOptions: { slackApiUrl: slack.apiUrl }, logLevel: LogLevel.ERROR });
    app.command('/approvals', async ({ ack, command, respond }) => {
      await ack();
      await respond({ text: `pending for ${command.user_id}: none (${command.text || 'all'})` });
    });
    app.event('app_home_opened', async ({ event, client }) => {
      if (event.tab !== 'home') return;
      await client.views.publish({ user_id: event.user, view: homeView(`Hello <@${event.user}>`) });
    });
    const server = (await app.start({ port: 0, host: '127.0.0.1' })) as Server;
    deliver = slackSender(`http://127.0.0.1:${(server.address() as AddressInfo).port}/slack/events`, secret);
  });
  afterAll(async () => {
    await app.stop();
    await slack.close();
  });

  it('a signed /approvals reaches app.command, and respond() answers the person privately through the response_url', async () => {
    const responseUrl = slack.responseUrl({ channel: 'C0CHANNEL01', user: PERSON });
    const res = await deliver.command({ command: '/approvals', text: 'mine', user: PERSON, channel: 'C0CHANNEL01', responseUrl });
    expect(res.status).toBe(200);
    await slack.waitFor('response_url');
    expect(slack.ephemerals('C0CHANNEL01')).toMatchObject([{ user: PERSON, text: `pending for ${PERSON}: none (mine)` }]);
  });

  it('the slash command body is the flat form Slack posts, and a forged signature is refused', async () => {
    const body = new URLSearchParams(slashCommandBody({ command: '/approvals', user: PERSON, channel: 'C0CHANNEL01' }));
    expect(body.get('command')).toBe('/approvals');
    expect(body.get('trigger_id')).toMatch(/^\d+\.\d+\.[0-9a-f]+$/);
    expect(body.has('payload')).toBe(false);
    const forged = await deliver.raw(body.toString(), { headers: { 'x-slack-signature': 'v0=deadbeef' } });
    expect(forged.status).toBe(401);
  });

  it('app_home_opened reaches app.event, and the Home view it publishes is stored for that person', async () => {
    const res = await deliver.event(appHomeOpenedEnvelope({ user: PERSON, channel: 'D0PERSON01' }));
    expect(res.status).toBe(200);
    await slack.waitFor('views.publish');
    expect(slack.homeView(PERSON)?.blocks).toEqual(homeView(`Hello <@${PERSON}>`).blocks);
  });
});
