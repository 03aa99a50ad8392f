import { describe, expect, it } from 'vitest';
import { LIMITS, checkBlocks, checkView, truncate, truncateMrkdwn } from '../../../src/slack/blocks/limits.js';

const plain = (text: string) => ({ type: 'plain_text', text });
const md = (text: string) => ({ type: 'mrkdwn', text });
const option = (text: string, value = '0', description?: string) =>
  description === undefined ? { text: plain(text), value } : { text: plain(text), value, description: plain(description) };
const options = (n: number) => Array.from({ length: n }, (_, i) => option(`o${i}`, String(i)));
const x = (n: number) => 'x'.repeat(n);

/** Checks one block and expects exactly one violation mentioning `what`. */
function expectViolation(block: unknown, what: RegExp): void {
  const violations = checkBlocks([block]);
  expect(violations, JSON.stringify(violations)).toHaveLength(1);
  expect(violations[0]).toMatch(what);
}

describe('truncate', () => {
  it('returns short text unchanged', () => {
    expect(truncate('hello', 5)).toBe('hello');
  });

  it('cuts visibly and fits the maximum', () => {
    expect(truncate('hello world', 8)).toBe('hello w…');
    expect(truncate('hello world', 7)).toBe('hello…');
    expect(truncate('hello', 1)).toBe('…');
    expect(truncate('hello', 0)).toBe('');
    for (let max = 1; max < 30; max++) expect(truncate(x(50), max).length).toBeLessThanOrEqual(max);
  });

  it('never splits a surrogate pair', () => {
    const out = truncate('😀😀😀', 4);
    expect(out).toBe('😀…');
  });
});

describe('truncateMrkdwn', () => {
  it('does not leave half an entity or half a token', () => {
    expect(truncateMrkdwn('ab &amp; cd', 6)).toBe('ab…');
    expect(truncateMrkdwn('hi <@U12345> there', 9)).toBe('hi…');
    expect(truncateMrkdwn('&lt;&lt;&lt;', 10)).toBe('&lt;&lt;…');
    expect(truncateMrkdwn('&lt;&lt;&lt;', 8)).toBe('&lt;…');
  });

  it('closes a code block it cut open', () => {
    const out = truncateMrkdwn('intro\n```\n' + x(100) + '\n```', 40);
    expect(out.length).toBeLessThanOrEqual(40);
    expect(out.endsWith('…\n```')).toBe(true);
    expect(out.split('```').length - 1).toBe(2);
  });
});

