import { describe, expect, it } from 'vitest';
import { SLACK_LIMITS, SlackApiError, blockLimitErrors, checkedView, messageContent, viewLimitErrors } from '../../../src/simulator/index.js';

const text = (n: number) => 'x'.repeat(n);
const plain = (t: string) => ({ type: 'plain_text', text: t });
const button = (actionId: string, extra: object = {}) => ({ type: 'button', action_id: actionId, text: plain('Go'), ...extra });

function refusal(run: () => unknown): SlackApiError {
  try {
    run();
  } catch (err) {
    if (err instanceof SlackApiError) return err;
    throw err;
  }
  throw new Error('expected a SlackApiError');
}

describe('blockLimitErrors: the one Block Kit checker', () => {
  it('accepts blocks exactly at each limit', () => {
    const blocks = [
      { type: 'header', block_id: 'h', text: plain(text(SLACK_LIMITS.headerTextChars)) },
      { type: 'section', block_id: 's', text: { type: 'mrkdwn', text: text(SLACK_LIMITS.sectionTextChars) } },
      { type: 'actions', block_id: 'a', elements: Array.from({ length: SLACK_LIMITS.actionsElements }, (_, i) => button(`b${i}`, { value: text(SLACK_LIMITS.buttonValueChars) })) },
      { type: 'context', elements: Array.from({ length: SLACK_LIMITS.contextElements }, () => ({ type: 'mrkdwn', text: 'c' })) },
      { type: 'markdown', text: text(SLACK_LIMITS.markdownChars) },
    ];
    // In a view: a message refuses this much block JSON as a whole (msg_blocks_too_long).
    expect(blockLimitErrors(blocks, '/view/blocks')).toEqual([]);
    expect(blockLimitErrors(blocks)).toEqual([`msg_blocks_too_long: must be no more than ${SLACK_LIMITS.blocksJsonChars} characters of JSON [json-pointer:/blocks]`]);
  });

  it('reports each limit one past it, with the json-pointer Slack gives', () => {
    const errors = blockLimitErrors([
      { type: 'header', text: plain(text(SLACK_LIMITS.headerTextChars + 1)) },
      { type: 'section', text: { type: 'mrkdwn', text: text(SLACK_LIMITS.sectionTextChars + 1) } },
      { type: 'actions', elements: [button('a', { text: plain(text(SLACK_LIMITS.buttonTextChars + 1)) }), button('a')] },
      { type: 'markdown', text: text(SLACK_LIMITS.markdownChars + 1) },
      { type: 'section', block_id: text(SLACK_LIMITS.blockIdChars + 1), text: plain('ok') },
    ]);
    expect(errors).toEqual([
      `msg_blocks_too_long: must be no more than ${SLACK_LIMITS.blocksJsonChars} characters of JSON [json-pointer:/blocks]`,
      `must be less than ${SLACK_LIMITS.headerTextChars + 1} characters [json-pointer:/blocks/0/text/text]`,
      `must be less than ${SLACK_LIMITS.sectionTextChars + 1} characters [json-pointer:/blocks/1/text/text]`,
      `must be less than ${SLACK_LIMITS.buttonTextChars + 1} characters [json-pointer:/blocks/2/elements/0/text/text]`,
      'duplicate action_id a [json-pointer:/blocks/2/elements/1/action_id]',
      `must be less than ${SLACK_LIMITS.blockIdChars + 1} characters [json-pointer:/blocks/4/block_id]`,
      `markdown blocks must total no more than ${SLACK_LIMITS.markdownChars} characters [json-pointer:/blocks]`,
    ]);
  });

  it('refuses malformed structure: non-objects, missing types, duplicate block ids, empty actions, too many options', () => {
    const options = Array.from({ length: SLACK_LIMITS.choiceOptions + 1 }, (_, i) => ({ text: plain(`o${i}`), value: `o${i}` }));
    expect(
      blockLimitErrors(
        ['nope', { block_id: 'x' }, { type: 'divider', block_id: 'd' }, { type: 'divider', block_id: 'd' }, { type: 'actions', elements: [] }, { type: 'input', label: plain('L'), element: { type: 'checkboxes', action_id: 'c', options } }],
        '/view/blocks',
      ),
    ).toEqual([
      'must be an object [json-pointer:/view/blocks/0]',
      'missing required field: type [json-pointer:/view/blocks/1]',
      'duplicate block_id d [json-pointer:/view/blocks/3/block_id]',
      'must provide at least 1 item [json-pointer:/view/blocks/4/elements]',
      `must provide no more than ${SLACK_LIMITS.choiceOptions} items [json-pointer:/view/blocks/5/element/options]`,
    ]);
  });

  it('accepts block types it does not know, as Slack adds new ones', () => {
    expect(blockLimitErrors([{ type: 'rich_text', elements: [] }, { type: 'some_future_block' }])).toEqual([]);
  });
});

