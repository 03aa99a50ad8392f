import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../../../src/agent/agent.js';
import { createTool } from '../../../../src/agent/tool.js';
import { requestOf } from '../../../../src/agent/request.js';
import { silentLogger } from '../../../../src/logger.js';
import { showCardUpdate } from '../../../../src/slack/card/show-card-update.js';
import type { SlackContext } from '../../../../src/slack/context.js';
import { CardLifecycle } from '../../../../src/slack/card/lifecycle.js';
import type { CardRow } from '../../../../src/slack/card/cards.js';
import { scriptedModel } from '../../../helpers/scripted-model.js';
import { allText } from '../../../helpers/slack/block-text.js';

const deleteRecord = createTool({
  id: 'delete_record',
  description: 'Deletes a record',
  inputSchema: z.object({ id: z.string() }),
  requireApproval: true,
  execute: async () => 'deleted',
});
// Storage is never touched here: rendering only reads the agent's policy.
const agent = new Agent({ id: 'ops', model: scriptedModel([{ text: 'hi' }]), tools: { deleteRecord }, storage: {} as never });

const approved = requestOf({
  id: 7,
  run_id: 'run-1',
  root_run_id: 'run-1',
  tool_call_id: 'call-1',
  tool_name: 'delete_record',
  kind: 'approval',
  args: { id: 'abc-123' },
  fingerprint: 'f'.repeat(64),
  suspend_payload: null,
  path: null,
  status: 'approved',
  requester: 'U0REQUESTER',
  policy_version: 'v1',
  quorum: 1,
  approvals: [{ userId: 'U0APPROVER', at: new Date().toISOString() }],
  expires_at: new Date(Date.now() + 3_600_000),
  decided_by: 'U0APPROVER',
  decided_at: new Date(),
  reason: null,
  resume_data: null,
  created_at: new Date(),
});
const card: CardRow = { action_id: 7, channel: 'C1', ts: '200.2', thread_ts: '100.1', kind: 'approval', drawn: 'pending:0' };

/** A context whose database refuses every use: a read shows up as a rejected showCardUpdate. */
function context(posting?: Promise<void>) {
  const updates: Array<{ channel: string; ts: string; text?: string; blocks?: unknown }> = [];
  const reads: string[] = [];
  const db = new Proxy({}, {
    get(_target, property) {
      reads.push(String(property));
      throw new Error('the database was read');
    },
  });
  const cards = new CardLifecycle();
  const inFlight = posting ? cards.startPosting([7], posting, posting) : undefined;
  const ctx = {
    agent,
    logger: silentLogger,
    slackDb: db,
    db,
    cards,
    client: { chat: { update: async (args: (typeof updates)[number]) => (updates.push(args), { ok: true }) } },
  } as unknown as SlackContext;
  return { ctx, updates, reads, inFlight };
}

describe('showCardUpdate', () => {
  it('draws a request this process just decided from the decided row, without reading it again, and leaves its mark to the caller', async () => {
    const { ctx, updates, reads } = context();
    const marks: Array<{ actionId: number; key: string }> = [];
    await expect(showCardUpdate(ctx, 7, { action: approved, card, marks })).resolves.toEqual(card);
    expect(reads).toEqual([]);
    expect(marks).toEqual([{ actionId: 7, key: 'approved:1' }]);
    expect(updates).toHaveLength(1);
    expect(updates[0]).toMatchObject({ channel: 'C1', ts: '200.2' });
    // Sent as the JSON text Slack's form encoding carries (see blocksAsJson).
    const blocks: unknown = JSON.parse(updates[0]!.blocks as unknown as string);
    expect(allText(blocks)).toContain('Approved by <@U0APPROVER>');
    expect(JSON.stringify(blocks)).not.toContain('"type":"button"');
  });

  it('reads the row when the card was still being posted, since the decided row may predate the card', async () => {
    let posted!: () => void;
    const done = new Promise<void>((r) => (posted = r));
    const { ctx, updates, reads, inFlight } = context(done);
    const updating = showCardUpdate(ctx, 7, { action: approved, card, marks: [] });
    await Promise.resolve();
    expect(inFlight!.redrawWaiting).toBe(true);
    posted();
    await expect(updating).rejects.toThrow('the database was read');
    expect(reads.length).toBeGreaterThan(0);
    expect(updates).toEqual([]);
  });

  it('reads the row when the caller has no decided row (a quorum vote, an expiry)', async () => {
    const { ctx, reads } = context();
    await expect(showCardUpdate(ctx, 7)).rejects.toThrow('the database was read');
    expect(reads.length).toBeGreaterThan(0);
  });
});
