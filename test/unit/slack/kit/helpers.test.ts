import type { KnownBlock } from '@slack/types';
import { describe, expect, it } from 'vitest';
import { ACTION_IDS, CALLBACK_IDS, cardBlockId, parseCardBlockId, actionButtonValue, approvalButtonValue, parseButtonValue } from '../../../../src/slack/kit/action-ids.js';
import { fitMessage, mrkdwnText, oneLine, plainText } from '../../../../src/slack/kit/limits.js';
import { jsonCodeBlock, prettyJson } from '../../../../src/slack/kit/format-arg-value.js';
import { humanList, isUserGroupId, isUserId, mention, mentionApprover } from '../../../../src/slack/kit/mention.js';
import { slackDate, codeFence, inlineCode } from '../../../../src/slack/kit/mrkdwn/escape-mrkdwn.js';

describe('mention', () => {
  it('mentions valid user ids and escapes anything else', () => {
    expect(mention('U0ABC123')).toBe('<@U0ABC123>');
    expect(mention('W0ABC123')).toBe('<@W0ABC123>');
    expect(mention('<!channel>')).toBe('&lt;!channel&gt;');
    expect(mention('U0abc')).toBe('U0abc');
    expect(mention('S0GROUP1')).toBe('S0GROUP1');
    expect(mention('U' + 'A'.repeat(60))).toBe('U' + 'A'.repeat(60));
    expect(isUserId('U1|x')).toBe(false);
  });

  it('mentions user groups only where approvers are listed', () => {
    expect(mentionApprover('S0GROUP1')).toBe('<!subteam^S0GROUP1>');
    expect(mentionApprover('U0ABC123')).toBe('<@U0ABC123>');
    expect(mentionApprover('S0GROUP1^x')).toBe('S0GROUP1^x');
    expect(isUserGroupId('S0GROUP1')).toBe(true);
  });
});

describe('humanList', () => {
  it('joins with commas and a conjunction', () => {
    expect(humanList([])).toBe('');
    expect(humanList(['a'])).toBe('a');
    expect(humanList(['a', 'b'])).toBe('a and b');
    expect(humanList(['a', 'b', 'c'], { conjunction: 'or' })).toBe('a, b or c');
  });

  it('shortens to "and N more" within a budget, never cutting an item', () => {
    const items = Array.from({ length: 100 }, (_, i) => `<@U${String(i).padStart(9, '0')}>`);
    const out = humanList(items, { maxChars: 100 });
    expect(out.length).toBeLessThanOrEqual(100);
    expect(out).toMatch(/^(<@U\d{9}>, )*<@U\d{9}> and \d+ more$/);
    expect(humanList(['x'.repeat(50)], { maxChars: 10, noun: 'approvers' })).toBe('1 approvers');
  });
});

describe('button values and block ids', () => {
  it('round-trips approval and action values', () => {
    expect(approvalButtonValue(5, 'abcdef0123456789XYZ')).toBe('{"a":5,"f":"abcdef0123456789"}');
    expect(parseButtonValue(approvalButtonValue(5, 'abcdef0123456789XYZ'))).toEqual({
      actionId: 5,
      fingerprintPrefix: 'abcdef0123456789',
    });
    expect(parseButtonValue(actionButtonValue(7))).toEqual({ actionId: 7 });
    // A fingerprint prefix that is empty, short, long or not hex would match other requests or none.
    for (const bad of [undefined, null, '', '[]', '{"a":"1"}', '{"a":1,"f":2}', '{', '{"a":1e300}', '{"a":1,"f":""}', '{"a":1,"f":"abc"}', '{"a":1,"f":"abcdef0123456789a"}', '{"a":1,"f":"ABCDEF0123456789"}']) {
      expect(parseButtonValue(bad)).toBeUndefined();
    }
  });

  it('round-trips card block ids', () => {
    expect(cardBlockId('question', 12)).toBe('question:12');
    expect(parseCardBlockId('question:12')).toEqual({ kind: 'question', actionId: 12 });
    expect(parseCardBlockId('approval:1')).toEqual({ kind: 'approval', actionId: 1 });
    expect(parseCardBlockId('other:1')).toBeUndefined();
    expect(parseCardBlockId(undefined)).toBeUndefined();
  });

  it('keeps the ids the listeners rely on', () => {
    expect(ACTION_IDS).toEqual({
      approve: 'approval.approve',
      decline: 'approval.decline',
      edit: 'approval.edit',
      approveRemember: 'approval.approve_remember',
      approveWithReason: 'approval.approve_with_reason',
      showArguments: 'approval.show_arguments',
      questionAnswer: 'question.answer',
      questionSubmit: 'question.submit',
      suspensionRespond: 'suspension.respond',
      suspensionYes: 'suspension.yes',
      suspensionNo: 'suspension.no',
      elicitationValue: 'elicitation.value',
      elicitationSubmit: 'elicitation.submit',
      elicitationAnswer: 'elicitation.answer',
      elicitationDecline: 'elicitation.decline',
      elicitationDone: 'elicitation.done',
      elicitationOpenUrl: 'elicitation.open_url',
      inboxApprove: 'inbox.approve',
      inboxDecline: 'inbox.decline',
      inboxNextPage: 'inbox.next_page',
      inboxFirstPage: 'inbox.first_page',
      inboxList: 'inbox.list',
      inboxListNewer: 'inbox.list_newer',
      revokeRemembered: 'remembered.revoke',
      batchApproveAll: 'batch.approve_all',
      batchDeclineAll: 'batch.decline_all',
    });
    expect(CALLBACK_IDS).toEqual({
      declineModal: 'approval.decline_modal',
      editModal: 'approval.edit_modal',
      approveReasonModal: 'approval.approve_reason_modal',
      argumentsModal: 'approval.arguments_modal',
      respondModal: 'suspension.respond_modal',
      elicitationModal: 'elicitation.modal',
      batchDeclineModal: 'batch.decline_modal',
    });
  });
});

