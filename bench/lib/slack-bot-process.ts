/**
 * The bot under test, in a process of its own: the bench agent (scripted model, one tool that
 * needs approval) behind createSlackApp (Bolt over HTTP on an ephemeral port), working in the
 * parent's bench schema through a counting pool. Started by the slack suite:
 *   node --import tsx bench/lib/slack-bot-process.ts   (with an IPC channel; see child-rpc.ts)
 * Every tool execution is reported to the parent as an `executed` event.
 */
import { definePolicy } from '../../src/approvals/define-policy.js';
import { createLogger } from '../../src/logger.js';
import { createSlackApp, type SlackApp } from '../../src/slack/create-slack-app.js';
import { openCountingPool, type CountingPool } from './bench-db.js';
import { serveRpc } from './child-rpc.js';
import { benchAgent, toolName } from './fixture.js';

export interface BotStartArgs {
  databaseUrl: string;
  schema: string;
  botToken: string;
  signingSecret: string;
  apiUrl: string;
  botUserId: string;
  approvers: string[];
}

export interface BotStats {
  statements: number;
  /** process.cpuUsage() of the bot process, µs. */
  cpuUserMicros: number;
  cpuSystemMicros: number;
}

let pool: CountingPool | undefined;
let slack: SlackApp | undefined;

const rpc = serveRpc({
  async start(a: BotStartArgs) {
    pool = await openCountingPool(a.databaseUrl, a.schema);
    const policy = definePolicy({ tools: { [toolName]: { requireApproval: true, approvers: a.approvers } } });
    const agent = benchAgent(pool.db, (e) => rpc.emit('executed', e.recordId), { policy, botUserId: a.botUserId });
    slack = createSlackApp({
      config: { botToken: a.botToken, signingSecret: a.signingSecret, apiUrl: a.apiUrl, port: 0 },
      agent,
      db: pool.db,
      logger: createLogger({ level: 'silent', name: 'bench-bot' }),
      // Nothing should fail against the fake; a failure must show, not be retried away.
      retryConfig: { retries: 0 },
      sweepIntervalMs: 0,
    });
    const { port } = await slack.start();
    return { port };
  },
  /** Resolves once no work handed off after an ack is still running. */
  idle: () => slack?.idle(),
  stats(): BotStats {
    const cpu = process.cpuUsage();
    return { statements: pool?.counter.count ?? 0, cpuUserMicros: cpu.user, cpuSystemMicros: cpu.system };
  },
  /** Starts timing every statement by its text. */
  traceStatements() {
    if (pool) pool.counter.timings = new Map();
  },
  /** Stops timing; returns each statement's text and round trips (ms). */
  takeStatementTrace(): Array<[string, number[]]> {
    const timings = pool?.counter.timings;
    if (pool) pool.counter.timings = undefined;
    return timings ? [...timings] : [];
  },
  async stop() {
    await slack?.stop();
    await pool?.close();
    slack = undefined;
    pool = undefined;
  },
});
