import { describe, expect, it } from 'vitest';
import { createSlackBot } from '../../../src/bot/create-slack-bot.js';
import { agentWith } from '../../helpers/agents.js';
import { scriptedModel } from '../../helpers/scripted-model.js';

describe('createSlackBot({ mcpServers })', () => {
  it('refuses a bad server entry when the bot is created, naming it', () => {
    const make = () =>
      createSlackBot({
        agents: agentWith({ model: scriptedModel([{ text: 'hi' }]) }),
        database: {} as never,
        slack: { token: 'xoxb-1-2-x', signingSecret: 's' },
        mcpServers: { github: { url: 'ftp://nope' } },
      });
    expect(make).toThrow(TypeError);
    expect(make).toThrow(/mcpServers\.github\.url: must be an http/);
  });
});
