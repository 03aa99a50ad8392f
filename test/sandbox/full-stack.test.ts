import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { migratedDataDir } from '../helpers/migrated-data-dir.js';
import { cardBlock, shownText, startStack, useStack, type Stack } from '../helpers/sandbox/stack.js';
import { tempDir } from '../helpers/temp-dir.js';

const s = useStack();

const GENERAL = 'C0GENERAL';

/** Posts as `user`, then waits for the bot's card of `kind` in the new thread. */
async function ask(user: string, text: string, kind: 'approval' | 'question' | 'suspension', channel = GENERAL) {
  const posted = await s.ui('/ui/message', { user, channel, text });
  expect(posted.json.ok).toBe(true);
  const threadTs: string = posted.json.ts;
  const card = await s.until(() => s.thread(channel, threadTs).find((m) => m.bot_id && cardBlock(m, kind)));
  return { threadTs, card, block: cardBlock(card, kind)! };
}

describe('the real bot, unchanged, behind the sandbox', () => {
  it('deletes a record once the approval card is approved', async () => {
    const { threadTs, card, block } = await ask('U0ALICE', '@approvals delete record abc-123', 'approval');
    expect(shownText(card)).toContain('Delete record abc-123');
    const clicked = await s.ui('/ui/action', { user: 'U0ALICE', channel: GENERAL, messageTs: card.ts, blockId: block.block_id, actionId: 'approval.approve' });
    expect(clicked.json).toMatchObject({ ok: true, status: 200 });
    await s.until(() => s.thread(GENERAL, threadTs).find((m) => m.ts === card.ts && /Approved by/.test(shownText(m))));
    await s.until(() => s.thread(GENERAL, threadTs).find((m) => m.bot_id && m.ts !== card.ts && /abc-123/.test(shownText(m)) && !cardBlock(m, 'approval')));
    const record = await s.demo.selectFrom('demo_records').selectAll().where('id', '=', 'abc-123').executeTakeFirstOrThrow();
    expect(record.deleted_at).not.toBeNull();
  });

  it('refuses the requester’s own approval of a refund with an ephemeral, then takes bob’s', async () => {
    const { threadTs, card, block } = await ask('U0ALICE', '@approvals refund order 1042 for $25', 'approval');
    await s.ui('/ui/action', { user: 'U0ALICE', channel: GENERAL, messageTs: card.ts, blockId: block.block_id, actionId: 'approval.approve' });
    const refusal = await s.until(() => s.ephemerals('U0ALICE').find((e) => e.thread_ts === threadTs));
    expect(refusal.text.length).toBeGreaterThan(0);
    expect(s.ephemerals('U0BOB').some((e) => e.thread_ts === threadTs)).toBe(false);
    expect(cardBlock(s.run.sandbox.store.message(GENERAL, card.ts)!, 'approval')).toBeDefined();

    await s.ui('/ui/action', { user: 'U0BOB', channel: GENERAL, messageTs: card.ts, blockId: block.block_id, actionId: 'approval.approve' });
    await s.until(() => s.thread(GENERAL, threadTs).find((m) => m.ts === card.ts && /Approved by <@U0BOB>/.test(shownText(m))));
    await s.until(() => s.thread(GENERAL, threadTs).find((m) => m.bot_id && m.ts !== card.ts && /1042/.test(shownText(m)) && !cardBlock(m, 'approval')));
    const rows = await s.demo.selectFrom('demo_refunds').selectAll().where('order_id', '=', '1042').execute();
    expect(rows.map((r) => r.amount_cents)).toEqual([2500]);
  });

  it('answers a multi-select question with ticked checkboxes and Submit', async () => {
    const { threadTs, card, block } = await ask('U0BOB', '@approvals clean up records', 'question');
    const boxes = block.elements.find((e) => e.type === 'checkboxes');
    expect(boxes).toBeDefined();
    await s.ui('/ui/action', { user: 'U0BOB', channel: GENERAL, messageTs: card.ts, blockId: block.block_id, actionId: 'question.answer', selectedOptions: ['1', '2'] });
    await s.ui('/ui/action', { user: 'U0BOB', channel: GENERAL, messageTs: card.ts, blockId: block.block_id, actionId: 'question.submit' });
    await s.until(() => s.thread(GENERAL, threadTs).find((m) => m.ts === card.ts && /Answered .+ by/.test(shownText(m))));
    // The two deletions are parallel calls of one step: one batch card for both.
    const approvals = await s.until(() => {
      const cards = s.thread(GENERAL, threadTs).filter((m) => cardBlock(m, 'approval'));
      return cards.length >= 1 ? cards : undefined;
    });
    expect(approvals).toHaveLength(1);
    expect(shownText(approvals[0]!)).toMatch(/2 actions need approval[\s\S]*def-456[\s\S]*ghi-789/);
  });

  it('a production deploy waits for someone else’s approval, then is confirmed with the Yes button, without a form', async () => {
    const asked = await ask('U0CAROL', '@approvals deploy api 2.3 to production', 'approval');
    const threadTs = asked.threadTs;
    await s.ui('/ui/action', { user: 'U0CAROL', channel: GENERAL, messageTs: asked.card.ts, blockId: asked.block.block_id, actionId: 'approval.approve' });
    await s.until(() => s.ephemerals('U0CAROL').find((e) => e.thread_ts === threadTs));
    await s.ui('/ui/action', { user: 'U0BOB', channel: GENERAL, messageTs: asked.card.ts, blockId: asked.block.block_id, actionId: 'approval.approve' });
    const card = await s.until(() => s.thread(GENERAL, threadTs).find((m) => m.bot_id && cardBlock(m, 'suspension')));
    const block = cardBlock(card, 'suspension')!;
    expect(await s.demo.selectFrom('demo_deployments').selectAll().where('environment', '=', 'production').execute()).toEqual([]);
    expect(block.elements.map((e) => e.action_id)).toEqual(['suspension.yes', 'suspension.no']);
    await s.ui('/ui/action', { user: 'U0CAROL', channel: GENERAL, messageTs: card.ts, blockId: block.block_id, actionId: 'suspension.yes' });
    expect(s.run.sandbox.store.views('U0CAROL')).toEqual([]);
    await s.until(() => s.thread(GENERAL, threadTs).find((m) => m.ts === card.ts && /Answered \*Yes\* by/.test(shownText(m))));
    await s.until(() => s.thread(GENERAL, threadTs).find((m) => m.bot_id && /deploy|Deployed|production/i.test(shownText(m)) && m.ts !== card.ts && !cardBlock(m, 'suspension')));
    const deployments = await s.demo.selectFrom('demo_deployments').selectAll().where('environment', '=', 'production').execute();
    expect(deployments.map((d) => [d.service, d.version])).toContainEqual(['api', '2.3']);
  });

  it('answers in a DM without a mention', async () => {
    const posted = await s.ui('/ui/message', { user: 'U0ALICE', channel: 'D0ALICE', text: 'look up record def-456' });
    await s.until(() => s.run.sandbox.store.messages('D0ALICE').find((m) => m.bot_id && /def-456/.test(shownText(m))));
    expect(posted.json.ok).toBe(true);
    expect(s.run.sandbox.store.notices().filter((n) => n.level === 'error')).toEqual([]);
  });
});

