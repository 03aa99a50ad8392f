import { describe, expect, it } from 'vitest';
import { approvalCard } from '../../../src/slack/card/approval-card.js';
import type { ApprovalCardState, QuestionCardState, SuspensionCardState } from '../../../src/slack/card/card-types.js';
import { declineModal } from '../../../src/slack/approval/approval-modals.js';
import { questionCard, suspensionCard } from '../../../src/slack/card/answer-card.js';
import { respondModal } from '../../../src/slack/answer/answer-modals.js';
import { blockLimitErrors, viewLimitErrors } from '../../../src/simulator/index.js';
import { markdownToMrkdwn } from '../../../src/slack/kit/mrkdwn/markdown-to-mrkdwn.js';
import { splitMessage } from '../../../src/slack/kit/mrkdwn/split-message.js';
import { expectNoInjection, expectWellFormed, INJECTION, INJECTIONS, textsIn } from '../../helpers/slack/block-text.js';

/** Injection in every string a model or user controls, at normal and at extreme size. */
const SIZES = [1, 400];
const bad = (size: number) => `${INJECTION} `.repeat(size).trim();
const at = new Date('2030-01-01T00:00:00Z');

function outputs(size: number): Array<[string, unknown, 'message' | 'modal']> {
  const s = bad(size);
  const out: Array<[string, unknown, 'message' | 'modal']> = [];
  const approvalStates: ApprovalCardState[] = [
    { kind: 'pending' },
    { kind: 'approved', by: [s, 'U0OK000001'], at },
    { kind: 'declined', by: s, reason: s, at },
    { kind: 'expired' },
    { kind: 'blocked' },
    { kind: 'cancelled', by: s },
  ];
  for (const state of approvalStates) {
    const blocks = approvalCard({
      actionId: 1,
      runId: s,
      toolCallId: s,
      toolName: s,
      args: { a: s, [s]: [s, { b: s }] },
      path: [s, s],
      requester: s,
      approvers: [s, 'U0OK000001'],
      quorum: 2,
      approvals: [s],
      expiresAt: at,
      fingerprint: s,
      policyVersion: s,
      state,
    });
    out.push([`approval ${state.kind}`, blocks, 'message']);
  }
  const questionStates: QuestionCardState[] = [
    { kind: 'pending' },
    { kind: 'answered', by: s, answer: s },
    { kind: 'answered', by: s, answer: [s, s] },
    { kind: 'cancelled' },
  ];
  for (const state of questionStates) {
    for (const n of [0, 3, 30, 130]) {
      for (const selectionMode of ['single_select', 'multi_select'] as const) {
        const options = Array.from({ length: n }, () => ({ label: s, description: s }));
        out.push([
          `question ${state.kind} ${n} ${selectionMode}`,
          questionCard({ actionId: 2, question: s, options, selectionMode, askedOf: s, state }),
          'message',
        ]);
      }
    }
  }
  const suspensionStates: SuspensionCardState[] = [
    { kind: 'pending' },
    { kind: 'answered', by: s, answer: { kind: 'value', text: s } },
    { kind: 'answered', by: s, answer: { kind: 'value', text: 'x' } },
    { kind: 'answered', by: s, answer: { kind: 'pairs', pairs: [{ label: s, value: s }, { label: 'Amount', value: s }] } },
    { kind: 'cancelled' },
  ];
  for (const state of suspensionStates) {
    for (const payload of [{ message: s, extra: s }, s, { other: s }, { question: s }]) {
      for (const confirmation of [false, true]) {
        out.push([
          `suspension ${state.kind} ${confirmation ? 'yes/no' : 'respond'}`,
          suspensionCard({ actionId: 3, toolName: s, path: [s, s], payload, respondable: true, confirmation, autoResume: true, state }),
          'message',
        ]);
      }
    }
  }
  out.push(['decline modal', declineModal({ actionId: 4, fingerprint: s, toolName: s }), 'modal']);
  out.push([
    'respond modal',
    respondModal({
      actionId: 5,
      toolName: s,
      // Field names come from an object's keys, so they are distinct.
      form: {
        fields: (['string', 'number', 'boolean', 'enum'] as const).map((type) => ({
          name: `${s} ${type}`,
          required: true,
          field: type === 'enum' ? { type, options: [{ value: s, label: s }, { value: `${s}2`, label: s }], description: s } : { type, description: s },
        })),
      },
    }),
    'modal',
  ]);
  return out;
}

describe('no model- or user-controlled string reaches mrkdwn unescaped', () => {
  for (const size of SIZES) {
    for (const [name, output, surface] of outputs(size)) {
      it(`${name} (×${size})`, () => {
        expect(surface === 'modal' ? viewLimitErrors(output, 'modal') : blockLimitErrors(output as unknown[])).toEqual([]);
        expectNoInjection(output, ['U0OK000001']);
        expectWellFormed(output);
        // The escaped form is what readers see in mrkdwn.
        const mrkdwn = textsIn(output).filter((t) => t.type === 'mrkdwn');
        expect(mrkdwn.some((t) => t.text.includes('&lt;!channel&gt;'))).toBe(true);
      });
    }
  }

  it('holds for converted and split model Markdown too', () => {
    const markdown = [
      `# ${INJECTION}`,
      `**${INJECTION}** _${INJECTION}_ ~~${INJECTION}~~ \`${INJECTION}\``,
      `- [${INJECTION}](https://ok.example/${INJECTION})`,
      `> ${INJECTION}`,
      '```',
      INJECTION,
      '```',
    ]
      .join('\n')
      .repeat(80);
    const chunks = splitMessage(markdownToMrkdwn(markdown));
    expect(chunks.length).toBeGreaterThan(1);
    const blocks = chunks.map((text) => ({ type: 'section', text: { type: 'mrkdwn', text, verbatim: true } }));
    expectNoInjection(blocks.slice(0, 4));
    expect(blockLimitErrors(blocks.slice(0, 4))).toEqual([]);
  });
});

describe('the injection check itself', () => {
  const section = (text: string, verbatim = true) => [{ type: 'section', text: { type: 'mrkdwn', text, verbatim } }];

  it('fails on each raw injection string in mrkdwn', () => {
    for (const injection of INJECTIONS) expect(() => expectNoInjection(section(`hi ${injection}`))).toThrow();
  });

  it('fails on a mention of someone not expected, an unknown token, an unclosed < and verbatim off', () => {
    expect(() => expectNoInjection(section('<@U0OTHER01>'), ['U0OK000001'])).toThrow();
    expect(() => expectNoInjection(section('<!date^1^x|y> <!everyone|x>'))).toThrow();
    expect(() => expectNoInjection(section('<@U0OK000001'), ['U0OK000001'])).toThrow();
    expect(() => expectNoInjection(section('fine', false))).toThrow();
  });

  it('passes escaped text, expected mentions and links', () => {
    expectNoInjection(section('&lt;!channel&gt; <@U0OK000001> <https://a.example|a> <!date^1^{time}|iso>'), ['U0OK000001']);
  });
});