const md = (t: string) => ({ type: 'mrkdwn', text: t });
const option = (t: string, value = '0', description?: string) =>
  description === undefined ? { text: plain(t), value } : { text: plain(t), value, description: plain(description) };
const options = (n: number) => Array.from({ length: n }, (_, i) => option(`o${i}`, String(i)));
const tooLong = (max: number, pointer: string) => `must be less than ${max + 1} characters [json-pointer:${pointer}]`;

/** Checks one block of a message and expects exactly `error`. */
function expectError(block: unknown, error: string): void {
  expect(blockLimitErrors([block])).toEqual([error]);
}

describe('blockLimitErrors: each check, one past its limit', () => {
  it('accepts valid blocks of every kind a card uses', () => {
    const blocks = [
      { type: 'header', text: plain('Title') },
      { type: 'section', text: md(text(3000)), fields: [md(text(2000))] },
      { type: 'actions', block_id: 'a', elements: [{ type: 'button', action_id: 'b', text: plain('Go'), value: text(2000) }] },
      { type: 'context', elements: [md('ctx'), { type: 'image', image_url: 'https://x', alt_text: 'x' }] },
      { type: 'divider' },
    ];
    expect(blockLimitErrors(blocks)).toEqual([]);
  });

  it('counts blocks per surface and refuses too much block JSON in a message', () => {
    const many = Array.from({ length: SLACK_LIMITS.blocksPerMessage + 1 }, () => ({ type: 'divider' }));
    expect(blockLimitErrors(many)).toEqual([`must provide no more than ${SLACK_LIMITS.blocksPerMessage} items [json-pointer:/blocks]`]);
    expect(blockLimitErrors(many, '/view/blocks')).toEqual([]);
    const views = Array.from({ length: SLACK_LIMITS.blocksPerView + 1 }, () => ({ type: 'divider' }));
    expect(blockLimitErrors(views, '/view/blocks')).toEqual([`must provide no more than ${SLACK_LIMITS.blocksPerView} items [json-pointer:/view/blocks]`]);
    const big = Array.from({ length: 5 }, () => ({ type: 'section', text: md(text(2900)) }));
    expect(blockLimitErrors(big)).toEqual([`msg_blocks_too_long: must be no more than ${SLACK_LIMITS.blocksJsonChars} characters of JSON [json-pointer:/blocks]`]);
  });

  it('checks section text, field count and field length', () => {
    expectError({ type: 'section', text: md(text(3001)) }, tooLong(3000, '/blocks/0/text/text'));
    expectError({ type: 'section', fields: Array.from({ length: 11 }, () => md('f')) }, 'must provide no more than 10 items [json-pointer:/blocks/0/fields]');
    expectError({ type: 'section', fields: [md(text(2001))] }, tooLong(2000, '/blocks/0/fields/0/text'));
    expectError({ type: 'section', fields: md('f') }, 'must provide an array [json-pointer:/blocks/0/fields]');
    expectError({ type: 'section' }, 'must provide either text or fields [json-pointer:/blocks/0]');
  });

  it('refuses empty and malformed text objects', () => {
    expectError({ type: 'section', text: md('') }, 'must be more than 0 characters [json-pointer:/blocks/0/text/text]');
    expectError({ type: 'section', text: md('   ') }, 'must be more than 0 characters [json-pointer:/blocks/0/text/text]');
    expectError({ type: 'section', text: { type: 'html', text: 'x' } }, 'must be a valid enum value [json-pointer:/blocks/0/text/type]');
    expectError({ type: 'section', text: 'bare string' }, 'must be a text object [json-pointer:/blocks/0/text]');
    expectError({ type: 'context', elements: [md('')] }, 'must be more than 0 characters [json-pointer:/blocks/0/elements/0/text]');
    expectError({ type: 'context', elements: [md(text(3001))] }, tooLong(3000, '/blocks/0/elements/0/text'));
    expectError({ type: 'markdown', text: '' }, 'must be more than 0 characters [json-pointer:/blocks/0/text]');
  });

  it('checks header length and that it is plain_text', () => {
    expectError({ type: 'header', text: plain(text(151)) }, tooLong(150, '/blocks/0/text/text'));
    expectError({ type: 'header', text: md('x') }, 'must be a plain_text object [json-pointer:/blocks/0/text]');
    expectError({ type: 'header' }, 'missing required field: text [json-pointer:/blocks/0/text]');
  });

  it('checks button text, value, url and ids', () => {
    const button = (over: object) => ({ type: 'actions', elements: [{ type: 'button', action_id: 'a', text: plain('ok'), ...over }] });
    expectError(button({ text: plain(text(76)) }), tooLong(75, '/blocks/0/elements/0/text/text'));
    expectError(button({ text: md('ok') }), 'must be a plain_text object [json-pointer:/blocks/0/elements/0/text]');
    expectError(button({ value: text(2001) }), tooLong(2000, '/blocks/0/elements/0/value'));
    expectError(button({ url: text(3001) }), tooLong(3000, '/blocks/0/elements/0/url'));
    expectError(button({ action_id: text(256) }), tooLong(255, '/blocks/0/elements/0/action_id'));
    expectError({ type: 'divider', block_id: text(256) }, tooLong(255, '/blocks/0/block_id'));
  });

  it('refuses duplicate block ids, and duplicate action ids within a block', () => {
    expect(blockLimitErrors([{ type: 'divider', block_id: 'a' }, { type: 'divider', block_id: 'a' }])).toEqual(['duplicate block_id a [json-pointer:/blocks/1/block_id]']);
    const b = { type: 'button', action_id: 'same', text: plain('x') };
    expectError({ type: 'actions', elements: [b, b] }, 'duplicate action_id same [json-pointer:/blocks/0/elements/1/action_id]');
    expect(blockLimitErrors([{ type: 'actions', elements: [b] }, { type: 'actions', elements: [b] }])).toEqual([]);
  });

  it('checks actions and context element counts', () => {
    const buttons = Array.from({ length: 26 }, (_, i) => ({ type: 'button', action_id: `b${i}`, text: plain('x') }));
    expectError({ type: 'actions', elements: buttons }, 'must provide no more than 25 items [json-pointer:/blocks/0/elements]');
    expectError({ type: 'context', elements: Array.from({ length: 11 }, () => md('x')) }, 'must provide no more than 10 items [json-pointer:/blocks/0/elements]');
  });

  it('checks option counts per element type', () => {
    const el = (type: string, n: number) => ({ type: 'actions', elements: [{ type, action_id: 'a', options: options(n) }] });
    const most = (n: number) => `must provide no more than ${n} items [json-pointer:/blocks/0/elements/0/options]`;
    expect(blockLimitErrors([el('static_select', 100)])).toEqual([]);
    expectError(el('static_select', 101), most(100));
    expectError(el('multi_static_select', 101), most(100));
    expect(blockLimitErrors([el('checkboxes', 10)])).toEqual([]);
    expectError(el('checkboxes', 11), most(10));
    expectError(el('radio_buttons', 11), most(10));
    expectError(el('overflow', 6), most(5));
    expectError(el('static_select', 0), 'must provide at least 1 item [json-pointer:/blocks/0/elements/0/options]');
  });

  it('checks option text, description and value, and plain_text where a menu needs it', () => {
    const el = (o: object) => ({ type: 'actions', elements: [{ type: 'radio_buttons', action_id: 'a', options: [o] }] });
    expectError(el(option(text(76))), tooLong(75, '/blocks/0/elements/0/options/0/text/text'));
    expectError(el(option('ok', '0', text(76))), tooLong(75, '/blocks/0/elements/0/options/0/description/text'));
    expectError(el(option('ok', text(151))), tooLong(150, '/blocks/0/elements/0/options/0/value'));
    expect(blockLimitErrors([el({ text: md('*x*'), value: '0' })])).toEqual([]);
    const select = { type: 'actions', elements: [{ type: 'static_select', action_id: 'a', options: [{ text: md('x'), value: '0' }] }] };
    expectError(select, 'must be a plain_text object [json-pointer:/blocks/0/elements/0/options/0/text]');
  });

  it('checks markdown and rich_text length', () => {
    expectError({ type: 'markdown', text: text(SLACK_LIMITS.markdownChars + 1) }, `markdown blocks must total no more than ${SLACK_LIMITS.markdownChars} characters [json-pointer:/blocks]`);
    expect(blockLimitErrors([{ type: 'markdown', text: text(6000) }, { type: 'markdown', text: text(6001) }], '/view/blocks')).toEqual([
      `markdown blocks must total no more than ${SLACK_LIMITS.markdownChars} characters [json-pointer:/view/blocks]`,
    ]);
    const rich = (n: number) => ({ type: 'rich_text', elements: [{ type: 'rich_text_section', elements: [{ type: 'text', text: text(n) }] }] });
    expect(blockLimitErrors([rich(SLACK_LIMITS.richTextChars)], '/view/blocks')).toEqual([]);
    expect(blockLimitErrors([rich(SLACK_LIMITS.richTextChars + 1)], '/view/blocks')).toEqual([
      `rich_text must total no more than ${SLACK_LIMITS.richTextChars} characters [json-pointer:/view/blocks/0]`,
    ]);
  });

  it('checks input label, hint, initial value, max_length and placeholder', () => {
    const input = (over: object, element: object = {}) => ({ type: 'input', label: plain('Label'), element: { type: 'plain_text_input', action_id: 'a', ...element }, ...over });
    expectError(input({ label: plain(text(2001)) }), tooLong(2000, '/blocks/0/label/text'));
    expectError(input({ label: undefined }), 'missing required field: label [json-pointer:/blocks/0/label]');
    expectError(input({ hint: plain(text(2001)) }), tooLong(2000, '/blocks/0/hint/text'));
    expectError(input({ hint: md('hint') }), 'must be a plain_text object [json-pointer:/blocks/0/hint]');
    expectError(input({}, { initial_value: text(3001) }), tooLong(3000, '/blocks/0/element/initial_value'));
    expectError(input({}, { max_length: 3001 }), 'must be no more than 3000 [json-pointer:/blocks/0/element/max_length]');
    expectError(input({}, { placeholder: plain(text(151)) }), tooLong(150, '/blocks/0/element/placeholder/text'));
    expectError(input({ element: undefined }), 'missing required field: element [json-pointer:/blocks/0/element]');
    expect(blockLimitErrors([input({ hint: plain('h') }, { max_length: 3000, placeholder: plain(text(150)), initial_value: text(3000) })])).toEqual([]);
  });

  it('checks confirm dialogs', () => {
    const confirm = { title: plain('Sure?'), text: md('Really?'), confirm: plain('Yes'), deny: plain('No') };
    const block = (over: object) => ({ type: 'actions', elements: [{ type: 'button', action_id: 'a', text: plain('x'), confirm: { ...confirm, ...over } }] });
    expect(blockLimitErrors([block({})])).toEqual([]);
    expectError(block({ title: plain(text(101)) }), tooLong(100, '/blocks/0/elements/0/confirm/title/text'));
    expectError(block({ text: md(text(301)) }), tooLong(300, '/blocks/0/elements/0/confirm/text/text'));
    expectError(block({ confirm: plain(text(31)) }), tooLong(30, '/blocks/0/elements/0/confirm/confirm/text'));
    expectError(block({ deny: md('No') }), 'must be a plain_text object [json-pointer:/blocks/0/elements/0/confirm/deny]');
    expectError(block({ deny: undefined }), 'missing required field: deny [json-pointer:/blocks/0/elements/0/confirm/deny]');
  });
});

