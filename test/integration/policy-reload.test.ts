/**
 * Policy reload without a restart (src/watch-policy.ts): a real agent on a real database,
 * POLICY_FILE rewritten on disk (picked up by the file watch) or re-read on SIGHUP.
 */
import { EventEmitter } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import type { Agent } from '../../src/agent/agent.js';
import type { AgentChunk, ApprovalRequest } from '../../src/agent/api-types.js';
import { definePolicy } from '../../src/approvals/define-policy.js';
import { loadPolicyFile } from '../../src/approvals/load-policy-file.js';
import { watchPolicy, type WatchedPolicy } from '../../src/watch-policy.js';
import { listAuditEvents } from '../../src/db/audit.js';
import { agentWith, collect, countingTool } from '../helpers/agents.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { describeBackends } from '../helpers/needs.js';
import { scriptedModel } from '../helpers/scripted-model.js';
import { captureLogger } from '../helpers/slack-bot.js';
import { tempDir } from '../helpers/temp-dir.js';

const ALICE = 'U0ALICE';
const BOB = 'U0BOB';
const REQUESTER = 'U0REQUESTER';

/** "delete <id>" becomes a delete_record call; once its result is in, the model says so. */
function deletingModel() {
  return scriptedModel([
    (call) => {
      const last = call.prompt[call.prompt.length - 1];
      if (last?.role === 'tool') {
        const output = last.content[0] && 'output' in last.content[0] ? last.content[0].output : undefined;
        return { text: output?.type === 'execution-denied' ? 'not deleted' : 'deleted' };
      }
      const text = last?.role === 'user' ? last.content.map((p) => (p.type === 'text' ? p.text : '')).join('') : '';
      return { toolCalls: [{ toolName: 'delete_record', args: { id: text.replace(/^delete /, '') } }] };
    },
  ]);
}

function approvalOf(chunks: AgentChunk[]): ApprovalRequest | undefined {
  return chunks.find((c) => c.type === 'tool-call-approval')?.payload as ApprovalRequest | undefined;
}

