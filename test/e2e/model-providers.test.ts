/**
 * A configured model provider end to end, as a team runs the bot in production: `npm run
 * start:prod` with MODEL and the provider's settings, behind the Slack simulator, against a
 * provider on loopback that speaks that provider's wire format (test/helpers/fake-providers.ts):
 * a mention, the model's tool call streamed back, the approval card, Approve, the tool's result
 * sent to the model and its streamed answer posted in the thread, then a second mention in the
 * thread, which sends the model the whole history (its tool call and result included) as the
 * real API would have to accept it. Then a decline whose reason is "done" (the model is told the
 * call was declined, by whom, the reason quoted as their words) and a requester's "cancel" (the
 * thread is free at once, and the next run there is told the call was cancelled, by whom, with
 * no call left unanswered).
 * The same for an agents module whose agents name their models as strings, and a string model
 * whose key is missing stops start-up naming the variable. The provider is the subject, not the
 * embedded database: each process starts on a database of its own, on PostgreSQL when DATABASE_URL
 * is set, else on a DATA_DIR as an earlier start left it (bot-database.ts); a first start's initdb
 * is fresh-clone's to test. The built entry, not `npm start`: the provider is the subject here, and tsx compiling src/ costs each
 * start seconds of CPU (fresh-clone walks `npm start` with a MODEL).
 */
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTION_IDS, CALLBACK_IDS } from '../../src/slack/kit/action-ids.js';
import { newTriggerId, startSlackSimulator, viewSubmissionPayload, type SlackSimulator } from '../../src/simulator/index.js';
import { startBotProcess, startSlackBotProcess, stopAllBotProcesses } from '../helpers/bot-process.js';
import { ensureBuiltPackage } from '../helpers/built-package.js';
import { startFakeProviders, type Api, type FakeProviders, type Reply, type Turn } from '../helpers/fake-providers.js';
import { botDatabase, type BotDatabase } from '../helpers/bot-database.js';
import { clickButton, mention, textOf, waitForCard, waitForText, waitForUpdate } from '../helpers/slack-bot.js';
import { tempDir } from '../helpers/temp-dir.js';

const ROOT = resolve(import.meta.dirname, '../..');
const CHANNEL = 'C0CHANNEL01';
const REQUESTER = 'U0REQUESTER';
const ALICE = 'U0ALICE';
const dir = tempDir('model-providers-');
const START = ['npm', 'run', 'start:prod', '--silent'];

/**
 * The model, whichever provider carries it: "delete record X" and "close ticket N" become that
 * tool's call; once the tool's result is in, it says what the result says; anything else is thanks.
 */
function script(turns: Turn[]): Reply {
  const last = turns.at(-1);
  if (last?.role === 'tool') {
    // What the runtime says of a call that did not run reaches the model as that call's result: said back.
    if (last.output.startsWith('Tool call ')) return { text: `Not done. ${last.output}` };
    const result = JSON.parse(last.output) as { deleted?: boolean; id?: string | number; title?: string; status?: string };
    if (last.name === 'delete_record' && result.deleted) return { text: `Deleted record ${result.id} (${result.title}).` };
    if (last.name === 'close_ticket') return { text: `Ticket ${result.id} is ${result.status}.` };
    return { text: `The tool answered: ${last.output}` };
  }
  const text = last?.role === 'user' ? last.text : '';
  const record = /delete record (\S+)/.exec(text);
  if (record) return { text: 'Deleting it once someone approves.', toolCalls: [{ name: 'delete_record', args: { id: record[1] } }] };
  const ticket = /close ticket (\d+)/.exec(text);
  if (ticket) return { toolCalls: [{ name: 'close_ticket', args: { id: Number(ticket[1]) } }] };
  return { text: 'You are welcome.' };
}

let fake: SlackSimulator;
let providers: FakeProviders;
beforeAll(async () => {
  fake = await startSlackSimulator();
  providers = await startFakeProviders(script);
  await ensureBuiltPackage();
}, 300_000);
const databases: BotDatabase[] = [];
afterAll(async () => {
  await stopAllBotProcesses();
  await fake?.close();
  await providers?.close();
  await Promise.all(databases.map((d) => d.drop()));
  rmSync(dir, { recursive: true, force: true });
});

/** The environment naming a database of its own for one bot process (see bot-database.ts). */
async function databaseEnv(name: string): Promise<Record<string, string>> {
  const database = await botDatabase(join(dir, name));
  databases.push(database);
  return database.env;
}

/** Each provider's settings, as a team sets them. */
function settingsFor(api: Api): Record<string, string> {
  switch (api) {
    case 'openai-responses':
      return { MODEL: 'openai/gpt-5-mini', OPENAI_API_KEY: providers.keys.openai, OPENAI_BASE_URL: providers.openaiBaseUrl };
    case 'openai-chat':
      return { MODEL: 'openai.chat/gpt-4.1-mini', OPENAI_API_KEY: providers.keys.openai, OPENAI_BASE_URL: providers.openaiBaseUrl };
    case 'anthropic':
      return { MODEL: 'anthropic/claude-sonnet-4-5', ANTHROPIC_API_KEY: providers.keys.anthropic, ANTHROPIC_BASE_URL: providers.anthropicBaseUrl };
    case 'openai-compatible':
      return { MODEL: 'openai-compatible/llama-3.3-70b', OPENAI_COMPATIBLE_BASE_URL: providers.compatibleBaseUrl, OPENAI_COMPATIBLE_API_KEY: providers.keys.compatible };
  }
}