describe('messageContent: message-wide limits', () => {
  it('refuses too many blocks, too much block JSON, too long text and no content at all', () => {
    const many = Array.from({ length: SLACK_LIMITS.blocksPerMessage + 1 }, () => ({ type: 'divider' }));
    expect(refusal(() => messageContent({ blocks: many }, { requireContent: true })).code).toBe('invalid_blocks');
    const heavy = Array.from({ length: 5 }, (_, i) => ({ type: 'section', block_id: `s${i}`, text: { type: 'mrkdwn', text: text(2_900) } }));
    expect(JSON.stringify(heavy).length).toBeGreaterThan(SLACK_LIMITS.blocksJsonChars);
    expect(refusal(() => messageContent({ blocks: heavy }, { requireContent: true })).code).toBe('msg_blocks_too_long');
    expect(refusal(() => messageContent({ text: text(SLACK_LIMITS.textChars + 1) }, { requireContent: true })).code).toBe('msg_too_long');
    expect(refusal(() => messageContent({ blocks: [] }, { requireContent: true })).code).toBe('no_text');
    expect(refusal(() => messageContent({ blocks: 'not json' }, { requireContent: true })).code).toBe('invalid_blocks_format');
  });

  it('lists every block problem in response_metadata, as WebClient surfaces it', () => {
    const err = refusal(() => messageContent({ text: 't', blocks: [{ type: 'header', text: { type: 'mrkdwn', text: 'h' } }] }, { requireContent: true }));
    expect(err.extra).toEqual({
      errors: ['must be a plain_text object [json-pointer:/blocks/0/text]'],
      response_metadata: { messages: ['[ERROR] must be a plain_text object [json-pointer:/blocks/0/text]'] },
    });
  });

  it('checkBlocks: false still enforces the message-wide limits', () => {
    expect(messageContent({ text: 't', blocks: [{ type: 'header', text: { type: 'mrkdwn', text: 'h' } }] }, { requireContent: true, checkBlocks: false }).blocks).toHaveLength(1);
    const many = Array.from({ length: SLACK_LIMITS.blocksPerMessage + 1 }, () => ({ type: 'divider' }));
    expect(refusal(() => messageContent({ blocks: many }, { requireContent: true, checkBlocks: false })).code).toBe('invalid_blocks');
  });
});

