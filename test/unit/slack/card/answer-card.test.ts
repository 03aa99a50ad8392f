import type { KnownBlock } from '@slack/types';
import { describe, expect, it } from 'vitest';
import type { QuestionCardData, QuestionOption, SuspensionCardData } from '../../../../src/slack/card/card-types.js';
import { questionCard, suspensionCard } from '../../../../src/slack/card/answer-card.js';
import { ACTION_IDS } from '../../../../src/slack/kit/action-ids.js';
import { blockLimitErrors } from '../../../../src/simulator/index.js';
import { allText, expectNoInjection, expectWellFormed, INJECTION } from '../../../helpers/slack/block-text.js';

const IDS = ['U0ASKED0001', 'U0ANSWER001'];

function data(over: Partial<QuestionCardData> = {}): QuestionCardData {
  return { actionId: 7, question: 'Which **region**?', askedOf: 'U0ASKED0001', state: { kind: 'pending' }, ...over };
}

const opts = (n: number, label = (i: number) => `Option ${i}`): QuestionOption[] =>
  Array.from({ length: n }, (_, i) => ({ label: label(i) }));

interface Element {
  type: string;
  action_id: string;
  options?: Array<{ text: { type: string; text: string }; value: string; description?: { text: string } }>;
  value?: string;
  style?: string;
}

function actionElements(blocks: KnownBlock[]): Element[] {
  const block = blocks.find((b) => b.type === 'actions') as { block_id?: string; elements: Element[] } | undefined;
  return block?.elements ?? [];
}

function expectValid(blocks: KnownBlock[]): void {
  expect(blockLimitErrors(blocks)).toEqual([]);
  expectNoInjection(blocks, IDS);
  expectWellFormed(blocks);
}

describe('questionCard: pending', () => {
  it('asks for a thread reply when there are no options', () => {
    const blocks = questionCard(data());
    expectValid(blocks);
    expect(allText(blocks)).toContain('*Question for <@U0ASKED0001>*\nWhich *region*?');
    expect(allText(blocks)).toContain('Reply in this thread to answer.');
    expect(actionElements(blocks)).toEqual([]);
    expect(allText(questionCard(data({ options: [] })))).toContain('Reply in this thread to answer.');
  });

  it('uses radio buttons for up to 10 single-select options, with descriptions', () => {
    const options = [{ label: 'eu-west-1', description: 'Ireland' }, { label: 'us-east-1' }];
    const blocks = questionCard(data({ options }));
    expectValid(blocks);
    const actions = blocks.find((b) => b.type === 'actions') as { block_id: string };
    expect(actions.block_id).toBe('question:7');
    expect(actionElements(blocks)).toEqual([
      {
        type: 'radio_buttons',
        action_id: 'question.answer',
        options: [
          { text: { type: 'plain_text', text: 'eu-west-1' }, value: '0', description: { type: 'plain_text', text: 'Ireland' } },
          { text: { type: 'plain_text', text: 'us-east-1' }, value: '1' },
        ],
      },
    ]);
    expect(questionCard(data({ options: opts(10) })).length).toBe(blocks.length);
    expect(actionElements(questionCard(data({ options: opts(10) })))[0]?.type).toBe('radio_buttons');
  });

  it('uses a static select for 11 to 100 single-select options', () => {
    for (const n of [11, 100]) {
      const blocks = questionCard(data({ options: opts(n), selectionMode: 'single_select' }));
      expectValid(blocks);
      const [select, ...rest] = actionElements(blocks);
      expect(select?.type).toBe('static_select');
      expect(select?.action_id).toBe('question.answer');
      expect(select?.options).toHaveLength(n);
      expect(rest).toEqual([]);
      expect(allText(blocks)).not.toContain('more options');
    }
  });

  it('uses checkboxes plus Submit for up to 10 multi-select options', () => {
    const blocks = questionCard(data({ options: opts(3), selectionMode: 'multi_select' }));
    expectValid(blocks);
    const [boxes, submit] = actionElements(blocks);
    expect(boxes?.type).toBe('checkboxes');
    expect(boxes?.action_id).toBe('question.answer');
    expect(submit).toEqual({
      type: 'button',
      action_id: 'question.submit',
      text: { type: 'plain_text', text: 'Submit' },
      style: 'primary',
      value: '{"a":7}',
    });
  });

  it('uses a multi static select plus Submit for 11 to 100 multi-select options', () => {
    const blocks = questionCard(data({ options: opts(50), selectionMode: 'multi_select' }));
    expectValid(blocks);
    const [select, submit] = actionElements(blocks);
    expect(select?.type).toBe('multi_static_select');
    expect(select?.options).toHaveLength(50);
    expect(submit?.action_id).toBe('question.submit');
  });

  it('shows the first 100 of more options and says how many are not shown', () => {
    for (const mode of ['single_select', 'multi_select'] as const) {
      const blocks = questionCard(data({ options: opts(101), selectionMode: mode }));
      expectValid(blocks);
      expect(actionElements(blocks)[0]?.options).toHaveLength(100);
      expect(allText(blocks)).toContain('1 more options are not shown — reply in this thread with your answer');
    }
    const many = questionCard(data({ options: opts(1000) }));
    expectValid(many);
    expect(allText(many)).toContain('900 more options are not shown');
    expect(actionElements(many)[0]?.options?.[99]?.value).toBe('99');
  });

  it('uses indexes as values and truncates long labels visibly', () => {
    const long = 'L'.repeat(150);
    const blocks = questionCard(data({ options: [{ label: long, description: 'D'.repeat(150) }, { label: '' }] }));
    expectValid(blocks);
    const [radio] = actionElements(blocks);
    expect(radio?.options?.[0]?.text.text).toBe('L'.repeat(74) + '…');
    expect(radio?.options?.[0]?.description?.text).toBe('D'.repeat(74) + '…');
    expect(radio?.options?.[0]?.value).toBe('0');
    expect(radio?.options?.[1]?.text.text).toBe('Option 2');
  });

  it('omits "for" when nobody in particular is asked', () => {
    expect(allText(questionCard(data({ askedOf: undefined })))).toContain('*Question*\n');
  });
});

