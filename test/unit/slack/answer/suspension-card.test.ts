import type { KnownBlock } from '@slack/types';
import { describe, expect, it } from 'vitest';
import type { SuspensionCardData } from '../../../../src/slack/card/card-types.js';
import { suspensionCard } from '../../../../src/slack/answer/suspension-card.js';
import { blockLimitErrors } from '../../../../src/simulator/index.js';
import { allText, expectNoInjection, expectWellFormed, INJECTION } from '../../../helpers/slack/block-text.js';
import { ACTION_IDS } from '../../../../src/slack/kit/action-ids.js';

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

  it('has no buttons once answered or cancelled, and says what was answered', () => {
    const resumed = suspensionCard(data({ state: { kind: 'answered', by: 'U0RESUMER01', answer: { kind: 'value', text: 'No' } } }));
    expectValid(resumed);
    expect(actions(resumed)).toEqual([]);
    expect(allText(resumed)).toContain('Answered *No* by <@U0RESUMER01>');
    expect(allText(resumed)).not.toMatch(/Resumed/);
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
      { kind: 'answered' as const, by: INJECTION, answer: { kind: 'value' as const, text: INJECTION } },
      { kind: 'answered' as const, by: INJECTION, answer: { kind: 'pairs' as const, pairs: Array(300).fill({ label: INJECTION, value: `${INJECTION}&`.repeat(50) }) } },
      { kind: 'cancelled' as const },
    ]) {
      const blocks = suspensionCard({ ...huge, state });
      expectValid(blocks);
      expect(allText(blocks)).toMatch(/Details truncated: showing [\d,]+ of [\d,]+ characters/);
    }
  });

  it('offers Yes (primary) and No buttons instead of Respond for a yes/no confirmation', () => {
    const blocks = suspensionCard(data({ confirmation: true, autoResume: false, payload: { question: 'Deploy api v1.2.3 to production?' } }));
    expect(blockLimitErrors(blocks)).toEqual([]);
    expectValid(blocks);
    expect(allText(blocks)).toContain('Deploy api v1.2.3 to production?');
    const [row] = actions(blocks) as Array<{ block_id: string; elements: Array<{ action_id: string; text: { text: string }; style?: string; value: string }> }>;
    expect(row!.block_id).toBe('suspension:9');
    expect(row!.elements.map((e) => [e.action_id, e.text.text, e.style])).toEqual([
      [ACTION_IDS.suspensionYes, 'Yes', 'primary'],
      [ACTION_IDS.suspensionNo, 'No', undefined],
    ]);
    expect(new Set(row!.elements.map((e) => e.value)).size).toBe(1);
    expect(allText(blocks)).not.toMatch(/Respond|reply in this thread/i);
  });

  it('says a structured answer as label: value lines, escaped', () => {
    const blocks = suspensionCard(
      data({
        state: {
          kind: 'answered',
          by: 'U0RESUMER01',
          answer: { kind: 'pairs', pairs: [{ label: 'Deploy now', value: 'Yes' }, { label: 'Reason', value: '<!channel> & co' }] },
        },
      }),
    );
    expect(blockLimitErrors(blocks)).toEqual([]);
    expectValid(blocks);
    const t = allText(blocks);
    expect(t).toContain('Answered by <@U0RESUMER01>:\nDeploy now: Yes\nReason: &lt;!channel&gt; &amp; co');
  });

  it('repeats a question or prompt from the payload like a message', () => {
    expect(allText(suspensionCard(data({ payload: { question: 'Ship it?' } })))).toContain('Ship it?');
    expect(allText(suspensionCard(data({ payload: { prompt: 'Which one?', n: 1 } })))).toContain('Which one?');
  });
});

