import { describe, expect, it } from 'vitest';
import { approvalCard } from '../../../../src/slack/card/approval-card.js';
import { blockLimitErrors } from '../../../../src/simulator/index.js';
import { approvalCardData } from '../../../helpers/slack/approval-card-data.js';
import { allText, INJECTION } from '../../../helpers/slack/block-text.js';

const DAY = 86_400_000;

describe('approval card: over a cumulative limit', () => {
  it('says why it asks more: total, whose, window, limit and what it takes', () => {
    const blocks = approvalCard(
      approvalCardData({ quorum: 2, overLimit: [{ sum: 'amountCents', requester: 'U0BOB', total: 135000, above: 100000, overMs: DAY }] }),
    );
    expect(allText(blocks)).toContain('*Over the limit:* $1,350.00 of `issue_refund` by <@U0BOB> in the last 24h exceeds $1,000.00 → 2 approvals');
    expect(blockLimitErrors(blocks)).toEqual([]);
  });

  it('a count for everyone reads as calls; a plain sum names its argument', () => {
    const count = allText(approvalCard(approvalCardData({ toolName: 'delete_record', overLimit: [{ total: 21, above: 20, overMs: 3_600_000 }] })));
    expect(count).toContain('*Over the limit:* 21 calls of `delete_record` by everyone in the last 1h exceeds 20 → approval required');
    const sum = allText(approvalCard(approvalCardData({ overLimit: [{ sum: 'rows', total: 1500, above: 1000, overMs: 90 * 60_000 }] })));
    expect(sum).toContain('1,500 of `issue_refund` `rows` by everyone in the last 90m exceeds 1,000');
  });

  it('a card without limit hits has no such line; stored strings cannot break out of the mrkdwn', () => {
    expect(allText(approvalCard(approvalCardData()))).not.toContain('Over the limit');
    const blocks = approvalCard(
      approvalCardData({ toolName: INJECTION, overLimit: [{ sum: INJECTION, requester: INJECTION, total: 2, above: 1, overMs: DAY }] }),
    );
    const line = allText(blocks).split('\n').find((l) => l.includes('Over the limit'))!;
    expect(line).not.toMatch(/<!channel>|<@U123>|<https:/);
    expect(blockLimitErrors(blocks)).toEqual([]);
  });
});
