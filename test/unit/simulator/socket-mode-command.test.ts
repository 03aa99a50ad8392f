import { App } from '@slack/bolt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAKE_APP_TOKEN, FAKE_BOT_TOKEN, appHomeOpenedEnvelope, startSlackSimulator, type SlackSimulator } from '../../../src/simulator/index.js';
import { silentLogger as silent } from '../../helpers/silent-logger.js';

describe('Slack simulator Socket Mode: slash commands and app_home_opened to a real Bolt app', () => {
  let slack: SlackSimulator;
  let app: App;

  beforeAll(async () => {
    slack = await startSlackSimulator();
    app = new App({ token: FAKE_BOT_TOKEN, appToken: FAKE_APP_TOKEN, socketMode: true, clientOptions: { slackApiUrl: slack.apiUrl }, logger: silent });
    app.command('/approvals', async ({ ack, command }) => {
      await ack({ response_type: 'ephemeral', text: `nothing waits for ${command.user_id}` });
    });
    app.event('app_home_opened', async ({ event, client }) => {
      await client.views.publish({ user_id: event.user, view: { type: 'home', blocks: [{ type: 'section', text: { type: 'mrkdwn', text: 'Home' } }] } });
    });
    await app.start();
    await slack.socket.waitForConnection();
  });
  afterAll(async () => {
    await app.stop();
    await slack.close();
  });

  it('a slash_commands envelope reaches app.command, and its ack carries the answer', async () => {
    const envelopeId = slack.socket.command({ command: '/approvals', user: 'U0PERSON01', channel: 'C0CHANNEL01' });
    const ack = await slack.socket.waitForAck(envelopeId);
    expect(ack.payload).toMatchObject({ response_type: 'ephemeral', text: 'nothing waits for U0PERSON01' });
  });

  it('an app_home_opened event over the socket makes the app publish a Home view', async () => {
    const envelopeId = slack.socket.event(appHomeOpenedEnvelope({ user: 'U0PERSON01', channel: 'D0PERSON01' }));
    await slack.socket.waitForAck(envelopeId);
    await slack.waitFor('views.publish');
    expect(slack.homeView('U0PERSON01')?.blocks).toEqual([{ type: 'section', text: { type: 'mrkdwn', text: 'Home' } }]);
  });
});
