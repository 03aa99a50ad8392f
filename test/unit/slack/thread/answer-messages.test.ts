import { describe, expect, it } from 'vitest';
import { LIMITS } from '../../../../src/slack/kit/limits.js';
import { blockLimitErrors } from '../../../../src/simulator/index.js';
import { answerMessages } from '../../../../src/slack/thread/answer-stream.js';

describe('answerMessages', () => {
  it('keeps a short answer in one message', () => {
    const [only, ...rest] = answerMessages('Deleted **abc**.');
    expect(rest).toEqual([]);
    expect(only!.blocks).toEqual([{ type: 'section', text: { type: 'mrkdwn', text: 'Deleted *abc*.', verbatim: true } }]);
  });

  it('splits a long answer into messages that each pass every limit, losing nothing', () => {
    const paragraph = (i: number) => `Paragraph ${i}: ${'word "quoted" & <escaped> '.repeat(40)}`;
    const markdown = Array.from({ length: 60 }, (_, i) => paragraph(i)).join('\n\n');
    const messages = answerMessages(markdown);
    expect(messages.length).toBeGreaterThan(1);
    for (const m of messages) {
      expect(blockLimitErrors(m.blocks)).toEqual([]);
      expect(m.text.length).toBeLessThanOrEqual(400);
      expect(m.text).not.toMatch(/<escaped>/);
    }
    const shown = messages.flatMap((m) => m.blocks.map((b) => b.text!.text)).join('\n');
    for (let i = 0; i < 60; i++) expect(shown).toContain(`Paragraph ${i}:`);
    expect(messages.every((m) => JSON.stringify(m.blocks).length <= LIMITS.messageBlocksJson)).toBe(true);
  });

  it('sends nothing for an empty answer', () => {
    expect(answerMessages('  \n ')).toEqual([]);
  });
});