describe('questionCard: answered and cancelled', () => {
  it('shows the answer and who gave it, with no inputs', () => {
    const blocks = questionCard(data({ options: opts(3), state: { kind: 'answered', by: 'U0ANSWER001', answer: 'Option 1' } }));
    expectValid(blocks);
    expect(actionElements(blocks)).toEqual([]);
    expect(allText(blocks)).toContain('Answered *Option 1* by <@U0ANSWER001>');
  });

  it('joins multiple answers and escapes them', () => {
    const blocks = questionCard(
      data({ state: { kind: 'answered', by: 'U0ANSWER001', answer: ['a & b', '<!here>', 'c'] } }),
    );
    expectValid(blocks);
    expect(allText(blocks)).toContain('Answered *a &amp; b, &lt;!here&gt;, c* by <@U0ANSWER001>');
  });

  it('says so when the answer is empty', () => {
    expect(allText(questionCard(data({ state: { kind: 'answered', by: 'U0ANSWER001', answer: [] } })))).toContain(
      'Answered by <@U0ANSWER001> (no answer)',
    );
  });

  it('shows a cancelled question without inputs', () => {
    const blocks = questionCard(data({ options: opts(3), state: { kind: 'cancelled' } }));
    expectValid(blocks);
    expect(actionElements(blocks)).toEqual([]);
    expect(allText(blocks)).toContain('Cancelled');
  });
});

describe('questionCard: extreme inputs', () => {
  it('fits 100 long options with a huge question in one message', () => {
    for (const mode of ['single_select', 'multi_select'] as const) {
      const blocks = questionCard(
        data({
          question: `${INJECTION} ${'q'.repeat(50_000)}`,
          options: opts(150, (i) => `${INJECTION} ${'"'.repeat(150)} ${i}`),
          selectionMode: mode,
        }),
      );
      expectValid(blocks);
      expect(actionElements(blocks)[0]?.options).toHaveLength(100);
      expect(allText(blocks)).toContain('50 more options are not shown');
    }
  });

  it('escapes injection in questions, labels, descriptions and answers', () => {
    const options = [{ label: INJECTION, description: INJECTION }, { label: '😀'.repeat(100) }];
    for (const state of [
      { kind: 'pending' as const },
      { kind: 'answered' as const, by: INJECTION, answer: `${INJECTION}${'a'.repeat(10_000)}` },
      { kind: 'cancelled' as const },
    ]) {
      const blocks = questionCard(data({ question: `# ${INJECTION}\n- ${INJECTION}`, askedOf: INJECTION, options, state }));
      expectValid(blocks);
    }
  });
});

