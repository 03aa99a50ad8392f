import { describe, expect, it } from 'vitest';
import { Agent } from '../../../src/agent/agent.js';
import { silentLogger } from '../../../src/logger.js';
import { createSlackApp } from '../../../src/slack/app.js';
import { scriptedModel } from '../../helpers/scripted-model.js';

// Never connected to anything: construction only reads the configuration.
const agent = new Agent({ id: 'ops', model: scriptedModel([{ text: 'hi' }]) });
const db = { withTables: () => ({}) } as never;

describe('createSlackApp', () => {
  it('needs a bot token, and a signing secret unless Socket Mode is configured', () => {
    expect(() => createSlackApp({ config: { port: 0 }, agent, db, logger: silentLogger })).toThrow(/SLACK_BOT_TOKEN/);
    expect(() => createSlackApp({ config: { botToken: 'xoxb-1', port: 0 }, agent, db, logger: silentLogger })).toThrow(/SLACK_SIGNING_SECRET/);
  });

  it('uses the HTTP receiver with a signing secret, Socket Mode with an app token', () => {
    const http = createSlackApp({ config: { botToken: 'xoxb-1', signingSecret: 's', port: 0 }, agent, db, logger: silentLogger });
    const socket = createSlackApp({ config: { botToken: 'xoxb-1', appToken: 'xapp-1', port: 0 }, agent, db, logger: silentLogger });
    const receiverOf = (app: unknown) => (app as { receiver: { constructor: { name: string } } }).receiver.constructor.name;
    expect(receiverOf(http.app)).toBe('HTTPReceiver');
    expect(receiverOf(socket.app)).toBe('SocketModeReceiver');
  });

  it('points the Web API client at SLACK_API_URL', () => {
    const slack = createSlackApp({
      config: { botToken: 'xoxb-1', signingSecret: 's', apiUrl: 'http://127.0.0.1:9/api', port: 0 },
      agent,
      db,
      logger: silentLogger,
    });
    expect(slack.context.client.slackApiUrl).toBe('http://127.0.0.1:9/api/');
  });
});
