import { Agent } from '../../src/agent/agent.js';
import { definePolicy } from '../../src/approvals/define-policy.js';
import type { PolicyInput } from '../../src/approvals/policy-schema.js';
import { recordingDeleteTool } from './recording-delete-tool.js';
import { scriptedModel, type ScriptStep } from './scripted-model.js';
import { startBot, type Bot, type SlackHarness } from './slack-bot.js';

/**
 * The bot on the harness's fake Slack and database, with one agent whose model asks to delete
 * record abc and then says 'finished', under `policy`. `tool` is the delete_record it calls
 * (pass one in to see what was deleted); `agentId` defaults to 'ops'; `script` replaces the
 * model's steps (they go on from one run to the next).
 */
export function startDeleteBot(
  h: SlackHarness,
  policy: PolicyInput,
  options: { tool?: ReturnType<typeof recordingDeleteTool>; agentId?: string; script?: ScriptStep[] } = {},
): Promise<Bot> {
  const tool = options.tool ?? recordingDeleteTool();
  return startBot({
    fake: h.fake,
    db: h.database.db,
    makeAgent: (deps) =>
      new Agent({
        id: options.agentId ?? 'ops',
        instructions: 'test',
        model: scriptedModel(options.script ?? [{ toolCalls: [{ toolName: 'delete_record', args: { id: 'abc' } }] }, { text: 'finished' }]),
        tools: { delete_record: tool.deleteRecord },
        storage: h.database,
        policy: definePolicy(policy),
        ...deps,
      }),
  });
}
