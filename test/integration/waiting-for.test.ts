import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { definePolicy } from '../../src/approvals/define-policy.js';
import type { JsonValue } from '../../src/approvals/policy-types.js';
import type { PolicyInput } from '../../src/approvals/policy-schema.js';
import type { PendingAction } from '../../src/db/rows.js';
import { agentWith, countingTool } from '../helpers/agents.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { describeBackends } from '../helpers/needs.js';
import { scriptedModel } from '../helpers/scripted-model.js';

const USERS = ['U01', 'U02', 'U03'] as const;
const VIEWERS = [...USERS, 'U0NOBODY'];
/** S01 has U02; S0DOWN cannot be read. */
const GROUPS = ['S01', 'S0DOWN'] as const;
const resolveGroupMembers = async (group: string) => {
  if (group === 'S01') return ['U02'];
  throw new Error(`usergroups.users.list failed for ${group}`);
};

const HOUR = 3_600_000;
const sample = <T>(xs: readonly T[]) => fc.constantFrom(...xs);
const approverList = fc.subarray([...USERS, ...GROUPS]);
const escalation = fc.option(fc.record({ escalateAfter: fc.constant('1h'), escalateTo: fc.subarray([...USERS, 'S01'], { minLength: 1 }) }), { nil: undefined });

/** Settings a rule or a limit may change (both escalation fields or neither, as the schema wants). */
const overrides = fc
  .record(
    {
      approvers: approverList,
      allowSelfApproval: fc.boolean(),
      requireApproval: fc.boolean(),
      quorum: fc.integer({ min: 1, max: 2 }),
    },
    { requiredKeys: [] },
  )
  .chain((then) => escalation.map((e) => ({ ...then, ...(e ?? {}) })))
  .filter((then) => Object.keys(then).length > 0);

const ARG_PATHS = ['amount', 'meta.tier', 'list.0', 'list.01', 'odd key'] as const;
const VALUES: JsonValue[] = [0, 1, 100, 100.5, -1, 'big', 'gold', true, null, { a: 1 }, [1, 2]];
const condition = fc.oneof(
  fc.record({ arg: sample(ARG_PATHS), op: sample(['gt', 'gte', 'lt', 'lte'] as const), value: sample([0, 1, 100, 100.5, -1]) }),
  fc.record({ arg: sample(ARG_PATHS), op: sample(['eq', 'ne'] as const), value: sample(VALUES) }),
  fc.record({ arg: sample(ARG_PATHS), op: fc.constant('in' as const), value: fc.subarray([...VALUES]) }),
);

const entry = fc
  .record(
    {
      approvers: approverList,
      allowSelfApproval: fc.boolean(),
      requireApproval: fc.boolean(),
      rules: fc.array(fc.record({ when: condition, then: overrides.map(({ requireApproval: _r, ...t }) => t) }), { maxLength: 3 }),
      limits: fc.array(
        fc.record({ count: fc.constant(true as const), over: fc.constant('1h'), above: fc.constant(1), then: overrides.map(({ requireApproval: _r, ...t }) => t) }),
        { maxLength: 2 },
      ),
    },
    { requiredKeys: ['approvers'] },
  )
  .chain((e) => escalation.map((x) => ({ ...e, ...(x ?? {}) })));

const policyInput: fc.Arbitrary<PolicyInput> = fc.record({
  defaults: fc.record({ approvers: approverList, allowSelfApproval: fc.boolean() }),
  tools: fc.record({ t1: entry, t2: entry }, { requiredKeys: [] }),
});

const argValue = fc.oneof(sample(VALUES), fc.double({ noNaN: true, noDefaultInfinity: true, min: -200, max: 200 }));
const args = fc.record(
  {
    amount: argValue,
    meta: fc.oneof(fc.record({ tier: argValue }, { requiredKeys: [] }), fc.array(argValue, { maxLength: 2 }), argValue),
    list: fc.oneof(fc.array(argValue, { maxLength: 2 }), fc.record({ '0': argValue, '01': argValue }, { requiredKeys: [] })),
    'odd key': argValue,
  },
  { requiredKeys: [] },
);