describe('text helpers', () => {
  it('formats dates as Slack date tokens with an ISO fallback', () => {
    expect(slackDate(new Date('2030-01-02T03:04:05Z'))).toBe(
      '<!date^1893553445^{date_short_pretty} {time}|2030-01-02T03:04:05.000Z>',
    );
    expect(slackDate(new Date(Number.NaN))).toBe('an unknown time');
  });

  it('never produces empty text objects', () => {
    expect(plainText('  ').text).toBe('—');
    expect(mrkdwnText('').text).toBe('—');
    expect(mrkdwnText('x', 10)).toEqual({ type: 'mrkdwn', text: 'x', verbatim: true });
    expect(plainText('x'.repeat(30), 24).text).toHaveLength(24);
  });

  it('fences and inlines code safely', () => {
    expect(codeFence('a <b> ```c```')).toBe('```\na &lt;b&gt; `\u200b`\u200b`c`\u200b`\u200b`\n```');
    expect(inlineCode('a`b\nc<')).toBe('`aˋb c&lt;`');
  });
});

describe('jsonCodeBlock', () => {
  it('pretty-prints what JSON.stringify cannot', () => {
    expect(prettyJson(undefined)).toBe('undefined');
    expect(prettyJson({ n: 1n })).toBe('{\n  "n": "1n"\n}');
    expect(prettyJson(() => 1)).toMatch(/=>/);
  });

  it('fits the budget after escaping and reports what it showed', () => {
    const value = { s: '<'.repeat(1000) };
    const block = jsonCodeBlock(value, 500);
    expect(block.text.length).toBeLessThanOrEqual(500);
    expect(block.truncated).toBe(true);
    expect(block.total).toBe(JSON.stringify(value, null, 2).length);
    expect(block.shown).toBeGreaterThan(100);
    expect(block.text.endsWith('\n…\n```')).toBe(true);
    expect(jsonCodeBlock({ a: 1 }, 500)).toEqual({ text: '```\n{\n  "a": 1\n}\n```', shown: 12, total: 12, truncated: false });
  });
});

describe('fitMessage', () => {
  it('shrinks until the serialized blocks fit, and stops at the first size that does', () => {
    const scales: number[] = [];
    const blocks = fitMessage((scale) => {
      scales.push(scale);
      return [{ type: 'section', text: { type: 'mrkdwn', text: 'x'.repeat(Math.floor(20_000 * scale)) } }] as KnownBlock[];
    });
    expect(JSON.stringify(blocks).length).toBeLessThanOrEqual(13_000);
    expect(scales[0]).toBe(1);
    expect(scales.length).toBeGreaterThan(1);
    expect(fitMessage(() => [{ type: 'divider' }])).toEqual([{ type: 'divider' }]);
  });
});

describe('oneLine', () => {
  it('collapses whitespace so headers and labels stay single lines', () => {
    expect(oneLine(' a\n\tb  c ')).toBe('a b c');
  });
});
