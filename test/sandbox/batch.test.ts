/**
 * The demo's parallel calls behind the sandbox (no browser): "delete record X and record Y and
 * record Z" is three calls of one model step, shown on one batch card; Approve all deletes all
 * three, each once.
 */
import { describe, expect, it } from 'vitest';
import { ACTION_IDS } from '../../src/slack/kit/action-ids.js';
import { shownText, useStack } from '../helpers/sandbox/stack.js';

const s = useStack();

const GENERAL = 'C0GENERAL';

describe('a batch card in the sandbox', () => {
  it('three deletions asked at once: one card, Approve all, all three deleted once, the card shows every call decided', async () => {
    const posted = await s.ui('/ui/message', { user: 'U0ALICE', channel: GENERAL, text: '@approvals delete record abc-123 and record def-456 and record ghi-789' });
    expect(posted.json.ok).toBe(true);
    const threadTs: string = posted.json.ts;
    const card = await s.until(() => s.thread(GENERAL, threadTs).find((m) => m.bot_id && /3 actions need approval/.test(shownText(m))));
    const withButtons = () => s.thread(GENERAL, threadTs).filter((m) => (m.blocks ?? []).some((b: any) => b?.type === 'actions'));
    expect(withButtons()).toHaveLength(1);
    const all = (card.blocks as any[]).find((b) => String(b.block_id).startsWith('batch:'));
    const clicked = await s.ui('/ui/action', { user: 'U0ALICE', channel: GENERAL, messageTs: card.ts, blockId: all.block_id, actionId: ACTION_IDS.batchApproveAll });
    expect(clicked.json).toMatchObject({ ok: true, status: 200 });
    const decided = await s.until(() => s.thread(GENERAL, threadTs).find((m) => m.ts === card.ts && /All decided: the run continues/.test(shownText(m))));
    expect(shownText(decided).match(/Approved by <@U0ALICE>/g)).toHaveLength(3);
    await s.until(() => s.thread(GENERAL, threadTs).find((m) => m.bot_id && m.ts !== card.ts && /ghi-789/.test(shownText(m))));
    const rows = await s.demo.selectFrom('demo_records').select(['id', 'deleted_at']).where('id', 'in', ['abc-123', 'def-456', 'ghi-789']).execute();
    expect(rows.filter((r) => r.deleted_at !== null)).toHaveLength(3);
    expect(withButtons()).toHaveLength(0);
  });
});
