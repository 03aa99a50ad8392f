import type { KnownBlock } from '@slack/types';
import { describe, expect, it } from 'vitest';
import type { SuspensionCardData } from '../../../src/slack/blocks/card-types.js';
import { suspensionCard } from '../../../src/slack/blocks/suspension-card.js';
import { blockLimitErrors } from '../../../src/simulator/index.js';
import { allText, expectNoInjection, expectWellFormed, INJECTION } from './block-text.js';

function data(over: Partial<SuspensionCardData> = {}): SuspensionCardData {
  return {
    actionId: 9,
    toolName: 'deploy_service',
    path: ['ops'],
    payload: { message: 'Which version should I deploy?', service: 'api', candidates: ['2.3.0', '2.3.1'] },
    respondable: true,
    autoResume: true,
    state: { kind: 'pending' },
    ...over,
  };
}

function expectValid(blocks: KnownBlock[]): void {
  expect(blockLimitErrors(blocks)).toEqual([]);
  expectNoInjection(blocks, ['U0RESUMER01']);
  expectWellFormed(blocks);
}

const actions = (blocks: KnownBlock[]) => blocks.filter((b) => b.type === 'actions');

describe('suspensionCard', () => {
  it('shows the message as text and the rest of the payload as JSON', () => {
    const blocks = suspensionCard(data());
    expectValid(blocks);
    expect(blocks[0]).toEqual({ type: 'header', text: { type: 'plain_text', text: 'Input needed: deploy_service' } });
    const t = allText(blocks);
    expect(t).toContain('Which version should I deploy?');
    expect(t).toContain('```\n' + JSON.stringify({ service: 'api', candidates: ['2.3.0', '2.3.1'] }, null, 2) + '\n```');
    expect(t).not.toContain('"message"');
  });

  it('shows only the message when that is all there is, and a string payload as a message', () => {
    expect(allText(suspensionCard(data({ payload: { message: 'Just this' } })))).not.toContain('```');
    expect(allText(suspensionCard(data({ payload: 'Plain <string>' })))).toContain('Plain &lt;string&gt;');
  });

  it('shows a payload without a string message as JSON', () => {
    const t = allText(suspensionCard(data({ payload: { message: 42, x: 1 } })));
    expect(t).toContain('"message": 42');
    expectValid(suspensionCard(data({ payload: undefined })));
    expectValid(suspensionCard(data({ payload: [1, 2] })));
  });

  it('shows the delegation path when there is one', () => {
    expect(allText(suspensionCard(data()))).not.toContain('Path');
    expect(allText(suspensionCard(data({ path: ['ops', 'deployer'] })))).toContain('*Path:* ops → deployer → deploy_service');
  });

  it('offers Respond and a thread reply when both work', () => {
    const blocks = suspensionCard(data());
    expect(actions(blocks)).toEqual([
      {
        type: 'actions',
        block_id: 'suspension:9',
        elements: [
          {
            type: 'button',
            action_id: 'suspension.respond',
            text: { type: 'plain_text', text: 'Respond' },
            style: 'primary',
            value: '{"a":9}',
          },
        ],
      },
    ]);
    expect(allText(blocks)).toContain('…or reply in this thread');
  });

  it('offers only Respond without auto-resume', () => {
    const blocks = suspensionCard(data({ autoResume: false }));
    expect(actions(blocks)).toHaveLength(1);
    expect(allText(blocks)).not.toMatch(/reply in this thread/i);
  });

  it('asks for a thread reply when no form can be built', () => {
    for (const autoResume of [true, false]) {
      const blocks = suspensionCard(data({ respondable: false, autoResume }));
      expectValid(blocks);
      expect(actions(blocks)).toEqual([]);
      expect(allText(blocks)).toMatch(/reply in this thread/i);
    }
  });

  it('has no buttons once resumed or cancelled', () => {
    const resumed = suspensionCard(data({ state: { kind: 'resumed', by: 'U0RESUMER01' } }));
    expectValid(resumed);
    expect(actions(resumed)).toEqual([]);
    expect(allText(resumed)).toContain('Resumed by <@U0RESUMER01>');
    expect(allText(resumed)).not.toMatch(/reply in this thread/i);
    const cancelled = suspensionCard(data({ state: { kind: 'cancelled' } }));
    expect(actions(cancelled)).toEqual([]);
    expect(allText(cancelled)).toContain('Cancelled');
  });

  it('stays valid and escaped with huge, hostile payloads in every state', () => {
    const huge = data({
      toolName: `${INJECTION}${'t'.repeat(300)}`,
      path: Array.from({ length: 80 }, () => `${INJECTION}${'p'.repeat(100)}`),
      payload: { message: `${INJECTION}\n`.repeat(2000), detail: `${INJECTION}&`.repeat(5000), list: Array(2000).fill(INJECTION) },
    });
    for (const state of [
      { kind: 'pending' as const },
      { kind: 'resumed' as const, by: INJECTION },
      { kind: 'cancelled' as const },
    ]) {
      const blocks = suspensionCard({ ...huge, state });
      expectValid(blocks);
      expect(allText(blocks)).toMatch(/Details truncated: showing [\d,]+ of [\d,]+ characters/);
    }
  });
});
