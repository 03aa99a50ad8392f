import { expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../src/agent/agent.js';
import { createTool } from '../../src/agent/tool.js';
import { definePolicy } from '../../src/approvals/define-policy.js';
import type { PolicyInput } from '../../src/approvals/policy-schema.js';
import { ACTION_IDS, CALLBACK_IDS } from '../../src/slack/kit/action-ids.js';
import { listAuditEvents } from '../../src/db/audit.js';
import { describeOnOneBackend } from '../helpers/needs.js';
import { scriptedModel, type ScriptStep } from '../helpers/scripted-model.js';
import { blocksOf, buttonClick, clickButton, expectCleanSlackOutput, mention, slackHarness, startBot, textOf, waitForCard, waitForEphemeral, waitForText, waitForUpdate, type AgentDeps } from '../helpers/slack-bot.js';
import { blockLimitErrors, checkedView, viewSubmissionPayload } from '../../src/simulator/index.js';
import { CHANNEL, REQUESTER, ALICE, BOB } from '../helpers/test-workspace.js';

const REFUND_ARGS = { orderId: '1042', amountCents: 150050, currency: 'USD', express: false };

function refundTool(options: { describe?: boolean } = {}) {
  const refunds: unknown[] = [];
  const tool = createTool({
    id: 'issue_refund',
    description: 'Refund an order',
    inputSchema: z.object({
      orderId: z.string().describe('The order id, e.g. "1042"'),
      amountCents: z.number().int().describe('The amount to refund in cents'),
      currency: z.enum(['USD', 'EUR']),
      express: z.boolean(),
    }),
    ...(options.describe
      ? {
          describe: ({ orderId, amountCents }: { orderId: string; amountCents: number }) => ({
            title: `Refund ${(amountCents / 100).toFixed(2)} on order ${orderId}`,
            fields: [{ label: 'Order', value: orderId }],
          }),
        }
      : {}),
    execute: async (input: { orderId: string; amountCents: number; currency: 'USD' | 'EUR'; express: boolean }) => {
      refunds.push(input);
      return { refunded: true };
    },
  });
  return { tool, refunds };
}

describeOnOneBackend('readable approval cards end to end on %s', (backend) => {
  const h = slackHarness(backend);

  async function boot(steps: ScriptStep[], policy: PolicyInput, tool = refundTool()) {
    let agent!: Agent;
    h.bot = await startBot({
      fake: h.fake,
      db: h.database.db,
      makeAgent: (deps: AgentDeps) => {
        agent = new Agent({ id: 'ops', instructions: 'test', model: scriptedModel(steps), tools: { issue_refund: tool.tool }, storage: h.database, policy: definePolicy(policy), ...deps });
        return agent;
      },
    });
    return { b: h.bot, agent: () => agent, refunds: tool.refunds };
  }

  const refundSteps: ScriptStep[] = [{ toolCalls: [{ toolName: 'issue_refund', args: REFUND_ARGS }] }, { text: 'Refund issued.' }];

  it('a refund card reads $1,500.50, not 150050, with a title, fields and the fingerprint only in the context line', async () => {
    const { b } = await boot(refundSteps, { tools: { issue_refund: { requireApproval: true } } });
    const thread = await mention(b, { user: REQUESTER, channel: CHANNEL, text: 'refund order 1042' });
    const card = await waitForCard(h.fake, thread, 'approval');
    const text = textOf(card.call);
    expect(text).toContain('$1,500.50');
    expect(text).not.toContain('150050');
    expect(text).not.toContain('amountCents');
    expect(card.blocks[0]).toEqual({ type: 'header', text: { type: 'plain_text', text: 'Issue refund' } });
    expect(card.call.args.text).toContain('Approval needed: Issue refund');
    const fields = card.blocks.find((blk) => blk.type === 'section' && Array.isArray(blk.fields));
    expect(fields?.fields.map((f: { text: string }) => f.text)).toEqual(['*Order id*\n1042', '*Amount to refund*\n$1,500.50', '*Currency*\nUSD', '*Express*\nNo']);
    // The fingerprint is in the context line and nowhere else on the card.
    const fingerprintBlocks = card.blocks.filter((blk) => /Fingerprint `[0-9a-f]{12}`/.test(JSON.stringify(blk)));
    expect(fingerprintBlocks.map((blk) => blk.type)).toEqual(['context']);
    expect(blockLimitErrors(card.blocks)).toEqual([]);
  });

  it('uses the tool\'s own describe() for the header and the notification text', async () => {
    const { b } = await boot(refundSteps, { tools: { issue_refund: { requireApproval: true } } }, refundTool({ describe: true }));
    const thread = await mention(b, { user: REQUESTER, channel: CHANNEL, text: 'refund order 1042' });
    const card = await waitForCard(h.fake, thread, 'approval');
    expect(card.blocks[0]).toEqual({ type: 'header', text: { type: 'plain_text', text: 'Refund 1500.50 on order 1042' } });
    expect(card.call.args.text).toContain('Approval needed: Refund 1500.50 on order 1042');
    expect(textOf(card.call)).toContain('*Order*\n1042');
  });

  it('Show arguments opens a modal with the exact pending arguments, read from the request, for workspace members only', async () => {
    const { b } = await boot(refundSteps, { tools: { issue_refund: { requireApproval: true } } });
    const thread = await mention(b, { user: REQUESTER, channel: CHANNEL, text: 'refund order 1042' });
    const card = await waitForCard(h.fake, thread, 'approval');

    // A forged value naming another request is refused: the button must be that request's card's.
    const forged = buttonClick(card, BOB, ACTION_IDS.showArguments, { value: JSON.stringify({ a: card.actionId + 1000 }) });
    await b.send.interaction(forged.payload);
    await waitForEphemeral(h.fake, BOB, 'does not belong to a request');

    // Someone from another workspace (a shared channel) sees nothing.
    const outsider = buttonClick(card, BOB, ACTION_IDS.showArguments).payload as { user: { team_id: string }; team: { id: string } };
    outsider.user.team_id = 'T0OTHER';
    outsider.team.id = 'T0OTHER';
    await b.send.interaction(outsider);
    await waitForEphemeral(h.fake, BOB, 'Only members of this workspace');
    expect(h.fake.calls.filter((c) => c.method === 'views.open')).toEqual([]);

    await clickButton(b, card, BOB, ACTION_IDS.showArguments);
    const opened = await h.fake.waitFor('views.open');
    expect(opened.ok).toBe(true);
    const view = opened.args.view as { callback_id: string; blocks: Array<{ text?: { text: string } }>; submit?: unknown };
    expect(view.callback_id).toBe(CALLBACK_IDS.argumentsModal);
    expect(view.submit).toBeUndefined();
    const code = view.blocks.map((blk) => blk.text?.text ?? '').join('\n');
    const json = /```\n([\s\S]*?)\n```/.exec(code)?.[1];
    // Pretty-printed (two-space indent), and exactly what is pending (the store may order keys its own way).
    expect(json).toContain('\n  "orderId": "1042"');
    expect(JSON.parse(json!)).toEqual(REFUND_ARGS);
    expect(() => checkedView({ view }, 'modal')).not.toThrow();
    // Looking decides nothing.
    const row = await h.bot!.agent.findRequest(card.actionId);
    expect(row?.status).toBe('pending');
  });

  it('a high-risk card says so and its Approve asks to confirm in a danger dialog', async () => {
    const { b, refunds } = await boot(refundSteps, { tools: { issue_refund: { requireApproval: true, risk: 'high' } } });
    const thread = await mention(b, { user: REQUESTER, channel: CHANNEL, text: 'refund order 1042' });
    const card = await waitForCard(h.fake, thread, 'approval');
    expect(textOf(card.call)).toContain('High-risk action');
    const approve = card.blocks.find((blk) => blk.type === 'actions')!.elements.find((e: { action_id: string }) => e.action_id === ACTION_IDS.approve);
    expect(approve.confirm).toMatchObject({
      title: { type: 'plain_text' },
      text: { type: 'plain_text', text: expect.stringContaining('Issue refund') },
      confirm: { type: 'plain_text', text: 'Approve' },
      deny: { type: 'plain_text', text: 'Cancel' },
      style: 'danger',
    });
    // Slack sends the click once the dialog is confirmed; it then approves as any click does.
    await clickButton(b, card, ALICE, ACTION_IDS.approve);
    await waitForUpdate(h.fake, card, `Approved by <@${ALICE}>`);
    await waitForText(h.fake, thread, 'Refund issued.');
    expect(refunds).toEqual([REFUND_ARGS]);
  });

  it('requireReason: Approve opens the reason modal; a blank reason is sent back; the submission approves, and the reason is on the card and in the audit', async () => {
    const { b, refunds, agent } = await boot(refundSteps, { tools: { issue_refund: { requireApproval: true, requireReason: true } } });
    const thread = await mention(b, { user: REQUESTER, channel: CHANNEL, text: 'refund order 1042' });
    const card = await waitForCard(h.fake, thread, 'approval');
    const buttons = card.blocks.find((blk) => blk.type === 'actions')!.elements.map((e: { action_id: string }) => e.action_id);
    expect(buttons).toEqual([ACTION_IDS.approveWithReason, ACTION_IDS.edit, ACTION_IDS.decline, ACTION_IDS.showArguments]);

    await clickButton(b, card, ALICE, ACTION_IDS.approveWithReason);
    const opened = await h.fake.waitFor('views.open');
    const view = opened.args.view as { callback_id: string; private_metadata: string };
    expect(view.callback_id).toBe(CALLBACK_IDS.approveReasonModal);
    // The click alone decided nothing.
    expect((await agent().findRequest(card.actionId))?.status).toBe('pending');

    const blank = await b.send.interaction(
      viewSubmissionPayload({ user: ALICE, callbackId: CALLBACK_IDS.approveReasonModal, privateMetadata: view.private_metadata, stateValues: { reason: { reason: '   ' } } }),
    );
    expect(blank.status).toBe(200);
    expect(JSON.parse(blank.body)).toMatchObject({ response_action: 'errors', errors: { reason: expect.any(String) } });
    expect((await agent().findRequest(card.actionId))?.status).toBe('pending');

    const submitted = await b.send.interaction(
      viewSubmissionPayload({
        user: ALICE,
        callbackId: CALLBACK_IDS.approveReasonModal,
        privateMetadata: view.private_metadata,
        stateValues: { reason: { reason: 'Customer double-charged <!channel>, ticket 77' } },
      }),
    );
    expect(submitted.status).toBe(200);
    await waitForUpdate(h.fake, card, `Approved by <@${ALICE}>: Customer double-charged &lt;!channel&gt;, ticket 77`);
    await waitForText(h.fake, thread, 'Refund issued.');
    expect(refunds).toEqual([REFUND_ARGS]);
    const audit = await listAuditEvents(h.database.db, { runId: (await agent().findRequest(card.actionId))!.run_id });
    expect(audit.find((e) => e.event === 'approved')).toMatchObject({ actor: ALICE, detail: expect.objectContaining({ reason: 'Customer double-charged <!channel>, ticket 77' }) });
  });

  it('requireReason: an approval without a reason (API or a stale plain Approve button) is refused and audited; nothing runs', async () => {
    const { b, refunds, agent } = await boot(refundSteps, { tools: { issue_refund: { requireApproval: true, requireReason: true } } });
    const thread = await mention(b, { user: REQUESTER, channel: CHANNEL, text: 'refund order 1042' });
    const card = await waitForCard(h.fake, thread, 'approval');
    const row = (await agent().findRequest(card.actionId))!;

    const refused = await agent().decideToolCall({ actionId: card.actionId, actor: { userId: BOB }, decision: 'approve' });
    expect(refused).toMatchObject({ outcome: 'not-allowed', why: 'reason-required' });
    await expect(agent().approveToolCall({ runId: row.run_id, actor: { userId: BOB } })).rejects.toThrow(/reason/);

    // A plain Approve click (a card drawn before the policy asked for reasons) gets the reason form, not an approval.
    const approveValue = card.blocks.find((blk) => blk.type === 'actions')!.elements[0].value as string;
    await clickButton(b, card, ALICE, ACTION_IDS.approve, { value: approveValue });
    const opened = await h.fake.waitFor('views.open');
    expect((opened.args.view as { callback_id: string }).callback_id).toBe(CALLBACK_IDS.approveReasonModal);

    expect((await agent().findRequest(card.actionId))?.status).toBe('pending');
    const audit = await listAuditEvents(h.database.db, { runId: row.run_id });
    const refusals = audit.filter((e) => e.event === 'refused');
    expect(refusals.map((e) => [e.actor, (e.detail as { why?: string }).why])).toEqual([
      [BOB, 'reason-required'],
      [BOB, 'reason-required'],
      [ALICE, 'reason-required'],
    ]);
    expect(refunds).toEqual([]);
    expectCleanSlackOutput(h.fake);
    expect(blocksOf(card.call).length).toBeGreaterThan(0);
  });
});
