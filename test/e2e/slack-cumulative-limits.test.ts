/**
 * A requester who splits a refund into small ones, over the real Slack front end (Bolt's HTTP
 * receiver, signed requests), the Slack simulator and the database: the small refunds run without
 * approval until their day's total goes over the policy's limit; that request's card asks for two
 * approvals and says why, and only a second approver lets it run.
 */
import { expect, it } from 'vitest';
import { z } from 'zod';
import { sql } from 'kysely';
import type { LanguageModelV3CallOptions } from '@ai-sdk/provider';
import { Agent } from '../../src/agent/agent.js';
import { createTool } from '../../src/agent/tool.js';
import { definePolicy } from '../../src/approvals/define-policy.js';
import { ACTION_IDS, CALLBACK_IDS } from '../../src/slack/kit/action-ids.js';
import type { PolicyInput } from '../../src/approvals/policy-schema.js';
import { viewSubmissionPayload } from '../../src/simulator/index.js';
import { describeOnOneBackend } from '../helpers/needs.js';
import { scriptedModel, type ScriptStep } from '../helpers/scripted-model.js';
import {
  blocksOf,
  cardActions,
  clickButton,
  expectCleanSlackOutput,
  mention,
  slackHarness,
  startBot,
  textOf,
  waitForCard,
  waitForEphemeral,
  waitForText,
  waitForUpdate,
  type PostedCard,
} from '../helpers/slack-bot.js';
import { ALICE, BOB, CHANNEL, REQUESTER } from '../helpers/test-workspace.js';

/** Refunds the amount named in the user's message ("refund 40000"), then says what it did. */
function refundStep(call: LanguageModelV3CallOptions): ScriptStep {
  const last = call.prompt[call.prompt.length - 1];
  if (last?.role === 'tool') return { text: 'Refund issued.' };
  const text = JSON.stringify(last?.content ?? '');
  const amountCents = Number(/refund (\d+)/.exec(text)?.[1] ?? 0);
  return { toolCalls: [{ toolName: 'issue_refund', args: { amountCents } }] };
}

