import { describe, expect, it } from 'vitest';
import { truncate, truncateMrkdwn } from '../../../../src/slack/kit/limits.js';

const x = (n: number) => 'x'.repeat(n);

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
