/**
 * Edit, then approve, through the sandbox's UI routes against the real bot (no browser): bob
 * edits alice's refund down in the modal the Edit button opens, the card says what changed, and
 * the refund is made once, for the edited amount. An edit up that another approver declines is
 * answered with the edited amount, never the one first asked for.
 */
import { describe, expect, it } from 'vitest';
import { cardBlock, shownText, useStack } from '../helpers/sandbox/stack.js';

const s = useStack();

const GENERAL = 'C0GENERAL';

describe('edit then approve in the sandbox', () => {
  it('bob lowers alice’s refund in the Edit modal; the edited amount is refunded once', async () => {
    const posted = await s.ui('/ui/message', { user: 'U0ALICE', channel: GENERAL, text: '@approvals refund order 1042 for $25' });
    const threadTs: string = posted.json.ts;
    const card = await s.until(() => s.thread(GENERAL, threadTs).find((m) => m.bot_id && cardBlock(m, 'approval')));
    const block = cardBlock(card, 'approval')!;
    expect(block.elements.map((e) => e.action_id)).toEqual(['approval.approve', 'approval.edit', 'approval.decline', 'approval.show_arguments']);

    await s.ui('/ui/action', { user: 'U0BOB', channel: GENERAL, messageTs: card.ts, blockId: block.block_id, actionId: 'approval.edit' });
    const view = await s.until(() => s.run.sandbox.store.views('U0BOB')[0]);
    const inputs = (view.blocks as any[]).filter((b) => b.type === 'input');
    const amount = inputs.find((b) => b.label.text === 'Amount to refund (cents)');
    expect(amount.element).toMatchObject({ type: 'number_input', initial_value: '2500' });

    const refused = await s.ui('/ui/view-submission', { user: 'U0BOB', viewId: view.id, values: { [amount.block_id]: { [amount.element.action_id]: '0' } } });
    expect(refused.json).toMatchObject({ ok: false, outcome: 'kept', errors: { [amount.block_id]: 'amountCents must be more than zero' } });

    const submitted = await s.ui('/ui/view-submission', { user: 'U0BOB', viewId: view.id, values: { [amount.block_id]: { [amount.element.action_id]: '1500' } } });
    expect(submitted.json).toMatchObject({ ok: true, outcome: 'closed' });
    const redrawn = await s.until(() => s.thread(GENERAL, threadTs).find((m) => m.ts === card.ts && /Approved by <@U0BOB>/.test(shownText(m))));
    expect(shownText(redrawn)).toContain('Edited by <@U0BOB>: Amount to refund $25.00 → $15.00');
    const answer = await s.until(() => s.thread(GENERAL, threadTs).find((m) => m.bot_id && m.ts !== card.ts && /\$15\.00/.test(shownText(m))));
    expect(shownText(answer)).toContain('An approver changed the arguments before approving');
    const rows = await s.demo.selectFrom('demo_refunds').selectAll().where('order_id', '=', '1042').execute();
    expect(rows.map((r) => r.amount_cents)).toEqual([1500]);
  });

  it('bob raises alice’s refund to $1,500 and carol declines it: the answer names the edited amount, who changed it and carol’s words', async () => {
    const posted = await s.ui('/ui/message', { user: 'U0ALICE', channel: GENERAL, text: '@approvals refund order 1042 for $25' });
    const threadTs: string = posted.json.ts;
    const card = await s.until(() => s.thread(GENERAL, threadTs).find((m) => m.bot_id && cardBlock(m, 'approval')));
    await s.ui('/ui/action', { user: 'U0BOB', channel: GENERAL, messageTs: card.ts, blockId: cardBlock(card, 'approval')!.block_id, actionId: 'approval.edit' });
    const view = await s.until(() => s.run.sandbox.store.views('U0BOB').at(-1));
    const amount = (view.blocks as any[]).find((b) => b.type === 'input' && b.label.text === 'Amount to refund (cents)');
    expect((await s.ui('/ui/view-submission', { user: 'U0BOB', viewId: view.id, values: { [amount.block_id]: { [amount.element.action_id]: '150000' } } })).json).toMatchObject({ ok: true });

    // Over $1,000 the edited request waits for two approvers; carol declines it with a reason.
    const edited = await s.until(() => s.thread(GENERAL, threadTs).find((m) => m.ts === card.ts && /Edited by <@U0BOB>/.test(shownText(m)) && cardBlock(m, 'approval')));
    const block = cardBlock(edited, 'approval')!;
    await s.ui('/ui/action', { user: 'U0CAROL', channel: GENERAL, messageTs: edited.ts, blockId: block.block_id, actionId: 'approval.decline' });
    const reasonView = await s.until(() => s.run.sandbox.store.views('U0CAROL').at(-1));
    const reason = (reasonView.blocks as any[]).find((b) => b.type === 'input');
    await s.ui('/ui/view-submission', { user: 'U0CAROL', viewId: reasonView.id, values: { [reason.block_id]: { [reason.element.action_id]: 'too much for one order' } } });

    const answer = await s.until(() => s.thread(GENERAL, threadTs).find((m) => m.bot_id && m.ts !== card.ts && /did not refund/.test(shownText(m))));
    // In words people read: names, not ids (a model's text is escaped, so a mention would show raw), money, not cents.
    expect(shownText(answer)).toContain('I did not refund $1,500.00 on order 1042: @carol declined it after @bob changed it (amount $25.00 → $1,500.00), saying "too much for one order".');
    expect(shownText(answer)).not.toMatch(/U0CAROL|U0BOB|amountCents|150000/);
    expect(await s.demo.selectFrom('demo_refunds').selectAll().where('amount_cents', '=', 150000).execute()).toEqual([]);
  });
});
