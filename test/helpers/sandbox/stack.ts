/**
 * The whole thing `npm start` runs without Slack: the sandbox, the real bot (Bolt over HTTP,
 * createSlackApp) wired to it by runWithSandbox, the demo agents on the built-in demo model, and
 * an embedded database. Tests drive it the way the UI does, through /ui/*.
 */
import { afterAll, beforeAll } from 'vitest';
import { parseConfig } from '../../../src/config.js';
import { createDemoAgents } from '../../../src/demo/create-demo-agents.js';
import { createDemoModel } from '../../../src/demo/model/create-demo-model.js';
import { seedDemoData } from '../../../src/demo/seed-demo-data.js';
import { createDemoTables, demoDb, type DemoDb } from '../../../src/demo/demo-tables.js';
import { runWithSandbox, type RunningSandbox } from '../../../src/sandbox/run-with-sandbox.js';
import type { StoredEphemeral, StoredMessage } from '../../../src/sandbox/store.js';
import { createSlackApp } from '../../../src/slack/app.js';
import { slackGroupResolver, slackWebClient } from '../../../src/slack/transport/slack-web-client.js';
import { openDatabase, type Database } from '../../../src/db/database.js';
import { migrate } from '../../../src/db/migrate.js';
import { createTestDatabase } from '../db.js';
import { captureLogger } from '../slack-bot.js';

export interface Stack {
  run: RunningSandbox;
  database: Database;
  demo: DemoDb;
  logs: string[];
  ui(path: string, body: unknown): Promise<{ status: number; json: any }>;
  /** Resolves with the first value `find` returns once the sandbox's state has it. */
  until<T>(find: () => T | undefined, timeoutMs?: number): Promise<T>;
  thread(channel: string, ts: string): StoredMessage[];
  ephemerals(user: string): StoredEphemeral[];
  stop(): Promise<void>;
}

interface StackOptions {
  /** A PGlite folder that outlives the stack, to restart on the same data; in memory by default. */
  dataDir?: string;
  /** The sandbox's state file, for the same reason. */
  stateFile?: string;
}

async function openStackDatabase(dataDir: string | undefined): Promise<Database> {
  if (dataDir === undefined) return createTestDatabase('pglite');
  const database = await openDatabase({ dataDir });
  await migrate(database.db);
  return database;
}

export async function startStack(options: StackOptions = {}): Promise<Stack> {
  const database = await openStackDatabase(options.dataDir);
  await createDemoTables(database.db);
  await seedDemoData(database.db);
  const { logger, logs } = captureLogger();
  const run = await runWithSandbox({
    config: parseConfig({ PORT: '0' }),
    logger,
    modelLabel: 'built-in demo model',
    ...(options.stateFile ? { stateFile: options.stateFile } : {}),
    createBot: async (botConfig) => {
      const client = slackWebClient(botConfig.slack, logger);
      const auth = await client.auth.test();
      const { ops } = createDemoAgents({
        db: database.db,
        storage: database,
        model: createDemoModel({ chunkDelayMs: 0 }),
        logger,
        botUserId: auth.user_id!,
        resolveGroupMembers: slackGroupResolver(client),
      });
      return createSlackApp({ config: { ...botConfig.slack, port: botConfig.port, host: botConfig.httpHost }, agent: ops, db: database.db, logger, sweepIntervalMs: 0 });
    },
  });
  const store = run.sandbox.store;
  return {
    run,
    database,
    demo: demoDb(database.db),
    logs,
    async ui(path, body) {
      const response = await fetch(`${run.sandbox.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      return { status: response.status, json: await response.json() };
    },
    until(find, timeoutMs = 15_000) {
      return new Promise((resolve, reject) => {
        let stop = () => {};
        const timer = setTimeout(() => {
          stop();
          reject(new Error(`timed out; sandbox notices: ${JSON.stringify(store.notices())}`));
        }, timeoutMs);
        const check = () => {
          const found = find();
          if (found === undefined) return false;
          clearTimeout(timer);
          stop();
          resolve(found);
          return true;
        };
        if (!check()) stop = store.onChange(() => void check());
      });
    },
    thread: (channel, ts) => store.thread(channel, ts),
    ephemerals: (user) => store.ephemeralsFor(user),
    async stop() {
      await run.stop();
      await database.close();
    },
  };
}

/**
 * A stack for the test file (or describe block) it is called in: started in beforeAll, stopped in
 * afterAll. Read its fields inside tests (they are set in beforeAll).
 */
export function useStack(options: StackOptions = {}): Stack {
  const stack = {} as Stack;
  beforeAll(async () => {
    Object.assign(stack, await startStack(options));
  });
  afterAll(async () => {
    await stack.stop?.();
  });
  return stack;
}

/** The actions block of a card of `kind` (block_id `<kind>:<id>`), if the message is one. */
export function cardBlock(message: StoredMessage, kind: 'approval' | 'question' | 'suspension'): { block_id: string; elements: any[] } | undefined {
  return (message.blocks ?? []).find((b: any) => b?.type === 'actions' && String(b.block_id).startsWith(`${kind}:`)) as any;
}

/** Everything a message shows as text, for assertions. */
export function shownText(message: StoredMessage): string {
  const parts = [message.text];
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(walk);
    if (node && typeof node === 'object') {
      const o = node as Record<string, unknown>;
      if (typeof o.text === 'string') parts.push(o.text);
      Object.values(o).forEach(walk);
    }
  };
  walk(message.blocks);
  return parts.join('\n');
}