const requestsTo = (api: Api) => providers.requests.filter((r) => r.api === api);
/** What the bot posted in a thread, in order. */
const textsIn = (sim: SlackSimulator, thread: { channel: string; threadTs: string }) =>
  sim.callsTo('chat.postMessage').filter((c) => c.args.channel === thread.channel && c.args.thread_ts === thread.threadTs).map((c) => String(c.args.text));

// One process per provider, started side by side: most of each test is the process starting.
describe.concurrent('MODEL with its provider settings: npm run start:prod runs the demo agents on that provider', { timeout: 180_000 }, () => {
  it.each<[string, Api]>([
    ['OpenAI, Responses API (openai/…)', 'openai-responses'],
    ['OpenAI, Chat Completions (openai.chat/…)', 'openai-chat'],
    ['Anthropic, Messages API (anthropic/…)', 'anthropic'],
    ['an OpenAI-compatible server (openai-compatible/…)', 'openai-compatible'],
  ])('%s: mention → card → Approve → answer, and a follow-up in the thread', async (_name, api) => {
    const settings = settingsFor(api);
    const { process, bot } = await startSlackBotProcess(fake, { command: START, cwd: ROOT, env: { ...settings, ...(await databaseEnv(api)) } });
    expect((await process.waitForLog(/^model selected$/)).model).toBe(settings.MODEL);

    const thread = await mention(bot, { user: REQUESTER, channel: CHANNEL, text: 'delete record abc-123' });
    const card = await waitForCard(fake, thread, 'approval');
    expect(textOf(card.call)).toContain('Delete record abc-123');
    const [first] = requestsTo(api);
    // The demo's tools reached the provider in its format, the supervisor's sub-agent among them.
    expect(first!.tools).toEqual(expect.arrayContaining(['lookup_record', 'delete_record', 'deploy_service', 'ask_user', 'agent-billing']));
    expect(first!.body.model).toBe(settings.MODEL!.split('/')[1]);

    await clickButton(bot, card, ALICE, ACTION_IDS.approve);
    await waitForUpdate(fake, card, `Approved by <@${ALICE}>`);
    await waitForText(fake, thread, 'Deleted record abc-123 (Q3 vendor contract).');
    // The tool's result went back as that provider's tool result, answering the call it made.
    const second = requestsTo(api)[1]!;
    expect(second.turns.at(-1)).toMatchObject({ role: 'tool', name: 'delete_record', output: expect.stringContaining('"deleted":true') });

    await mention(bot, { user: REQUESTER, channel: CHANNEL, text: 'thanks', threadTs: thread.threadTs });
    await waitForText(fake, thread, 'You are welcome.');
    const third = requestsTo(api)[2]!;
    // The thread's history, the approved call and its result included, in a form the real API accepts.
    expect(third.turns.filter((t) => t.role === 'user').map((t) => (t as { text: string }).text)).toEqual([expect.stringContaining('delete record abc-123'), expect.stringContaining('thanks')]);
    expect(third.turns.some((t) => t.role === 'assistant' && t.toolCalls.some((c) => c.name === 'delete_record'))).toBe(true);
    expect(third.turns.some((t) => t.role === 'tool' && t.name === 'delete_record')).toBe(true);
    expect(requestsTo(api)).toHaveLength(3);

    // Declined with a reason that reads like success: the model is told it was declined, by whom, in their words.
    const declined = await mention(bot, { user: REQUESTER, channel: CHANNEL, text: 'delete record def-456' });
    const declineCard = await waitForCard(fake, declined, 'approval');
    const triggerId = newTriggerId();
    await clickButton(bot, declineCard, ALICE, ACTION_IDS.decline, { triggerId });
    const modal = (await fake.waitFor((c) => c.method === 'views.open' && c.args.trigger_id === triggerId)).args.view as { private_metadata: string };
    await bot.send.interaction(viewSubmissionPayload({ user: ALICE, callbackId: CALLBACK_IDS.declineModal, privateMetadata: modal.private_metadata, stateValues: { reason: { reason: 'done' } } }));
    const toldDeclined = `Tool call declined by ${ALICE}; delete_record did not run. Their reason, in their own words: "done".`;
    await waitForText(fake, declined, `Not done. ${toldDeclined}`);
    expect(requestsTo(api)[4]!.turns.at(-1)).toMatchObject({ role: 'tool', name: 'delete_record', output: toldDeclined });

    // Cancelled by its requester: the thread is free at once, and the next run there is told the call was cancelled, by whom.
    const cancelled = await mention(bot, { user: REQUESTER, channel: CHANNEL, text: 'delete record ghi-789' });
    await waitForCard(fake, cancelled, 'approval');
    await mention(bot, { user: REQUESTER, channel: CHANNEL, text: 'cancel', threadTs: cancelled.threadTs });
    await waitForText(fake, cancelled, `Cancelled by <@${REQUESTER}>`);
    await mention(bot, { user: REQUESTER, channel: CHANNEL, text: 'thanks', threadTs: cancelled.threadTs });
    await waitForText(fake, cancelled, 'You are welcome.');
    const afterCancel = requestsTo(api).at(-1)!;
    expect(afterCancel.turns.filter((t) => t.role === 'tool')).toEqual([
      expect.objectContaining({ name: 'delete_record', output: `Tool call cancelled by ${REQUESTER}; delete_record did not run: Cancelled in Slack.` }),
    ]);
    expect(textsIn(fake, cancelled).some((t) => t.includes('still working on the earlier request'))).toBe(false);
    expect(providers.refused.filter((r) => r.api === api)).toEqual([]);
    expect(process.output()).not.toContain(Object.values(providers.keys).find((k) => Object.values(settings).includes(k)));
    expect((await process.stop()).code).toBe(0);
  });
});

