import { describe, expect, it } from 'vitest';
import { markdownToMrkdwn } from '../../../../src/slack/kit/mrkdwn/markdown-to-mrkdwn.js';
import { MAX_BLOCK, MAX_CONTAINERS, MAX_DELIMITERS, MAX_UNIT, parseUnits } from '../../../../src/slack/kit/mrkdwn/parse-units.js';

describe('parseUnits', () => {
  it('leaves a document of ordinary size whole', () => {
    const doc = '# Title\n\nSome **text**.\n\n- a\n- b\n\n```\ncode\n\nmore code\n```';
    expect(parseUnits(doc)).toEqual([{ text: doc, join: '\n' }]);
  });

  it('cuts a long document only at blank lines outside code, and converts it as the parts would be', () => {
    const paragraph = 'word '.repeat(199) + 'end';
    const fence = '```\n' + 'code line\n\n'.repeat(1000) + '```';
    const doc = [...Array(30).fill(paragraph), fence, ...Array(30).fill(paragraph)].join('\n\n');
    const units = parseUnits(doc);
    expect(units.length).toBeGreaterThan(2);
    expect(units.map((u) => u.text).join('\n')).toBe(doc);
    expect(units.every((u) => u.join === '\n' && u.text.length < MAX_UNIT + fence.length + 2)).toBe(true);
    // The fence, blank lines and all, stays in one unit.
    expect(units.filter((u) => u.text.includes('```'))).toHaveLength(1);
    expect(markdownToMrkdwn(doc)).toBe([...Array(30).fill(paragraph), markdownToMrkdwn(fence), ...Array(30).fill(paragraph)].join('\n\n'));
  });

  it('parses a paragraph over either budget in pieces, cut at line ends, or at spaces inside one line', () => {
    const lines = Array.from({ length: 100 }, (_, i) => `line ${i} ${'x'.repeat(60)}`);
    const units = parseUnits(lines.join('\n'));
    expect(units.length).toBeGreaterThan(1);
    expect(units.every((u) => u.text.length <= MAX_BLOCK && u.join === '\n')).toBe(true);
    expect(units.map((u) => u.text).join('\n')).toBe(lines.join('\n'));

    const long = '[x] '.repeat(MAX_DELIMITERS);
    const pieces = parseUnits(long);
    expect(pieces.length).toBeGreaterThan(1);
    expect(pieces.slice(1).every((u) => u.join === ' ')).toBe(true);
    expect(pieces.map((u) => u.text).join(' ')).toBe(long);
    expect(markdownToMrkdwn(long)).toBe(long.replace(/\s+$/, ''));
  });

  it('goes on with a second code block when a fence is longer than a unit', () => {
    const fence = '```\n' + 'code <line>\n'.repeat(MAX_UNIT / 10) + '```';
    const out = markdownToMrkdwn(fence);
    expect(out.match(/```/g)).toHaveLength(4);
    expect(out.split('\n').filter((line) => line === 'code &lt;line&gt;')).toHaveLength(MAX_UNIT / 10);
  });

  it(`keeps at most ${MAX_CONTAINERS} container markers on a line; the rest is text`, () => {
    expect(parseUnits('> '.repeat(12) + 'x')[0]!.text).toBe('> '.repeat(MAX_CONTAINERS) + '\\> > > > x');
    expect(parseUnits('1. '.repeat(10) + 'x')[0]!.text).toBe('1. '.repeat(MAX_CONTAINERS) + '1\\. 1. x');
    expect(markdownToMrkdwn('> '.repeat(12) + 'x')).toBe('> &gt; &gt; &gt; &gt; x');
    expect(markdownToMrkdwn('> > ok')).toBe('> ok');
  });
});
