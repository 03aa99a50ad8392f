import type { KnownBlock } from '@slack/types';
import { describe, expect, it } from 'vitest';
import type { QuestionCardData, QuestionOption } from '../../../../src/slack/card/card-types.js';
import { questionCard } from '../../../../src/slack/answer/question-card.js';
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