describeOnOneBackend('cumulative limits over Slack on %s', (backend) => {
  const h = slackHarness(backend);

  /** A bot whose agent refunds what the message names (refundStep) under `policy`; what ran is in `refunded`. */
  async function bootRefunds(policy: PolicyInput) {
    await sql`DELETE FROM limit_usage`.execute(h.database.db);
    const refunded: number[] = [];
    const issueRefund = createTool({
      id: 'issue_refund',
      description: 'Refund an amount in cents',
      inputSchema: z.object({ amountCents: z.number() }),
      execute: async ({ amountCents }: { amountCents: number }) => {
        refunded.push(amountCents);
        return { refunded: amountCents };
      },
    });
    h.bot = await startBot({
      fake: h.fake,
      db: h.database.db,
      makeAgent: (deps) =>
        new Agent({ id: 'billing', instructions: 'test', model: scriptedModel([refundStep]), tools: { issue_refund: issueRefund }, storage: h.database, policy: definePolicy(policy), ...deps }),
    });
    return { bot: h.bot, refunded };
  }

  /** Clicks Edit on `card` as `user`, submits `amountCents`, and returns the submission's HTTP answer. */
  async function editAmount(card: PostedCard, user: string, amountCents: number) {
    const before = h.fake.callsTo('views.open').length;
    await clickButton(h.bot!, card, user, ACTION_IDS.edit);
    await h.fake.waitFor((c) => c.method === 'views.open' && h.fake.callsTo('views.open').length > before);
    const view = h.fake.callsTo('views.open').at(-1)!.args.view as { private_metadata: string };
    return h.bot!.send.interaction(
      viewSubmissionPayload({
        user,
        callbackId: CALLBACK_IDS.editModal,
        privateMetadata: view.private_metadata,
        stateValues: { f0: { value: { type: 'number_input', value: String(amountCents) } } },
      }),
    );
  }

  const buttonsOf = (blocks: PostedCard['blocks']) => (cardActions(blocks, 'approval')?.elements ?? []) as Array<Record<string, any>>;

  it('small refunds run until the day total goes over; that card needs 2 approvals and says why', async () => {
    const { bot, refunded } = await bootRefunds({
      tools: {
        issue_refund: {
          approvers: [ALICE, BOB],
          limits: [{ sum: 'amountCents', by: 'requester', over: '24h', above: 100000, then: { quorum: 2 } }],
        },
      },
    });
    for (const amount of [40000, 45000]) {
      const thread = await mention(bot, { user: REQUESTER, channel: CHANNEL, text: `refund ${amount}` });
      await waitForText(h.fake, thread, 'Refund issued.');
    }
    expect(refunded).toEqual([40000, 45000]);
    expect(h.fake.calls.some((c) => c.method === 'chat.postMessage' && textOf(c).includes('Approval needed'))).toBe(false);

    // Another requester's refunds have a total of their own.
    const other = await mention(bot, { user: BOB, channel: CHANNEL, text: 'refund 90000' });
    await waitForText(h.fake, other, 'Refund issued.');

    const thread = await mention(bot, { user: REQUESTER, channel: CHANNEL, text: 'refund 50000' });
    const card = await waitForCard(h.fake, thread, 'approval');
    const text = textOf(card.call);
    expect(text).toContain('*Quorum:* 2 approvals');
    expect(text).toContain(`*Over the limit:* $1,350.00 of \`issue_refund\` by <@${REQUESTER}> in the last 24h exceeds $1,000.00 → 2 approvals`);
    expect(refunded).toEqual([40000, 45000, 90000]);

    const audit = await sql<{ detail: unknown }>`
      SELECT detail FROM audit_events WHERE event = 'requested' AND tool_name = 'issue_refund' ORDER BY id DESC LIMIT 1`.execute(h.database.db);
    expect(audit.rows[0]!.detail).toMatchObject({ limits: [{ sum: 'amountCents', requester: REQUESTER, total: 135000, above: 100000 }] });

    await clickButton(bot, card, ALICE, ACTION_IDS.approve);
    const vote = await waitForUpdate(h.fake, card, '1 of 2 approvals');
    expect(textOf(vote)).toContain('*Over the limit:*');
    expect(refunded).toHaveLength(3);
    await clickButton(bot, card, BOB, ACTION_IDS.approve);
    await waitForUpdate(h.fake, card, 'Approved by');
    await waitForText(h.fake, thread, 'Refund issued.');
    expect(refunded).toEqual([40000, 45000, 90000, 50000]);
    expectCleanSlackOutput(h.fake);
  });

  it('an approver edits a refund past the limit: the edited request is counted with the edited amount and needs 2 approvals', async () => {
    const { bot, refunded } = await bootRefunds({
      tools: {
        issue_refund: {
          requireApproval: true,
          approvers: [ALICE, BOB],
          limits: [{ sum: 'amountCents', by: 'requester', over: '24h', above: 100000, then: { quorum: 2 } }],
        },
      },
    });
    const thread = await mention(bot, { user: REQUESTER, channel: CHANNEL, text: 'refund 50000' });
    const card = await waitForCard(h.fake, thread, 'approval');
    expect(textOf(card.call)).toContain('*Quorum:* 1 approval');
    expect(textOf(card.call)).not.toContain('Over the limit');

    // $5,000.00 instead of $500.00: the window holds $5,000.00 (the $500.00 replaced, not added to).
    expect((await editAmount(card, ALICE, 500000)).status).toBe(200);
    const redrawn = await waitForUpdate(h.fake, card, '1 of 2 approvals');
    const text = textOf(redrawn);
    expect(text).toContain('*Quorum:* 2 approvals');
    expect(text).toContain(`*Over the limit:* $5,000.00 of \`issue_refund\` by <@${REQUESTER}> in the last 24h exceeds $1,000.00 → 2 approvals`);
    expect(text).toContain(`Edited by <@${ALICE}>`);
    await bot.slack.idle();
    expect(refunded).toEqual([]);

    const edited = await sql<{ detail: Record<string, unknown> }>`
      SELECT detail FROM audit_events WHERE event = 'edited' AND tool_name = 'issue_refund' ORDER BY id DESC LIMIT 1`.execute(h.database.db);
    expect(edited.rows[0]!.detail).toMatchObject({ limits: [{ sum: 'amountCents', requester: REQUESTER, total: 500000, above: 100000 }] });
    const counter = await sql<{ total: number }>`
      SELECT (SELECT sum(a) FROM unnest(amounts) a) AS total FROM limit_usage WHERE tool_key = 'issue_refund' AND subject = ${REQUESTER}`.execute(h.database.db);
    expect(Number(counter.rows[0]!.total)).toBe(500000);

    const editedCard = { ...card, call: redrawn, blocks: blocksOf(redrawn), actionId: Number(String(cardActions(blocksOf(redrawn), 'approval')!.block_id).split(':')[1]) };
    await clickButton(bot, editedCard, BOB, ACTION_IDS.approve);
    await waitForText(h.fake, thread, 'Refund issued.');
    expect(refunded).toEqual([500000]);
  });

  it('a limit whose then says risk: high puts the confirm dialog on Approve of a request over it', async () => {
    const { bot } = await bootRefunds({
      tools: {
        issue_refund: {
          requireApproval: true,
          approvers: [ALICE, BOB],
          limits: [{ sum: 'amountCents', by: 'requester', over: '24h', above: 100000, then: { risk: 'high' } }],
        },
      },
    });
    const under = await waitForCard(h.fake, await mention(bot, { user: REQUESTER, channel: CHANNEL, text: 'refund 60000' }), 'approval');
    expect(buttonsOf(under.blocks)[0]).toMatchObject({ action_id: ACTION_IDS.approve });
    expect(buttonsOf(under.blocks)[0]!.confirm).toBeUndefined();
    expect(textOf(under.call)).not.toContain('High-risk action');

    const over = await waitForCard(h.fake, await mention(bot, { user: REQUESTER, channel: CHANNEL, text: 'refund 60001' }), 'approval');
    expect(textOf(over.call)).toContain('*Over the limit:*');
    expect(textOf(over.call)).toContain('*High-risk action.*');
    expect(buttonsOf(over.blocks)[0]).toMatchObject({ action_id: ACTION_IDS.approve, confirm: { title: { text: 'Approve a high-risk action?' } } });
  });

  it('a limit whose then says allowEdit: false leaves a request over it without Edit, and refuses an edit through the API', async () => {
    const { bot, refunded } = await bootRefunds({
      tools: {
        issue_refund: {
          requireApproval: true,
          approvers: [ALICE, BOB],
          limits: [{ sum: 'amountCents', by: 'requester', over: '24h', above: 100000, then: { allowEdit: false } }],
        },
      },
    });
    const under = await waitForCard(h.fake, await mention(bot, { user: REQUESTER, channel: CHANNEL, text: 'refund 60000' }), 'approval');
    expect(buttonsOf(under.blocks).map((b) => b.action_id)).toContain(ACTION_IDS.edit);

    const thread = await mention(bot, { user: REQUESTER, channel: CHANNEL, text: 'refund 60001' });
    const over = await waitForCard(h.fake, thread, 'approval');
    expect(buttonsOf(over.blocks).map((b) => b.action_id)).toEqual([ACTION_IDS.approve, ACTION_IDS.decline, ACTION_IDS.showArguments]);
    // A forged Edit click opens nothing.
    const opened = h.fake.callsTo('views.open').length;
    await clickButton(bot, over, ALICE, ACTION_IDS.edit, { value: buttonsOf(over.blocks)[0]!.value });
    await waitForEphemeral(h.fake, ALICE, 'Nothing was changed');
    expect(h.fake.callsTo('views.open')).toHaveLength(opened);
    const outcome = await bot.agent.editToolCall({ actionId: over.actionId, actor: { userId: ALICE }, args: { amountCents: 1 } });
    expect(outcome).toMatchObject({ outcome: 'not-editable', why: 'edit-not-allowed' });
    expect(await bot.agent.findRequest(over.actionId)).toMatchObject({ status: 'pending', args: { amountCents: 60001 } });
    await bot.slack.idle();
    expect(refunded).toEqual([]);
  });
});
