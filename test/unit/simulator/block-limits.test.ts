import { describe, expect, it } from 'vitest';
import { SLACK_LIMITS, SlackApiError, blockLimitErrors, checkedView, messageContent } from '../../../src/simulator/index.js';

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
    expect(blockLimitErrors(blocks)).toEqual([]);
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
