import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { definePolicy } from '../../src/approvals/define-policy.js';
import type { PolicyInput } from '../../src/approvals/policy-schema.js';
import { askUserTool } from '../../src/agent/ask-user.js';
import { OutsideWorkspaceError, ToolCallNotPendingError } from '../../src/agent/errors.js';
import { agentWith, countingTool } from '../helpers/agents.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { describeBackends } from '../helpers/needs.js';
import { scriptedModel, type ScriptStep } from '../helpers/scripted-model.js';

const HOME = 'T0HOME';
const member = (userId: string) => ({ userId, teamId: HOME });
const outsider = (userId: string) => ({ userId, teamId: 'T0ELSEWHERE' });

describeBackends('the workspace rule in the runtime on %s', (backend) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(backend);
  });
  afterAll(async () => {
    await database?.close();
  });

  async function paused(policy: PolicyInput = {}, steps?: ScriptStep[], workspace: { teamId: string; enterpriseId?: string } = { teamId: HOME }) {
    const { tool, calls } = countingTool('delete_record', { requireApproval: true });
    const model = scriptedModel(steps ?? [{ toolCalls: [{ toolName: 'delete_record', args: { id: 'w1' } }] }, { text: 'Deleted.' }]);
    const agent = agentWith({
      model,
      tools: { delete_record: tool, ask_user: askUserTool },
      storage: database,
      policy: definePolicy({ ...policy, tools: { delete_record: { requireApproval: true, approvers: [], rememberFor: '1h' }, ...policy.tools } }),
    });
    agent.serveWorkspace(workspace);
    const stream = await agent.stream('go', { requester: 'U0REQ', requesterTeamId: HOME });
    const pending = await stream.suspendPayload;
    const actionId = (await agent.latestApprovalId(stream.runId, pending!.toolCallId)) ?? 0;
    return { agent, calls, runId: stream.runId, toolCallId: pending!.toolCallId, actionId };
  }

  async function refusedWhy(runId: string): Promise<string[]> {
    const rows = await sql<{ detail: { why: string } }>`SELECT detail FROM audit_events WHERE run_id = ${runId} AND event = 'refused' ORDER BY id`.execute(database.db);
    return rows.rows.map((r) => r.detail.why);
  }

  it('refuses every decision by someone of another team, under "anyone may approve", even the requester\'s own withdrawal', async () => {
    const { agent, calls, runId, actionId } = await paused();
    expect(await agent.decideToolCall({ actionId, actor: outsider('U0BOB'), decision: 'approve' })).toMatchObject({ outcome: 'not-allowed', why: 'outside-workspace' });
    expect(await agent.decideToolCall({ actionId, actor: outsider('U0REQ'), decision: 'decline' })).toMatchObject({ outcome: 'not-allowed', why: 'outside-workspace' });
    expect(await agent.editToolCall({ actionId, actor: outsider('U0BOB'), args: { id: 'other' } })).toMatchObject({ outcome: 'not-allowed', why: 'outside-workspace' });
    expect(await agent.decideToolCall({ actionId, actor: { userId: 'U0BOB', teamId: '' }, decision: 'approve' })).toMatchObject({ outcome: 'not-allowed', why: 'outside-workspace' });
    await expect(agent.approveToolCall({ runId, actor: outsider('U0BOB') })).rejects.toThrow(ToolCallNotPendingError);
    expect(await agent.mayDecide((await agent.findRequest(actionId))!, outsider('U0BOB'), 'approve')).toMatchObject({ allowed: false, why: 'outside-workspace' });
    // Nothing of it shows either: not in their inbox, not to them as the requester.
    expect(await agent.waitingFor(outsider('U0BOB'), { limit: 50 })).toEqual({ requests: [], total: 0, before: 0 });
    expect((await agent.waitingFor(member('U0BOB'), { limit: 50 })).requests.map((r) => r.id)).toContain(actionId);
    expect(await agent.maySee((await agent.findRequest(actionId))!, outsider('U0REQ'))).toBe(false);
    expect(await agent.maySee((await agent.findRequest(actionId))!, member('U0REQ'))).toBe(true);
    expect(await refusedWhy(runId)).toEqual(['outside-workspace', 'outside-workspace', 'outside-workspace', 'outside-workspace', 'outside-workspace']);
    expect(calls).toEqual([]);
    expect(await agent.findRequest(actionId)).toMatchObject({ status: 'pending', approvals: [] });

    // A member decides; code that names no team vouches for its actor.
    const approved = await agent.decideToolCall({ actionId, actor: member('U0BOB'), decision: 'approve' });
    expect(approved.outcome).toBe('approved');
    await (approved as { stream: { result: Promise<unknown> } }).stream.result;
    expect(calls).toEqual([{ id: 'w1' }]);
    const other = await paused();
    expect((await agent.decideToolCall({ actionId: other.actionId, actor: { userId: 'U0BOB' }, decision: 'approve' })).outcome).toBe('approved');
  });

  it('refuses answers and revokes from another team, and lists no remembered approval for them', async () => {
    const question = await paused({}, [{ toolCalls: [{ toolName: 'ask_user', args: { question: 'Which?', options: [{ label: 'a' }] } }] }, { text: 'ok' }]);
    await expect(question.agent.resumeStream('a', { runId: question.runId, actor: outsider('U0REQ') })).rejects.toThrow(/members of this workspace/);
    // A question is no approval: its request is found among the run's waiting calls.
    const { runs } = await question.agent.listSuspendedRuns();
    const asked = runs.find((r) => r.runId === question.runId)?.toolCalls.find((c) => c.toolCallId === question.toolCallId);
    const request = asked && (await question.agent.findRequest(asked.actionId));
    expect(request?.tool_name).toBe('ask_user');
    expect(await question.agent.mayAnswer(request!, outsider('U0REQ'))).toMatchObject({ allowed: false, why: 'outside-workspace' });
    expect(await question.agent.mayAnswer(request!, member('U0REQ'))).toMatchObject({ allowed: true });

    const { agent, actionId } = await paused();
    const approved = await agent.decideToolCall({ actionId, actor: member('U0BOB'), decision: 'approve', remember: true });
    await (approved as { stream: { result: Promise<unknown> } }).stream.result;
    const [grant] = (await agent.listRememberedGrants(member('U0REQ'))).filter((g) => g.action_id === actionId);
    expect(grant).toBeDefined();
    expect(await agent.listRememberedGrants(outsider('U0REQ'))).toEqual([]);
    expect(await agent.revokeRememberedGrant(grant!.id, outsider('U0REQ'))).toMatchObject({ outcome: 'not-allowed' });
    expect((await agent.revokeRememberedGrant(grant!.id, member('U0REQ'))).outcome).toBe('revoked');
  });

  it('starts no run for a requester of another team: OutsideWorkspaceError, audited, nothing on record', async () => {
    const { agent } = await paused();
    const error = await agent.stream('delete everything', { requester: 'U0MAL', requesterTeamId: 'T0ELSEWHERE' }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(OutsideWorkspaceError);
    const { runId } = (error as OutsideWorkspaceError).details as { runId: string };
    const audit = await sql<{ event: string; actor: string; detail: Record<string, unknown> }>`SELECT event, actor, detail FROM audit_events WHERE run_id = ${runId}`.execute(database.db);
    expect(audit.rows).toEqual([{ event: 'refused', actor: 'U0MAL', detail: { decision: 'run', why: 'outside-workspace', teamId: 'T0ELSEWHERE' } }]);
    const snapshots = await sql`SELECT 1 FROM run_snapshots WHERE run_id = ${runId}`.execute(database.db);
    expect(snapshots.rows).toEqual([]);
  });

  it('keeps the rule when the agent is attached again (a host giving it storage after the front end started)', async () => {
    const { agent, actionId } = await paused();
    agent.attach({ storage: database });
    expect(await agent.decideToolCall({ actionId, actor: outsider('U0BOB'), decision: 'approve' })).toMatchObject({ outcome: 'not-allowed', why: 'outside-workspace' });
  });

  it('admits the teams the policy trusts and, on Enterprise Grid, members of the organisation', async () => {
    const trusted = await paused({ allowExternalTeams: ['T0PARTNER'] });
    expect((await trusted.agent.decideToolCall({ actionId: trusted.actionId, actor: { userId: 'U0P', teamId: 'T0PARTNER' }, decision: 'approve' })).outcome).toBe('approved');

    const grid = await paused({}, undefined, { teamId: HOME, enterpriseId: 'E0ORG' });
    // Slack names an organisation's member by the organisation's id, or a command says where it was typed.
    expect(await grid.agent.mayDecide((await grid.agent.findRequest(grid.actionId))!, { userId: 'U0G', teamId: 'E0ORG' }, 'approve')).toEqual({ allowed: true });
    expect(await grid.agent.mayDecide((await grid.agent.findRequest(grid.actionId))!, { userId: 'U0G', teamId: 'T0SIBLING', enterpriseId: 'E0ORG' }, 'approve')).toEqual({ allowed: true });
    expect(await grid.agent.mayDecide((await grid.agent.findRequest(grid.actionId))!, { userId: 'U0G', teamId: 'T0SIBLING' }, 'approve')).toMatchObject({ allowed: false, why: 'outside-workspace' });
    expect(await grid.agent.mayDecide((await grid.agent.findRequest(grid.actionId))!, { userId: 'U0G', teamId: 'E0OTHER', enterpriseId: 'E0OTHER' }, 'approve')).toMatchObject({ allowed: false });
  });
});
