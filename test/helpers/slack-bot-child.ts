/**
 * A bot instance in a process of its own, for tests that stop it with SIGKILL
 * at a chosen moment: the real Slack front end (Bolt over HTTP) on an agent
 * with `delete_record` (needs approval), against the fake Slack at
 * SLACK_API_URL and the PostgreSQL schema CHILD_SCHEMA. It prints
 * `{"port":…}` once listening and `executed <id>` each time the tool runs.
 * CHILD_SCRIPT is the scripted model's steps, as JSON.
 */
import { Agent } from '../../src/agent/agent.js';
import { definePolicy } from '../../src/approvals/define-policy.js';
import { openDatabase } from '../../src/db/database.js';
import { createLogger } from '../../src/logger.js';
import { createSlackApp } from '../../src/slack/app.js';
import { FAKE_BOT_TOKEN, SLACK_IDS } from '../../src/simulator/index.js';
import { recordingDeleteTool } from './recording-delete-tool.js';
import { scriptedModel, type ScriptStep } from './scripted-model.js';

const env = process.env;
const database = await openDatabase({ databaseUrl: env.DATABASE_URL!, schema: env.CHILD_SCHEMA! });
const { deleteRecord } = recordingDeleteTool((input) => process.stdout.write(`executed ${input.id}\n`));
const agent = new Agent({
  id: 'ops',
  model: scriptedModel(JSON.parse(env.CHILD_SCRIPT!) as ScriptStep[]),
  tools: { delete_record: deleteRecord },
  storage: database,
  policy: definePolicy({}),
  botUserId: SLACK_IDS.botUserId,
  runLeaseMs: Number(env.CHILD_RUN_LEASE_MS ?? 60_000),
});
const slack = createSlackApp({
  config: { botToken: FAKE_BOT_TOKEN, signingSecret: env.CHILD_SIGNING_SECRET!, apiUrl: env.SLACK_API_URL!, port: 0 },
  agent,
  db: database.db,
  logger: createLogger({ level: 'silent' }),
  sweepIntervalMs: 0,
  workingReactionDelayMs: 0,
});
const { port } = await slack.start();
process.stdout.write(`${JSON.stringify({ port })}\n`);
