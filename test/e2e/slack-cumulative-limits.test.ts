/**
 * A requester who splits a refund into small ones, over the real Slack front end (Bolt's HTTP
 * receiver, signed requests), the Slack simulator and the database: the small refunds run without
 * approval until their day's total goes over the policy's limit; that request's card asks for two
 * approvals and says why, and only a second approver lets it run.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { sql } from 'kysely';
import type { LanguageModelV3CallOptions } from '@ai-sdk/provider';
import { Agent } from '../../src/agent/agent.js';
import { createTool } from '../../src/agent/tool.js';
import { definePolicy } from '../../src/approvals/define-policy.js';
import { ACTION_IDS } from '../../src/slack/blocks/action-ids.js';
import { backends } from '../helpers/db.js';
import { scriptedModel, type ScriptStep } from '../helpers/scripted-model.js';
import { clickButton, expectCleanSlackOutput, mention, slackHarness, startBot, textOf, waitForCard, waitForText, waitForUpdate } from '../helpers/slack-bot.js';
import { ALICE, BOB, CHANNEL, REQUESTER } from '../helpers/test-workspace.js';

/** Refunds the amount named in the user's message ("refund 40000"), then says what it did. */
function refundStep(call: LanguageModelV3CallOptions): ScriptStep {
  const last = call.prompt[call.prompt.length - 1];
  if (last?.role === 'tool') return { text: 'Refund issued.' };
  const text = JSON.stringify(last?.content ?? '');
  const amountCents = Number(/refund (\d+)/.exec(text)?.[1] ?? 0);
  return { toolCalls: [{ toolName: 'issue_refund', args: { amountCents } }] };
}

describe.each(backends)('cumulative limits over Slack on %s', (backend) => {
  const h = slackHarness(backend);

  it('small refunds run until the day total goes over; that card needs 2 approvals and says why', async () => {
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
    const policy = definePolicy({
      tools: {
        issue_refund: {
          approvers: [ALICE, BOB],
          limits: [{ sum: 'amountCents', by: 'requester', over: '24h', above: 100000, then: { quorum: 2 } }],
        },
      },
    });
    h.bot = await startBot({
      fake: h.fake,
      db: h.database.db,
      makeAgent: (deps) =>
        new Agent({ id: 'billing', instructions: 'test', model: scriptedModel([refundStep]), tools: { issue_refund: issueRefund }, storage: h.database, policy, ...deps }),
    });

    for (const amount of [40000, 45000]) {
      const thread = await mention(h.bot, { user: REQUESTER, channel: CHANNEL, text: `refund ${amount}` });
      await waitForText(h.fake, thread, 'Refund issued.');
    }
    expect(refunded).toEqual([40000, 45000]);
    expect(h.fake.calls.some((c) => c.method === 'chat.postMessage' && textOf(c).includes('Approval needed'))).toBe(false);

    // Another requester's refunds have a total of their own.
    const other = await mention(h.bot, { user: BOB, channel: CHANNEL, text: 'refund 90000' });
    await waitForText(h.fake, other, 'Refund issued.');

    const thread = await mention(h.bot, { user: REQUESTER, channel: CHANNEL, text: 'refund 50000' });
    const card = await waitForCard(h.fake, thread, 'approval');
    const text = textOf(card.call);
    expect(text).toContain('*Quorum:* 2 approvals');
    expect(text).toContain(`*Over the limit:* $1,350.00 of \`issue_refund\` by <@${REQUESTER}> in the last 24h exceeds $1,000.00 → 2 approvals`);
    expect(refunded).toEqual([40000, 45000, 90000]);

    const audit = await sql<{ detail: unknown }>`
      SELECT detail FROM audit_events WHERE event = 'requested' AND tool_name = 'issue_refund' ORDER BY id DESC LIMIT 1`.execute(h.database.db);
    expect(audit.rows[0]!.detail).toMatchObject({ limits: [{ sum: 'amountCents', requester: REQUESTER, total: 135000, above: 100000 }] });

    await clickButton(h.bot, card, ALICE, ACTION_IDS.approve);
    const vote = await waitForUpdate(h.fake, card, '1 of 2 approvals');
    expect(textOf(vote)).toContain('*Over the limit:*');
    expect(refunded).toHaveLength(3);
    await clickButton(h.bot, card, BOB, ACTION_IDS.approve);
    await waitForUpdate(h.fake, card, 'Approved by');
    await waitForText(h.fake, thread, 'Refund issued.');
    expect(refunded).toEqual([40000, 45000, 90000, 50000]);
    expectCleanSlackOutput(h.fake);
  });
});