async function until<T>(find: () => T | undefined, what: string, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = find();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const dir = tempDir('policy-reload-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describeBackends('policy reload without restart on %s', (backend) => {
  let database: TestDatabase;
  let watched: WatchedPolicy | undefined;
  beforeAll(async () => {
    database = await createTestDatabase(backend);
  });
  afterAll(async () => {
    await database?.close();
  });
  afterEach(() => watched?.close());

  /** A policy file of its own per test (in a folder of its own), an agent following it, and its logs. */
  function setUp(name: string, yaml: string) {
    const folder = mkdtempSync(join(dir, `${backend}-${name}-`));
    const file = join(folder, 'policy.yaml');
    writeFileSync(file, yaml);
    const { logger, logs } = captureLogger();
    const signals = new EventEmitter();
    const w = watchPolicy({ path: file, initial: loadPolicyFile(file), logger, debounceMs: 50, signals });
    watched = w;
    const { tool, calls } = countingTool('delete_record');
    const agent: Agent = w.follow(agentWith({ model: deletingModel(), tools: { delete_record: tool }, storage: database, logger }));
    const ask = async (id: string) => collect(await agent.stream(`delete ${id}`, { requester: REQUESTER }));
    const lines = () => logs.map((l) => JSON.parse(l) as { level: number; msg: string; [k: string]: unknown });
    return { file, w, agent, calls, ask, lines, signals };
  }

  it('a shadow policy file is followed the same way: reloaded on change and SIGHUP, never enforced, its differences audited', async () => {
    const { file, w, agent, calls, ask, lines, signals } = setUp('shadow-enforced', 'tools:\n  delete_record:\n    requireApproval: false\n');
    const shadowFile = join(file, '..', 'shadow.yaml');
    writeFileSync(shadowFile, 'tools:\n  delete_record:\n    requireApproval: false\n');
    const shadow = watchPolicy({ path: shadowFile, initial: loadPolicyFile(shadowFile), logger: agent.runtime.logger, debounceMs: 50, signals, role: 'shadow' });
    try {
      shadow.follow(agent);
      expect(agent.runtime.shadowPolicy?.version).toBe(shadow.current.version);
      expect(agent.runtime.policy.version).toBe(w.current.version);
      const before = shadow.current.version;
      writeFileSync(shadowFile, 'tools:\n  delete_record:\n    requireApproval: true\n    approvers: [U0ALICE]\n');
      await until(() => (shadow.current.version !== before ? true : undefined), 'the shadow file watch to reload');
      // The enforced policy is untouched: the call runs; the shadow's difference is on the trail.
      expect(agent.runtime.policy.version).toBe(w.current.version);
      expect(agent.runtime.shadowPolicy?.version).toBe(shadow.current.version);
      const chunks = await ask('s1');
      expect(approvalOf(chunks)).toBeUndefined();
      expect(calls).toEqual([{ id: 's1' }]);
      const trail = await listAuditEvents(database.db, { runId: chunks[0]!.runId });
      expect(trail.filter((e) => e.event === 'shadow-diff').map((e) => e.detail)).toMatchObject([{ differences: ['would-ask'], shadowVersion: shadow.current.version }]);
      const swap = lines().find((l) => l.msg.startsWith('shadow policy reloaded'));
      expect(swap).toMatchObject({ shadowPolicyFile: shadowFile, from: before, to: shadow.current.version });
      writeFileSync(shadowFile, 'tools: [');
      signals.emit('SIGHUP');
      expect(lines().some((l) => l.msg.includes(`The shadow policy in force (${shadow.current.version}) stays.`))).toBe(true);
    } finally {
      shadow.close();
    }
  });

  it('an edited policy file changes what the next request needs, and the swap is logged once with both versions', async () => {
    const { file, w, calls, ask, lines } = setUp('edit', 'version: relaxed\ntools:\n  delete_record:\n    requireApproval: false\n');
    const before = w.current.version;
    expect(approvalOf(await ask('a1'))).toBeUndefined();
    expect(calls).toEqual([{ id: 'a1' }]);

    writeFileSync(file, 'version: strict\ntools:\n  delete_record:\n    requireApproval: true\n    approvers: [U0ALICE]\n');
    const after = await until(() => (w.current.version !== before ? w.current.version : undefined), 'the file watch to reload');
    expect(after).toMatch(/^strict@/);

    const request = approvalOf(await ask('a2'));
    expect(request).toMatchObject({ toolName: 'delete_record', policyVersion: after, approvers: [ALICE] });
    expect(calls).toEqual([{ id: 'a1' }]);

    const swaps = lines().filter((l) => l.msg.startsWith('policy reloaded'));
    expect(swaps).toHaveLength(1);
    expect(swaps[0]).toMatchObject({ from: before, to: after, policyFile: file, level: 30 });
    expect(swaps[0]!.msg).toBe(`policy reloaded: ${before} → ${after}`);
  });

  it('a request pending from before the reload keeps its version: an approval of it is asked again under the new policy, a decline stands', async () => {
    const { file, w, agent, calls, ask, signals } = setUp(
      'pending',
      'version: one\ntools:\n  delete_record:\n    requireApproval: true\n    approvers: [U0ALICE]\n',
    );
    const v1 = w.current.version;
    const approveLater = approvalOf(await ask('p1'))!;
    const declineLater = approvalOf(await ask('p2'))!;
    expect(approveLater).toMatchObject({ policyVersion: v1, quorum: 1 });

    // Written and signalled at once: SIGHUP reads the file itself, whatever the watch does.
    writeFileSync(file, 'version: two\ntools:\n  delete_record:\n    requireApproval: true\n    approvers: [U0ALICE, U0BOB]\n    quorum: 2\n');
    signals.emit('SIGHUP');
    const v2 = w.current.version;
    expect(v2).toMatch(/^two@/);

    // The old request is still what it was asked as.
    expect(await agent.findRequest(approveLater.actionId)).toMatchObject({ status: 'pending', policy_version: v1, quorum: 1 });
    // A new request is asked under the new rules.
    expect(approvalOf(await ask('p3'))).toMatchObject({ policyVersion: v2, quorum: 2, approvers: [ALICE, BOB] });

    // One approval would have been enough under v1, but v1's approval is not honoured under v2: asked again.
    const approved = await agent.decideToolCall({ actionId: approveLater.actionId, decision: 'approve', actor: { userId: ALICE } });
    expect(approved.outcome).toBe('policy-changed');
    const again = approvalOf(await collect((approved as { stream: Parameters<typeof collect>[0] }).stream))!;
    expect(again).toMatchObject({ toolName: 'delete_record', args: { id: 'p1' }, policyVersion: v2, quorum: 2 });
    expect(await agent.findRequest(approveLater.actionId)).toMatchObject({ status: 'superseded', policy_version: v1 });

    const declined = await agent.decideToolCall({ actionId: declineLater.actionId, decision: 'decline', actor: { userId: ALICE } });
    expect(declined.outcome).toBe('declined');
    expect(await agent.findRequest(declineLater.actionId)).toMatchObject({ status: 'declined', policy_version: v1 });
    expect(calls).toEqual([]);
  });

  it('a file that is not a valid policy keeps the old one, with one error naming the file and the problem', async () => {
    const { file, w, calls, ask, lines, signals } = setUp('bad', 'version: good\ntools:\n  delete_record:\n    requireApproval: false\n');
    const good = w.current.version;

    writeFileSync(file, 'version: broken\ntools:\n  delete_record:\n    requireApproval: true\n    quorum: two\n');
    const error = await until(() => lines().find((l) => l.level === 50), 'the error line');
    // Let any late events of the same save settle: still one line.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const errors = lines().filter((l) => l.level === 50);
    expect(errors).toHaveLength(1);
    expect(error.msg).toContain(`Invalid policy in ${file}: tools.delete_record.quorum must be a whole number`);
    expect(error.msg).toContain(`The policy in force (${good}) stays.`);
    expect(error).toMatchObject({ policyFile: file, keptVersion: good });
    expect(w.current.version).toBe(good);

    // SIGHUP on the same bad file: the same answer, and the old policy still decides.
    signals.emit('SIGHUP');
    expect(lines().filter((l) => l.level === 50)).toHaveLength(2);
    expect(approvalOf(await ask('b1'))).toBeUndefined();
    expect(calls).toEqual([{ id: 'b1' }]);
    expect(lines().some((l) => l.msg.startsWith('policy reloaded'))).toBe(false);
  });

  it('warns at load, naming the rule, about a quorum the listed approvers can never meet', async () => {
    const { file, lines, w } = setUp('unmet', 'tools:\n  delete_record:\n    requireApproval: true\n');
    expect(lines().filter((l) => l.level === 40)).toEqual([]);
    writeFileSync(
      file,
      'tools:\n  delete_record:\n    requireApproval: true\n    approvers: [U0ALICE]\n    rules:\n      - when: { arg: id, op: eq, value: all }\n        then: { quorum: 3 }\n',
    );
    const warning = await until(() => lines().find((l) => l.level === 40), 'the warning');
    expect(warning).toMatchObject({ field: 'tools.delete_record.rules[0]', quorum: 3, approvers: 1, policyVersion: w.current.version });
    expect(warning.msg).toBe('tools.delete_record.rules[0]: quorum is 3 but only 1 approver is listed, so requests under it can never be approved');
  });

  it('without POLICY_FILE, SIGHUP says there is no file to reload and changes nothing', async () => {
    const { logger, logs } = captureLogger();
    const signals = new EventEmitter();
    const initial = definePolicy({ version: 'from-code', tools: { delete_record: { requireApproval: true } } });
    watched = watchPolicy({ path: undefined, initial, logger, signals });
    const agent = watched.follow(agentWith({ model: deletingModel(), tools: { delete_record: countingTool('delete_record').tool }, storage: database, logger }));
    signals.emit('SIGHUP');
    expect(watched.current).toBe(initial);
    expect(agent.policy).toBe(initial);
    const lines = logs.map((l) => JSON.parse(l) as { level: number; msg: string });
    expect(lines.filter((l) => l.level >= 40)).toEqual([
      expect.objectContaining({ level: 40, msg: 'SIGHUP received, but no POLICY_FILE is set: there is no policy file to reload' }),
    ]);
  });
});
