import { describe, expect, it } from 'vitest';
import { Agent } from '../../../src/agent/agent.js';
import { createSlackBot } from '../../../src/bot/create-slack-bot.js';
import type { Database } from '../../../src/db/database.js';
import { captureLogger } from '../../helpers/slack-bot.js';
import { scriptedModel } from '../../helpers/scripted-model.js';

describe('createSlackBot', () => {
  const agent = () => new Agent({ id: 'ops', model: scriptedModel([{ text: 'hi' }]) });
  // Construction touches neither the database nor Slack: the warning comes before start().
  const database = {} as Database;

  it('warns, naming the rule, when a quorum can never be met by the approvers its policy lists', () => {
    const { logger, logs } = captureLogger();
    createSlackBot({
      agents: agent(),
      policy: { tools: { refund: { approvers: ['U0A1', 'U0A2'], quorum: 3 } } },
      database,
      slack: { token: 'xoxb-test', signingSecret: 'secret' },
      logger,
    });
    const warnings = logs.map((line) => JSON.parse(line) as { level: number; msg: string; field?: string }).filter((l) => l.level === 40);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ field: 'tools.refund' });
    expect(warnings[0]!.msg).toContain('quorum is 3 but only 2 approvers are listed');
  });

  it('says nothing about a policy every rule of which can be met', () => {
    const { logger, logs } = captureLogger();
    createSlackBot({
      agents: agent(),
      policy: { tools: { refund: { approvers: ['U0A1', 'U0A2'], quorum: 2 } } },
      database,
      slack: { token: 'xoxb-test', signingSecret: 'secret' },
      logger,
    });
    expect(logs.filter((line) => (JSON.parse(line) as { level: number }).level === 40)).toEqual([]);
  });
});