describe('an agents module whose agents name their models as provider/model strings', { timeout: 120_000 }, () => {
  /**
   * A module outside the repository with a supervisor and a sub-agent, in an ES module project of
   * its own whose node_modules links zod and this repository (as slack-approval-bot): the module
   * imports the package by name, the very build the bot runs.
   */
  function writeModule(): string {
    const folder = join(dir, 'team');
    mkdirSync(join(folder, 'node_modules'), { recursive: true });
    writeFileSync(join(folder, 'package.json'), JSON.stringify({ name: 'team-agents', private: true, type: 'module' }));
    symlinkSync(join(ROOT, 'node_modules/zod'), join(folder, 'node_modules/zod'), 'dir');
    symlinkSync(ROOT, join(folder, 'node_modules/slack-approval-bot'), 'dir');
    const file = join(folder, 'agents.ts');
    writeFileSync(
      file,
      `import { z } from 'zod';
import { Agent, createTool } from 'slack-approval-bot';

const closeTicket = createTool({
  id: 'close_ticket',
  description: 'Close a ticket. A person approves each close first.',
  inputSchema: z.object({ id: z.number().int().positive() }),
  requireApproval: true,
  execute: async ({ id }: { id: number }) => ({ id, status: 'closed' }),
});

const triage = new Agent({ id: 'triage', description: 'Sorts new tickets.', model: 'anthropic/claude-haiku-4-5' });

export default new Agent({
  id: 'support',
  instructions: 'You work on the team\\'s tickets.',
  model: 'openai-compatible/llama-3.3-70b',
  tools: { close_ticket: closeTicket },
  agents: { triage },
});
`,
    );
    return file;
  }
  let file: string;
  beforeAll(() => {
    file = writeModule();
  });

  it('get the configured providers: mention → card → Approve → answer over the OpenAI-compatible server', async () => {
    const env = { ...settingsFor('openai-compatible'), ...settingsFor('anthropic'), MODEL: undefined, AGENTS_MODULE: file, ...(await databaseEnv('module')) };
    const { process, bot } = await startSlackBotProcess(fake, { command: START, cwd: ROOT, env });
    expect((await process.waitForLog(/^model selected$/)).model).toBe('openai-compatible.chat/llama-3.3-70b');
    const thread = await mention(bot, { user: REQUESTER, channel: CHANNEL, text: 'close ticket 7' });
    const card = await waitForCard(fake, thread, 'approval');
    expect(requestsTo('openai-compatible').at(-1)!.tools).toEqual(['close_ticket', 'agent-triage']);
    await clickButton(bot, card, ALICE, ACTION_IDS.approve);
    await waitForText(fake, thread, 'Ticket 7 is closed.');
    expect(providers.refused).toEqual([]);
    expect((await process.stop()).code).toBe(0);
  });

  it('a string model whose key is missing stops start-up naming the agent and the variable, before anyone mentions the bot', async () => {
    const env = { ...settingsFor('openai-compatible'), AGENTS_MODULE: file, DATA_DIR: join(dir, 'keyless') };
    const bot = startBotProcess({ command: START, cwd: ROOT, env });
    const { code } = await bot.exited;
    expect(code).toBe(1);
    const fatal = bot.logs().find((l) => l.level === 60);
    expect(fatal).toMatchObject({ code: 'AGENTS_MODULE_INVALID', msg: `AGENTS_MODULE ${file}: agent triage: model "anthropic/claude-haiku-4-5" needs ANTHROPIC_API_KEY` });
    expect(bot.output()).not.toContain('Slack app started');
  });

  it('the same for MODEL: openai.chat/… without OPENAI_API_KEY', async () => {
    const bot = startBotProcess({ command: START, cwd: ROOT, env: { MODEL: 'openai.chat/gpt-4.1-mini', DATA_DIR: join(dir, 'keyless-model') } });
    expect((await bot.exited).code).toBe(1);
    expect(bot.logs().find((l) => l.level === 60)).toMatchObject({ code: 'MODEL_CONFIG_INVALID', msg: 'model "openai.chat/gpt-4.1-mini" needs OPENAI_API_KEY' });
  });
});
