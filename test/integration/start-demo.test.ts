import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { definePolicy } from '../../src/approvals/define-policy.js';
import { demoPolicy, sandboxDemoPolicy } from '../../src/demo/demo-policy.js';
import { demoDb } from '../../src/demo/demo-tables.js';
import { startDemo } from '../../src/demo/start-demo.js';
import { createLogger } from '../../src/logger.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';

const logger = createLogger({ level: 'silent' });
const workspace = { botUserId: 'U0BOTUSER', resolveGroupMembers: async () => [] };

describe('startDemo: the agents when none are configured', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase('pglite');
  });
  afterAll(async () => {
    await database?.close();
  });

  it('sets up its tables and rows, and supplies ops on the built-in demo model under the demo policy', async () => {
    const agents = await startDemo({ database, model: undefined, logger, runLeaseMs: 60_000 });
    expect(agents).toMatchObject({ policy: demoPolicy, policySource: 'built-in demo policy' });
    expect(agents.modelLabel).toMatch(/^built-in demo model/);
    const ids = await demoDb(database.db).selectFrom('demo_records').select('id').orderBy('id').execute();
    expect(ids.map((r) => r.id)).toEqual(['abc-123', 'def-456', 'ghi-789']);

    const ops = agents.agentFor(workspace);
    expect(ops.id).toBe('ops');
    const answer = await ops.generate('look up record def-456', { requester: 'U0ALICE' });
    expect(answer.text).toBe('Record def-456 is "Onboarding checklist draft", owned by bob.');
  });

  it('a second start keeps what approved calls changed; a policy file and a configured model replace the demo’s', async () => {
    await demoDb(database.db).updateTable('demo_records').set({ deleted_at: new Date() }).where('id', '=', 'ghi-789').execute();
    const custom = definePolicy({ version: 'custom' });
    const agents = await startDemo({
      database,
      model: 'openai/gpt-5-mini',
      policyFile: { path: '/etc/approval-policy.yaml', policy: custom },
      logger,
      runLeaseMs: 60_000,
    });
    expect(agents).toMatchObject({ policy: custom, policySource: '/etc/approval-policy.yaml', modelLabel: 'openai/gpt-5-mini' });
    const record = await demoDb(database.db).selectFrom('demo_records').select('deleted_at').where('id', '=', 'ghi-789').executeTakeFirstOrThrow();
    expect(record.deleted_at).toBeInstanceOf(Date);
  });

  it('behind the sandbox, refunds name finance and bob as approvers; in a real workspace they name nobody', async () => {
    const sandboxed = await startDemo({ database, model: undefined, logger, runLeaseMs: 60_000, sandbox: true });
    expect(sandboxed.policy).toBe(sandboxDemoPolicy);
    expect(sandboxed.policy.tools.issue_refund?.approvers).toEqual(['S0FINANCE', 'U0BOB']);
    expect(sandboxed.policy.tools.issue_refund?.allowSelfApproval).toBe(false);
    expect(demoPolicy.tools.issue_refund?.approvers).toEqual([]);
    expect(sandboxed.policy.version).not.toBe(demoPolicy.version);
  });
});
