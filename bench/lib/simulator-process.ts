/**
 * The Slack simulator (src/simulator), the one the e2e tests use, in a process of its own,
 * so serving the bot's Web API calls costs neither the bot's event loop nor the bench's clock.
 * Every call it records is summarised and sent to the parent (`calls` events, batched per tick).
 *   node --import tsx bench/lib/simulator-process.ts   (with an IPC channel; see child-rpc.ts)
 */
import { ACTION_IDS } from '../../src/slack/kit/action-ids.js';
import { startSlackSimulator, type RateLimit, type RecordedCall, type SlackSimulator } from '../../src/simulator/index.js';
import { serveRpc } from './child-rpc.js';

/** What the bench needs to know about one Web API call. */
export interface CallSummary {
  method: string;
  ok: boolean;
  error?: string;
  channel?: string;
  threadTs?: string;
  /** `ts` argument (chat.update: the message updated). */
  ts?: string;
  text?: string;
  /** Set when the call posted an approval card. */
  card?: { ts: string; blockId: string; approveValue: string; blocks: unknown[] };
}

type Block = Record<string, unknown>;

function summarizeCall(call: RecordedCall): CallSummary {
  const a = call.args;
  const s: CallSummary = { method: call.method, ok: call.ok };
  if (!call.ok) s.error = call.error ?? String(call.status);
  if (typeof a.channel === 'string') s.channel = a.channel;
  if (typeof a.thread_ts === 'string') s.threadTs = a.thread_ts;
  if (typeof a.ts === 'string') s.ts = a.ts;
  if (typeof a.text === 'string') s.text = a.text;
  if (call.method === 'chat.postMessage' && call.ok && Array.isArray(a.blocks)) {
    const blocks = a.blocks as Block[];
    const actions = blocks.find((b) => b.type === 'actions' && typeof b.block_id === 'string' && b.block_id.startsWith('approval:'));
    const approve = (actions?.elements as Block[] | undefined)?.find((e) => e.action_id === ACTION_IDS.approve);
    if (actions && approve) {
      s.card = { ts: String(call.response?.ts), blockId: String(actions.block_id), approveValue: String(approve.value ?? ''), blocks };
    }
  }
  return s;
}

let simulator: SlackSimulator | undefined;
let unsubscribe: (() => void) | undefined;
let batch: CallSummary[] = [];

function flush(): void {
  if (batch.length === 0) return;
  const out = batch;
  batch = [];
  rpc.emit('calls', out);
}

/** Calls are forwarded in batches, one per tick, so a burst costs one IPC message. */
function forward(call: RecordedCall): void {
  if (batch.length === 0) setImmediate(flush);
  batch.push(summarizeCall(call));
}

const rpc = serveRpc({
  async start() {
    simulator = await startSlackSimulator();
    unsubscribe = simulator.onCall(forward);
    return { apiUrl: simulator.apiUrl, origin: simulator.origin };
  },
  /** Slack's rate limit on a method (see SlackSimulator.rateLimit). */
  rateLimit({ method, limit }: { method: string; limit: RateLimit | undefined }) {
    simulator!.rateLimit(method, limit);
  },
  /** Puts people's messages in place, so reactions on them work as on Slack. */
  seed(messages: Array<{ channel: string; text: string; user: string; ts: string }>) {
    for (const m of messages) simulator!.seedMessage(m);
  },
  /** Also flushes the calls not yet reported, so they reach the parent before this answer. */
  stats() {
    flush();
    const cpu = process.cpuUsage();
    return { cpuUserMicros: cpu.user, cpuSystemMicros: cpu.system };
  },
  async close() {
    if (!simulator) return;
    unsubscribe?.();
    await simulator.close();
    simulator = undefined;
  },
});
