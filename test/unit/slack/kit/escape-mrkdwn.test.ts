import { describe, expect, it } from 'vitest';
import { escapeMrkdwn } from '../../../../src/slack/kit/mrkdwn/escape-mrkdwn.js';

describe('escapeMrkdwn', () => {
  it('escapes &, < and > (ampersand first, so entities are not double-escaped)', () => {
    expect(escapeMrkdwn('a & b < c > d')).toBe('a &amp; b &lt; c &gt; d');
    expect(escapeMrkdwn('&lt;')).toBe('&amp;lt;');
  });

  it('neutralises every kind of mention token', () => {
    for (const token of ['<!channel>', '<!here>', '<!everyone>', '<@U123>', '<!subteam^S1|@ops>', '<#C1>']) {
      const escaped = escapeMrkdwn(token);
      expect(escaped).not.toContain('<');
      expect(escaped).not.toContain('>');
    }
    expect(escapeMrkdwn('<!channel>')).toBe('&lt;!channel&gt;');
  });

  it('leaves everything else alone', () => {
    expect(escapeMrkdwn('*bold* _it_ `code` 😀 "quotes"')).toBe('*bold* _it_ `code` 😀 "quotes"');
    expect(escapeMrkdwn('')).toBe('');
  });
});
