import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { suspendedRunsRoute } from '../../src/http/suspended-runs-route.js';
import { silentLogger } from '../../src/logger.js';
import { agentWith, countingTool } from '../helpers/agents.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { describeBackends } from '../helpers/needs.js';
import { scriptedModel } from '../helpers/scripted-model.js';

describeBackends('GET /agents/:agentId/suspended-runs on %s', (backend) => {
  let database: TestDatabase;
  let server: Server;
  let base: string;
  let runId: string;
  beforeAll(async () => {
    database = await createTestDatabase(backend);
    const { tool } = countingTool('delete_record', { requireApproval: true });
    const agent = agentWith({ model: scriptedModel([{ toolCalls: [{ toolName: 'delete_record', args: { id: 'abc-123' } }] }]), tools: { delete_record: tool }, storage: database });
    runId = (await agent.generate('delete', { threadId: 'C1:1.0', resourceId: 'T1' })).runId;
    const route = suspendedRunsRoute({ agents: [agent], adminToken: 's3cret', logger: silentLogger });
    server = createServer((req, res) => {
      void route(req, res).then((handled) => {
        if (!handled) res.writeHead(404).end();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((r) => server?.close(r));
    await database?.close();
  });

  it('lists suspended runs with their waiting calls for the admin token only', async () => {
    const ok = await fetch(`${base}/agents/ops/suspended-runs?threadId=C1:1.0`, { headers: { authorization: 'Bearer s3cret' } });
    expect(ok.status).toBe(200);
    const body = (await ok.json()) as { runs: unknown[] };
    expect(body.runs).toEqual([
      expect.objectContaining({ runId, threadId: 'C1:1.0', resourceId: 'T1', toolCalls: [expect.objectContaining({ toolName: 'delete_record', args: { id: 'abc-123' }, requiresApproval: true })] }),
    ]);
    const other = await fetch(`${base}/agents/ops/suspended-runs?threadId=elsewhere`, { headers: { authorization: 'Bearer s3cret' } });
    expect(((await other.json()) as { runs: unknown[] }).runs).toEqual([]);
    expect((await fetch(`${base}/agents/ops/suspended-runs`)).status).toBe(401);
    expect((await fetch(`${base}/agents/ops/suspended-runs`, { headers: { authorization: 'Bearer wrong!' } })).status).toBe(401);
    expect((await fetch(`${base}/agents/nobody/suspended-runs`, { headers: { authorization: 'Bearer s3cret' } })).status).toBe(404);
    expect((await fetch(`${base}/agents/ops/suspended-runs`, { method: 'POST', headers: { authorization: 'Bearer s3cret' } })).status).toBe(405);
  });

  it('is disabled without an admin token', async () => {
    const route = suspendedRunsRoute({ agents: [], logger: silentLogger });
    const s = createServer((req, res) => void route(req, res));
    await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
    const res = await fetch(`http://127.0.0.1:${(s.address() as AddressInfo).port}/agents/ops/suspended-runs`);
    expect(res.status).toBe(403);
    await new Promise((r) => s.close(r));
  });
});