const validHit = (limit: number) => ({ limit, count: true, total: 2, above: 1, overMs: HOUR });
const request = fc.record({
  toolName: sample(['t1', 't2', 'gone']),
  path: fc.constantFrom(['ops'], ['ops'], ['ops'], ['other']),
  args,
  requester: fc.option(sample(USERS), { nil: null }),
  version: sample(['current', 'current', 'old', null] as const),
  votes: fc.subarray([...USERS], { maxLength: 1 }),
  expires: sample(['none', 'later', 'later', 'past'] as const),
  ageMs: sample([1000, 2 * HOUR]),
  limitHits: fc.oneof(
    fc.constant(null),
    fc.constant([validHit(0)]),
    fc.constant([validHit(1)]),
    fc.constant([validHit(0), validHit(1)]),
    fc.constant([{ limit: 0 }]),
    fc.constant([{ limit: 1, count: true, total: 2, above: 1 }]),
    fc.constant([{ limit: '0', total: 2, above: 1, overMs: HOUR }]),
    fc.constant([null, 'x', [validHit(0)]]),
    fc.constant([validHit(7)]),
    fc.constant({ limit: 0 }),
  ),
});

type RequestCase = typeof request extends fc.Arbitrary<infer R> ? R : never;

describeBackends('what waits for a person (Agent.waitingFor) on %s', (backend) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(backend);
  });
  afterAll(async () => {
    await database?.close();
  });

  function agentFor(input: PolicyInput) {
    const { tool } = countingTool('t1');
    return agentWith({ model: scriptedModel([{ text: 'ok' }]), tools: { t1: tool, t2: tool }, storage: database, policy: definePolicy(input), resolveGroupMembers, botUserId: 'U0BOT' });
  }

  /** `rows` as the only requests on record, in one statement (the property writes a few thousand). */
  async function insert(rows: RequestCase[], version: string): Promise<PendingAction[]> {
    await sql`DELETE FROM pending_actions`.execute(database.db);
    const now = Date.now();
    const values = rows.map((r, i) => {
      const expires = r.expires === 'none' ? null : new Date(now + (r.expires === 'later' ? HOUR : -HOUR));
      return sql`(${`r${i}`}, ${`r${i}`}, 'c', ${r.toolName}, 'approval', ${JSON.stringify(r.args)}::jsonb, ${'f'.repeat(64)}, ${JSON.stringify(r.path)}::jsonb, 'pending',
                ${r.requester}, ${r.version === 'current' ? version : r.version}, ${JSON.stringify(r.votes.map((userId) => ({ userId, at: new Date(now).toISOString() })))}::jsonb,
                ${expires?.toISOString() ?? null}::timestamptz, ${new Date(now - r.ageMs).toISOString()}::timestamptz, ${r.limitHits === null ? null : JSON.stringify(r.limitHits)}::jsonb)`;
    });
    const { rows: stored } = await sql<PendingAction>`
      INSERT INTO pending_actions (run_id, root_run_id, tool_call_id, tool_name, kind, args, fingerprint, path, status, requester, policy_version, approvals, expires_at, created_at, limit_hits)
      VALUES ${sql.join(values)}
      RETURNING *
    `.execute(database.db);
    return stored.sort((x, y) => x.id - y.id);
  }

  /** Every page, walked with `next`. */
  async function allWaiting(agent: ReturnType<typeof agentFor>, userId: string, limit: number) {
    const seen: number[] = [];
    let after: number | undefined;
    let total = -1;
    for (let pages = 0; pages < 100; pages++) {
      const page = await agent.waitingFor({ userId }, { ...(after !== undefined ? { after } : {}), limit });
      expect(page.before).toBe(seen.length);
      if (total >= 0) expect(page.total).toBe(total);
      total = page.total;
      seen.push(...page.requests.map((r) => r.id));
      if (page.next === undefined) break;
      after = page.next;
    }
    return { ids: seen, total };
  }

  it('lists exactly the open requests mayDecide lets the viewer approve, minus their votes and expired ones, oldest first, counted exactly', async () => {
    await fc.assert(
      fc.asyncProperty(policyInput, fc.array(request, { minLength: 1, maxLength: 25 }), fc.integer({ min: 1, max: 7 }), async (input, rows, limit) => {
        let agent: ReturnType<typeof agentFor>;
        try {
          agent = agentFor(input);
        } catch {
          return; // a policy the schema refuses (e.g. an escalation as long as the expiry) is not this test's business
        }
        const version = agent.requirementOf({ tool_name: 't1', args: {}, path: ['ops'] }).policyVersion;
        const stored = await insert(rows, version);
        for (const userId of VIEWERS) {
          const expected: number[] = [];
          for (const row of stored) {
            if ((row.path ?? [])[0] !== 'ops') continue;
            if (row.expires_at && new Date(row.expires_at).getTime() <= Date.now()) continue;
            if (row.approvals.some((v) => v.userId === userId)) continue;
            if ((await agent.mayDecide(row, { userId }, 'approve')).allowed) expected.push(row.id);
          }
          const { ids, total } = await allWaiting(agent, userId, limit);
          expect({ userId, ids, total }).toEqual({ userId, ids: expected, total: expected.length });
        }
      }),
      { numRuns: 60 },
    );
  }, 300_000);

  it('reads rule conditions as the policy does: bounds, missing and null arguments, nested values, array indexes', async () => {
    const BOSS = 'U03';
    const rule = (when: Record<string, unknown>) => ({ when, then: { approvers: [BOSS] } });
    const agent = agentFor({
      tools: {
        t1: { requireApproval: true, approvers: ['U01'], rules: [rule({ arg: 'amount', op: 'gt', value: 100 })] },
        t2: {
          requireApproval: true,
          approvers: ['U01'],
          rules: [rule({ arg: 'meta.tier', op: 'ne', value: 'gold' }), rule({ arg: 'list.0', op: 'in', value: [{ a: 1 }, [1, 2]] }), rule({ arg: 'list.01', op: 'eq', value: null })],
        },
      },
    } as unknown as PolicyInput);
    const version = agent.requirementOf({ tool_name: 't1', args: {}, path: ['ops'] }).policyVersion;
    const cases: Array<[string, unknown]> = [
      ['t1', { amount: 100 }],
      ['t1', { amount: 100.0000001 }],
      ['t1', { amount: '150' }],
      ['t1', { amount: 1e21 }],
      ['t2', {}],
      ['t2', { meta: { tier: 'gold' } }],
      ['t2', { meta: { tier: null } }],
      ['t2', { meta: ['gold'] }],
      ['t2', { list: [{ a: 1 }] }],
      ['t2', { list: [[1, 2]] }],
      ['t2', { list: { '0': [2, 1] } }],
      ['t2', { list: { '01': null } }],
      ['t2', { list: [0, null] }],
    ];
    const rows = await insert(
      cases.map(([toolName, a]) => ({ toolName, path: ['ops'], args: a as Record<string, never>, requester: null, version: 'current', votes: [], expires: 'none', ageMs: 1000, limitHits: null })),
      version,
    );
    for (const userId of ['U01', BOSS]) {
      const expected: number[] = [];
      for (const row of rows) if ((await agent.mayDecide(row, { userId }, 'approve')).allowed) expected.push(row.id);
      expect((await allWaiting(agent, userId, 50)).ids).toEqual(expected);
    }
    // The boss gets what a rule sends him: 150 as a string is no number, and only the first list, a present null and a tier other than gold match.
    const bossCases = (await allWaiting(agent, BOSS, 50)).ids.map((id) => JSON.stringify(rows.find((r) => r.id === id)!.args));
    expect(bossCases).toEqual(['{"amount":100.0000001}', '{"amount":1e+21}', '{"meta":{"tier":null}}', '{"list":[{"a":1}]}', '{"list":[[1,2]]}', '{"list":{"01":null}}']);
  });

  it('refuses a page size or cursor out of bounds, and the bot waits for nothing', async () => {
    const agent = agentFor({ tools: { t1: { requireApproval: true } } });
    await expect(agent.waitingFor({ userId: 'U01' }, { limit: 0 })).rejects.toThrow(RangeError);
    await expect(agent.waitingFor({ userId: 'U01' }, { limit: 501 })).rejects.toThrow(RangeError);
    await expect(agent.waitingFor({ userId: 'U01' }, { limit: 10, after: -1 })).rejects.toThrow(RangeError);
    expect(await agent.waitingFor({ userId: 'U0BOT' }, { limit: 10 })).toEqual({ requests: [], total: 0, before: 0 });
  });

  it('lists only what mayDecide allows as each row is read: someone who left the approver group meanwhile sees none of its requests', async () => {
    // U02 is in S0LEAVING when the inbox asks which groups they are in, and out of it by the time each row is checked.
    let lookups = 0;
    const { tool } = countingTool('t1');
    const agent = agentWith({
      model: scriptedModel([{ text: 'ok' }]),
      tools: { t1: tool },
      storage: database,
      policy: definePolicy({ tools: { t1: { requireApproval: true, approvers: ['S0LEAVING'] } } }),
      resolveGroupMembers: async () => (lookups++ === 0 ? ['U02'] : []),
    });
    const version = agent.requirementOf({ tool_name: 't1', args: {}, path: ['ops'] }).policyVersion;
    const [row] = await insert([{ toolName: 't1', path: ['ops'], args: {}, requester: 'U01', version: 'current', votes: [], expires: 'later', ageMs: 1000, limitHits: null }], version);
    const page = await agent.waitingFor({ userId: 'U02' }, { limit: 10 });
    expect(lookups).toBeGreaterThan(1);
    expect(page.requests).toEqual([]);
    expect((await agent.mayDecide(row!, { userId: 'U02' }, 'approve')).allowed).toBe(false);
  });
});