describe('a restart of npm start', () => {
  it('keeps the sandbox’s messages, and a card posted before the restart still works after it', async () => {
    const dir = tempDir('sandbox-restart-');
    // PGlite on disk as an earlier start left it: what the restart keeps is the point, not initdb.
    const options = { dataDir: await migratedDataDir(join(dir, 'pglite')), stateFile: join(dir, 'sandbox.json') };
    try {
      let first: Stack | undefined = await startStack(options);
      const posted = await first.ui('/ui/message', { user: 'U0ALICE', channel: GENERAL, text: '@approvals delete record ghi-789' });
      const threadTs: string = posted.json.ts;
      const card = await first.until(() => first!.thread(GENERAL, threadTs).find((m) => cardBlock(m, 'approval')));
      await first.stop();
      first = undefined;

      const second = await startStack(options);
      try {
        const restored = second.run.sandbox.store.message(GENERAL, card.ts);
        expect(restored && cardBlock(restored, 'approval')).toBeDefined();
        await second.ui('/ui/action', { user: 'U0BOB', channel: GENERAL, messageTs: card.ts, blockId: cardBlock(restored!, 'approval')!.block_id, actionId: 'approval.approve' });
        await second.until(() => second.thread(GENERAL, threadTs).find((m) => m.bot_id && /Deleted record ghi-789/.test(shownText(m))));
        const newer = await second.ui('/ui/message', { user: 'U0ALICE', channel: GENERAL, text: 'after the restart' });
        expect(Number(newer.json.ts)).toBeGreaterThan(Number(card.ts));
      } finally {
        await second.stop();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