describe('checkedView: modals and Home tabs', () => {
  const modal = { type: 'modal', title: plain('Reject'), submit: plain('Reject'), blocks: [{ type: 'input', label: plain('Why'), element: { type: 'plain_text_input', action_id: 'why' } }] };

  it('accepts a modal and a home view on their own surfaces only', () => {
    expect(checkedView({ view: modal }, 'modal')).toBe(modal);
    const home = { type: 'home', blocks: [{ type: 'section', text: plain('Pending: 0') }] };
    expect(checkedView({ view: home }, 'home')).toBe(home);
    expect(refusal(() => checkedView({ view: home }, 'modal')).extra).toEqual({ response_metadata: { messages: expect.arrayContaining(['[ERROR] must be modal [json-pointer:/view/type]']) } });
    expect(refusal(() => checkedView({ view: modal }, 'home')).code).toBe('invalid_arguments');
  });

  it('checks each modal field one past its limit (viewLimitErrors lists what checkedView throws)', () => {
    const view = (over: object = {}) => ({ ...modal, close: plain('Cancel'), callback_id: 'cb', private_metadata: '{}', ...over });
    expect(viewLimitErrors(view(), 'modal')).toEqual([]);
    expect(viewLimitErrors(view({ title: plain(text(25)) }), 'modal')).toEqual([tooLong(24, '/view/title/text')]);
    expect(viewLimitErrors(view({ title: md('Reject') }), 'modal')).toEqual(['must be a plain_text object [json-pointer:/view/title]']);
    expect(viewLimitErrors(view({ submit: plain(text(25)) }), 'modal')).toEqual([tooLong(24, '/view/submit/text')]);
    expect(viewLimitErrors(view({ close: plain(text(25)) }), 'modal')).toEqual([tooLong(24, '/view/close/text')]);
    expect(viewLimitErrors(view({ private_metadata: text(3001) }), 'modal')).toEqual([tooLong(3000, '/view/private_metadata')]);
    expect(viewLimitErrors(view({ callback_id: text(256) }), 'modal')).toEqual([tooLong(255, '/view/callback_id')]);
    expect(viewLimitErrors(view({ blocks: Array.from({ length: 101 }, () => ({ type: 'divider' })) }), 'modal')).toEqual([
      'must provide no more than 100 items [json-pointer:/view/blocks]',
    ]);
    expect(viewLimitErrors(view({ submit: undefined }), 'modal')).toEqual(['missing required field: submit (a view with input blocks needs one) [json-pointer:/view/submit]']);
    expect(viewLimitErrors(view({ type: 'home' }), 'modal')).toEqual(['must be modal [json-pointer:/view/type]']);
    expect(viewLimitErrors(view({ blocks: [{ type: 'section', text: md('') }] }), 'modal')).toEqual(['must be more than 0 characters [json-pointer:/view/blocks/0/text/text]']);
    expect(viewLimitErrors('nope', 'modal')).toEqual(['missing required field: view']);
    expect(refusal(() => checkedView({ view: view({ callback_id: text(256) }) }, 'modal')).extra).toEqual({
      response_metadata: { messages: [`[ERROR] ${tooLong(255, '/view/callback_id')}`] },
    });
  });

  it('enforces the title, block count, private_metadata and the submit that input blocks need', () => {
    const err = refusal(() =>
      checkedView(
        {
          view: {
            type: 'modal',
            title: plain(text(SLACK_LIMITS.viewTitleChars + 1)),
            private_metadata: text(SLACK_LIMITS.privateMetadataChars + 1),
            blocks: [...modal.blocks, ...Array.from({ length: SLACK_LIMITS.blocksPerView }, () => ({ type: 'divider' }))],
          },
        },
        'modal',
      ),
    );
    expect((err.extra.response_metadata as { messages: string[] }).messages).toEqual([
      `[ERROR] must be less than ${SLACK_LIMITS.viewTitleChars + 1} characters [json-pointer:/view/title/text]`,
      `[ERROR] must provide no more than ${SLACK_LIMITS.blocksPerView} items [json-pointer:/view/blocks]`,
      '[ERROR] missing required field: submit (a view with input blocks needs one) [json-pointer:/view/submit]',
      `[ERROR] must be less than ${SLACK_LIMITS.privateMetadataChars + 1} characters [json-pointer:/view/private_metadata]`,
    ]);
  });
});