describeBackends('an inbox flooded by requests for others, on %s', (backend) => {
  let database: TestDatabase;
  let agent: ReturnType<typeof agentWith>;
  let bobs: number;
  // Deletes above 1000 rows are Carol's to approve, the others Bob's: 600 big ones and 5,000 finished ones must not hide Bob's.
  const policy = definePolicy({
    tools: { delete_record: { requireApproval: true, approvers: ['U0BOB'], rules: [{ when: { arg: 'rows', op: 'gt', value: 1000 }, then: { approvers: ['U0CAROL'] } }] } },
  });
  beforeAll(async () => {
    database = await createTestDatabase(backend);
    const { tool } = countingTool('delete_record');
    agent = agentWith({ model: scriptedModel([{ text: 'ok' }]), tools: { delete_record: tool }, storage: database, policy });
    await sql`
      INSERT INTO pending_actions (run_id, root_run_id, tool_call_id, tool_name, kind, args, fingerprint, path, status, requester, decided_by, decided_at, policy_version, created_at)
      SELECT 'done' || g, 'done' || g, 'c', 'delete_record', 'approval', jsonb_build_object('rows', 5), repeat('a', 64), '["ops"]', 'approved', 'U0REQ', 'U0BOB', now(), ${policy.version}, now() - interval '2 days'
      FROM generate_series(1, 5000) g
    `.execute(database.db);
    await sql`
      INSERT INTO pending_actions (run_id, root_run_id, tool_call_id, tool_name, kind, args, fingerprint, path, status, requester, policy_version)
      SELECT 'big' || g, 'big' || g, 'c', 'delete_record', 'approval', jsonb_build_object('rows', 5000 + g), repeat('b', 64), '["ops"]', 'pending', 'U0REQ', ${policy.version}
      FROM generate_series(1, 600) g
    `.execute(database.db);
    const inserted = await sql<{ id: number }>`
      INSERT INTO pending_actions (run_id, root_run_id, tool_call_id, tool_name, kind, args, fingerprint, path, status, requester, policy_version)
      VALUES ('small', 'small', 'c', 'delete_record', 'approval', '{"rows": 3}', repeat('c', 64), '["ops"]', 'pending', 'U0REQ', ${policy.version})
      RETURNING id
    `.execute(database.db);
    bobs = inserted.rows[0]!.id;
    await sql`ANALYZE pending_actions`.execute(database.db);
  }, 120_000);
  afterAll(async () => {
    await database?.close();
  });

  it('Bob sees the one request waiting for him, and Carol all 600 of hers, counted exactly and paged oldest first', async () => {
    const bob = await agent.waitingFor({ userId: 'U0BOB' }, { limit: 35 });
    expect({ ids: bob.requests.map((r) => r.id), total: bob.total, next: bob.next }).toEqual({ ids: [bobs], total: 1, next: undefined });
    const first = await agent.waitingFor({ userId: 'U0CAROL' }, { limit: 35 });
    expect(first.total).toBe(600);
    expect(first.requests).toHaveLength(35);
    const ids = [...first.requests.map((r) => r.id)];
    let next = first.next;
    while (next !== undefined) {
      const page = await agent.waitingFor({ userId: 'U0CAROL' }, { after: next, limit: 35 });
      expect(page.before).toBe(ids.length);
      ids.push(...page.requests.map((r) => r.id));
      next = page.next;
    }
    expect(ids).toHaveLength(600);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(ids).not.toContain(bobs);
    expect((await agent.waitingFor({ userId: 'U0NOBODY' }, { limit: 35 })).total).toBe(0);
  });
});
