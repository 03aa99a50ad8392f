import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { splitMessage } from '../../../../src/slack/kit/mrkdwn/split-message.js';

const fences = (text: string): number => text.split('```').length - 1;
/** What a reader sees, ignoring whitespace and the fences a split adds. */
const content = (text: string): string => text.replace(/```/g, '').replace(/\s+/g, '');

describe('splitMessage', () => {
  it('returns short text unchanged and nothing for blank text', () => {
    expect(splitMessage('hello\n\nworld')).toEqual(['hello\n\nworld']);
    expect(splitMessage('   \n ')).toEqual([]);
    expect(splitMessage('x'.repeat(3000))).toEqual(['x'.repeat(3000)]);
  });

  it('defaults to the 3000-character section limit', () => {
    const chunks = splitMessage(('word '.repeat(199) + 'end\n\n').repeat(10));
    expect(chunks.length).toBeGreaterThan(1);
    for (const chunk of chunks) expect(chunk.length).toBeLessThanOrEqual(3000);
  });

  it('prefers paragraph boundaries', () => {
    const a = 'a'.repeat(30);
    const b = 'b'.repeat(30);
    const c = 'c'.repeat(30);
    expect(splitMessage(`${a}\n\n${b}\n\n${c}`, 70)).toEqual([`${a}\n\n${b}`, c]);
  });

  it('then line boundaries', () => {
    const lines = ['1'.repeat(30), '2'.repeat(30), '3'.repeat(30)];
    expect(splitMessage(lines.join('\n'), 70)).toEqual([`${lines[0]}\n${lines[1]}`, lines[2]]);
  });

  it('then word boundaries, then hard cuts', () => {
    expect(splitMessage('alpha beta gamma delta epsilon', 16)).toEqual(['alpha beta gamma', 'delta epsilon']);
    expect(splitMessage('x'.repeat(40), 16)).toEqual(['x'.repeat(16), 'x'.repeat(16), 'x'.repeat(8)]);
  });

  it('never cuts a <…> link or mention, nor an entity', () => {
    const link = '<https://example.com/a|a label with spaces>';
    const chunks = splitMessage(`${'w '.repeat(20)}${link} tail`, 50);
    expect(chunks.some((c) => c.includes(link))).toBe(true);
    const entities = splitMessage('&amp;'.repeat(10), 17);
    for (const chunk of entities) expect(chunk).toMatch(/^(&amp;)+$/);
  });

  it('closes and reopens a code block it has to cut', () => {
    const code = '```\n' + Array.from({ length: 10 }, (_, i) => `line ${i} ${'x'.repeat(10)}`).join('\n') + '\n```';
    const chunks = splitMessage(`intro\n\n${code}\n\noutro`, 60);
    for (const chunk of chunks) {
      expect(chunk.length).toBeLessThanOrEqual(60);
      expect(fences(chunk) % 2).toBe(0);
    }
    expect(chunks.filter((c) => c.startsWith('```\n')).length).toBeGreaterThan(1);
    expect(content(chunks.join('\n'))).toBe(content(`intro\n\n${code}\n\noutro`));
  });

  it('keeps a code block whole when it fits in a chunk of its own', () => {
    const code = '```\n' + 'a\n\nb\n\nc' + '\n```';
    const chunks = splitMessage(`${'p'.repeat(40)}\n\n${code}`, 45);
    expect(chunks).toEqual(['p'.repeat(40), code]);
  });

  it('rejects limits too small to hold a reopened fence', () => {
    expect(() => splitMessage('x', 8)).toThrow(RangeError);
  });

  it('property: chunks fit, fences balance, and nothing is lost or reordered', () => {
    const paragraph = fc
      .array(fc.oneof(fc.stringMatching(/^[a-z&;<>|.]{1,12}$/), fc.constant('<https://a.example/x|two words>')), {
        minLength: 1,
        maxLength: 40,
      })
      .map((words) => words.join(' '));
    const codeBlock = fc
      .array(fc.stringMatching(/^[a-z =;]{0,70}$/), { minLength: 0, maxLength: 30 })
      .map((lines) => ['```', ...lines, '```'].join('\n'));
    const doc = fc
      .array(fc.oneof(paragraph, codeBlock), { minLength: 1, maxLength: 12 })
      .map((parts) => parts.join('\n\n'));
    fc.assert(
      fc.property(doc, fc.integer({ min: 40, max: 400 }), (text, limit) => {
        const chunks = splitMessage(text, limit);
        for (const chunk of chunks) {
          expect(chunk.length).toBeLessThanOrEqual(limit);
          expect(fences(chunk) % 2).toBe(0);
          expect(chunk.trim()).not.toBe('');
        }
        expect(content(chunks.join('\n'))).toBe(content(text));
      }),
      { numRuns: 300 },
    );
  });
});