describe('checkBlocks', () => {
  it('accepts valid blocks', () => {
    const blocks = [
      { type: 'header', text: plain('Title') },
      { type: 'section', text: md(x(3000)), fields: [md(x(2000))] },
      { type: 'actions', block_id: 'a', elements: [{ type: 'button', action_id: 'b', text: plain('Go'), value: x(2000) }] },
      { type: 'context', elements: [md('ctx'), { type: 'image', image_url: 'https://x', alt_text: 'x' }] },
      { type: 'divider' },
    ];
    expect(checkBlocks(blocks)).toEqual([]);
  });

  it('catches too many blocks and too long a message', () => {
    const many = Array.from({ length: 51 }, () => ({ type: 'divider' }));
    expect(checkBlocks(many)).toEqual([expect.stringMatching(/51 blocks \(max 50\)/)]);
    expect(checkBlocks(many, 'modal')).toEqual([]);
    const big = Array.from({ length: 5 }, () => ({ type: 'section', text: md(x(2900)) }));
    expect(checkBlocks(big)).toEqual([expect.stringMatching(/msg_blocks_too_long/)]);
  });

  it('catches section text, field count and field length', () => {
    expectViolation({ type: 'section', text: md(x(3001)) }, /section text is 3001 characters \(max 3000\)/);
    expectViolation({ type: 'section', fields: Array.from({ length: 11 }, () => md('f')) }, /11 fields \(max 10\)/);
    expectViolation({ type: 'section', fields: [md(x(2001))] }, /section field is 2001/);
    expectViolation({ type: 'section' }, /neither text nor fields/);
  });

  it('catches empty and malformed text objects', () => {
    expectViolation({ type: 'section', text: md('') }, /section text is empty/);
    expectViolation({ type: 'section', text: md('   ') }, /section text is empty/);
    expectViolation({ type: 'section', text: { type: 'html', text: 'x' } }, /unknown text type/);
    expectViolation({ type: 'section', text: 'bare string' }, /not a text object/);
  });

  it('catches header length and type', () => {
    expectViolation({ type: 'header', text: plain(x(151)) }, /header text is 151/);
    expectViolation({ type: 'header', text: md('x') }, /header text must be plain_text/);
  });

  it('catches button text, value, url and ids', () => {
    const button = (over: object) => ({ type: 'actions', elements: [{ type: 'button', action_id: 'a', text: plain('ok'), ...over }] });
    expectViolation(button({ text: plain(x(76)) }), /button text is 76/);
    expectViolation(button({ value: x(2001) }), /button value is 2001/);
    expectViolation(button({ url: x(3001) }), /button url is 3001/);
    expectViolation(button({ action_id: x(256) }), /action_id is 256/);
    expectViolation({ type: 'divider', block_id: x(256) }, /block_id is 256/);
  });

  it('catches duplicate block ids and duplicate action ids in a block', () => {
    expect(checkBlocks([{ type: 'divider', block_id: 'a' }, { type: 'divider', block_id: 'a' }])).toEqual([
      expect.stringMatching(/duplicate block_id a/),
    ]);
    const b = { type: 'button', action_id: 'same', text: plain('x') };
    expectViolation({ type: 'actions', elements: [b, b] }, /duplicate action_id same/);
  });

  it('catches actions and context element counts', () => {
    const buttons = Array.from({ length: 26 }, (_, i) => ({ type: 'button', action_id: `b${i}`, text: plain('x') }));
    expectViolation({ type: 'actions', elements: buttons }, /26 elements \(max 25\)/);
    expectViolation({ type: 'context', elements: Array.from({ length: 11 }, () => md('x')) }, /11 elements \(max 10\)/);
  });

  it('catches option counts per element type', () => {
    const el = (type: string, n: number) => ({ type: 'actions', elements: [{ type, action_id: 'a', options: options(n) }] });
    expect(checkBlocks([el('static_select', 100)])).toEqual([]);
    expectViolation(el('static_select', 101), /static_select has 101 options \(max 100\)/);
    expectViolation(el('multi_static_select', 101), /multi_static_select has 101 options/);
    expect(checkBlocks([el('checkboxes', 10)])).toEqual([]);
    expectViolation(el('checkboxes', 11), /checkboxes has 11 options \(max 10\)/);
    expectViolation(el('radio_buttons', 11), /radio_buttons has 11 options \(max 10\)/);
    expectViolation(el('overflow', 6), /overflow has 6 options/);
    expectViolation(el('static_select', 0), /has no options/);
  });

  it('catches option text, description and value', () => {
    const el = (o: object) => ({ type: 'actions', elements: [{ type: 'radio_buttons', action_id: 'a', options: [o] }] });
    expectViolation(el(option(x(76))), /option text is 76/);
    expectViolation(el(option('ok', '0', x(76))), /option description is 76/);
    expectViolation(el(option('ok', x(151))), /option value is 151/);
    const select = { type: 'actions', elements: [{ type: 'static_select', action_id: 'a', options: [{ text: md('x'), value: '0' }] }] };
    expectViolation(select, /option text must be plain_text/);
  });

  it('catches markdown and rich_text length', () => {
    expectViolation({ type: 'markdown', text: x(LIMITS.markdownText + 1) }, /markdown blocks total 12001/);
    expect(checkBlocks([{ type: 'markdown', text: x(6000) }, { type: 'markdown', text: x(6001) }], 'modal')).toEqual([
      expect.stringMatching(/markdown blocks total 12001/),
    ]);
    const rich = {
      type: 'rich_text',
      elements: [{ type: 'rich_text_section', elements: [{ type: 'text', text: x(12_001) }] }],
    };
    expect(checkBlocks([rich], 'modal')).toEqual([expect.stringMatching(/rich_text is 12001/)]);
  });

  it('catches input label, hint, initial value, max_length and placeholder', () => {
    const input = (over: object, element: object = {}) => ({
      type: 'input',
      label: plain('Label'),
      element: { type: 'plain_text_input', action_id: 'a', ...element },
      ...over,
    });
    expectViolation(input({ label: plain(x(2001)) }), /input label is 2001/);
    expectViolation(input({ hint: plain(x(2001)) }), /input hint is 2001/);
    expectViolation(input({}, { initial_value: x(3001) }), /initial_value is 3001/);
    expectViolation(input({}, { max_length: 3001 }), /max_length is 3001/);
    expectViolation(input({}, { placeholder: plain(x(151)) }), /placeholder is 151/);
  });

  it('catches confirm dialogs that are too long', () => {
    const confirm = { title: plain(x(101)), text: plain('sure?'), confirm: plain('Yes'), deny: plain('No') };
    const block = { type: 'actions', elements: [{ type: 'button', action_id: 'a', text: plain('x'), confirm }] };
    expectViolation(block, /confirm title is 101/);
  });
});

describe('checkView', () => {
  const view = (over: object = {}) => ({
    type: 'modal',
    title: plain('Title'),
    submit: plain('Submit'),
    close: plain('Cancel'),
    callback_id: 'cb',
    private_metadata: '{}',
    blocks: [{ type: 'input', label: plain('L'), element: { type: 'plain_text_input', action_id: 'a' } }],
    ...over,
  });

  it('accepts a valid modal', () => {
    expect(checkView(view())).toEqual([]);
  });

  it('catches each modal limit', () => {
    expect(checkView(view({ title: plain(x(25)) }))).toEqual([expect.stringMatching(/modal title is 25/)]);
    expect(checkView(view({ submit: plain(x(25)) }))).toEqual([expect.stringMatching(/modal submit is 25/)]);
    expect(checkView(view({ close: plain(x(25)) }))).toEqual([expect.stringMatching(/modal close is 25/)]);
    expect(checkView(view({ private_metadata: x(3001) }))).toEqual([expect.stringMatching(/private_metadata is 3001/)]);
    expect(checkView(view({ callback_id: x(256) }))).toEqual([expect.stringMatching(/callback_id is 256/)]);
    expect(checkView(view({ blocks: Array.from({ length: 101 }, () => ({ type: 'divider' })) }))).toEqual([
      expect.stringMatching(/101 blocks \(max 100\)/),
    ]);
    expect(checkView(view({ submit: undefined }))).toEqual([expect.stringMatching(/needs a submit button/)]);
    expect(checkView(view({ type: 'home' }))).toEqual([expect.stringMatching(/expected modal/)]);
  });
});