function suspensionData(over: Partial<SuspensionCardData> = {}): SuspensionCardData {
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

function expectValidSuspension(blocks: KnownBlock[]): void {
  expect(blockLimitErrors(blocks)).toEqual([]);
  expectNoInjection(blocks, ['U0RESUMER01']);
  expectWellFormed(blocks);
}

const actions = (blocks: KnownBlock[]) => blocks.filter((b) => b.type === 'actions');

describe('suspensionCard', () => {
  it('shows the message as text and the rest of the payload as JSON', () => {
    const blocks = suspensionCard(suspensionData());
    expectValidSuspension(blocks);
    expect(blocks[0]).toEqual({ type: 'header', text: { type: 'plain_text', text: 'Input needed: deploy_service' } });
    const t = allText(blocks);
    expect(t).toContain('Which version should I deploy?');
    expect(t).toContain('```\n' + JSON.stringify({ service: 'api', candidates: ['2.3.0', '2.3.1'] }, null, 2) + '\n```');
    expect(t).not.toContain('"message"');
  });

  it('shows only the message when that is all there is, and a string payload as a message', () => {
    expect(allText(suspensionCard(suspensionData({ payload: { message: 'Just this' } })))).not.toContain('```');
    expect(allText(suspensionCard(suspensionData({ payload: 'Plain <string>' })))).toContain('Plain &lt;string&gt;');
  });

  it('shows a payload without a string message as JSON', () => {
    const t = allText(suspensionCard(suspensionData({ payload: { message: 42, x: 1 } })));
    expect(t).toContain('"message": 42');
    expectValidSuspension(suspensionCard(suspensionData({ payload: undefined })));
    expectValidSuspension(suspensionCard(suspensionData({ payload: [1, 2] })));
  });

  it('shows the delegation path when there is one', () => {
    expect(allText(suspensionCard(suspensionData()))).not.toContain('Path');
    expect(allText(suspensionCard(suspensionData({ path: ['ops', 'deployer'] })))).toContain('*Path:* ops → deployer → deploy_service');
  });

  it('offers Respond and a thread reply when both work', () => {
    const blocks = suspensionCard(suspensionData());
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
    const blocks = suspensionCard(suspensionData({ autoResume: false }));
    expect(actions(blocks)).toHaveLength(1);
    expect(allText(blocks)).not.toMatch(/reply in this thread/i);
  });

  it('asks for a thread reply when no form can be built', () => {
    for (const autoResume of [true, false]) {
      const blocks = suspensionCard(suspensionData({ respondable: false, autoResume }));
      expectValidSuspension(blocks);
      expect(actions(blocks)).toEqual([]);
      expect(allText(blocks)).toMatch(/reply in this thread/i);
    }
  });

  it('has no buttons once answered or cancelled, and says what was answered', () => {
    const resumed = suspensionCard(suspensionData({ state: { kind: 'answered', by: 'U0RESUMER01', answer: { kind: 'value', text: 'No' } } }));
    expectValidSuspension(resumed);
    expect(actions(resumed)).toEqual([]);
    expect(allText(resumed)).toContain('Answered *No* by <@U0RESUMER01>');
    expect(allText(resumed)).not.toMatch(/Resumed/);
    expect(allText(resumed)).not.toMatch(/reply in this thread/i);
    const cancelled = suspensionCard(suspensionData({ state: { kind: 'cancelled' } }));
    expect(actions(cancelled)).toEqual([]);
    expect(allText(cancelled)).toContain('Cancelled');
  });

  it('stays valid and escaped with huge, hostile payloads in every state', () => {
    const huge = suspensionData({
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
      expectValidSuspension(blocks);
      expect(allText(blocks)).toMatch(/Details truncated: showing [\d,]+ of [\d,]+ characters/);
    }
  });

  it('offers Yes (primary) and No buttons instead of Respond for a yes/no confirmation', () => {
    const blocks = suspensionCard(suspensionData({ confirmation: true, autoResume: false, payload: { question: 'Deploy api v1.2.3 to production?' } }));
    expect(blockLimitErrors(blocks)).toEqual([]);
    expectValidSuspension(blocks);
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
      suspensionData({
        state: {
          kind: 'answered',
          by: 'U0RESUMER01',
          answer: { kind: 'pairs', pairs: [{ label: 'Deploy now', value: 'Yes' }, { label: 'Reason', value: '<!channel> & co' }] },
        },
      }),
    );
    expect(blockLimitErrors(blocks)).toEqual([]);
    expectValidSuspension(blocks);
    const t = allText(blocks);
    expect(t).toContain('Answered by <@U0RESUMER01>:\nDeploy now: Yes\nReason: &lt;!channel&gt; &amp; co');
  });

  it('repeats a question or prompt from the payload like a message', () => {
    expect(allText(suspensionCard(suspensionData({ payload: { question: 'Ship it?' } })))).toContain('Ship it?');
    expect(allText(suspensionCard(suspensionData({ payload: { prompt: 'Which one?', n: 1 } })))).toContain('Which one?');
  });
});
