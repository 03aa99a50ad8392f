import { describe, expect, it } from 'vitest';
import { safeText } from '../../../../src/slack/thread/answer-stream.js';
import { AssistantSupport } from '../../../../src/slack/thread/assistant-status.js';

describe('streamed answer text', () => {
  it('defuses Slack markup a model writes, leaving other angle brackets alone', () => {
    expect(safeText('hi <!channel> and <@U0X> in <#C0Y>')).toBe('hi <\u200b!channel> and <\u200b@U0X> in <\u200b#C0Y>');
    expect(safeText('a < b, x<y, <https://e.example>')).toBe('a < b, x<y, <https://e.example>');
  });

  it('maps every prefix of the input to a prefix of the output, so pieces can be sent as they come', () => {
    const text = 'x <!here> y <@U1> <';
    for (let i = 0; i <= text.length; i++) {
      const head = safeText(text.slice(0, i));
      const trimmed = head.endsWith('<') ? head.slice(0, -1) : head;
      expect(safeText(text).startsWith(trimmed)).toBe(true);
    }
  });
});

describe('AssistantSupport', () => {
  it('tries only in threads: auto in DMs, on everywhere, off never; unknown_method and missing_scope stop a feature for good', () => {
    const auto = new AssistantSupport('auto');
    expect(auto.tries('stream', { channel: 'D0A', threadTs: '1.2' })).toBe(true);
    expect(auto.tries('stream', { channel: 'C0A', threadTs: '1.2' })).toBe(false);
    expect(auto.tries('stream', { channel: 'D0A' })).toBe(false);
    const on = new AssistantSupport('on');
    expect(on.tries('status', { channel: 'C0A', threadTs: '1.2' })).toBe(true);
    on.failed('status', 'invalid_arguments');
    on.failed('status', 'not_allowed_token_type');
    expect(on.tries('status', { channel: 'C0A', threadTs: '1.2' })).toBe(true);
    on.failed('status', 'missing_scope');
    expect(on.tries('status', { channel: 'C0A', threadTs: '1.2' })).toBe(false);
    expect(on.tries('stream', { channel: 'C0A', threadTs: '1.2' })).toBe(true);
    on.failed('stream', 'unknown_method');
    expect(on.isRefused('stream')).toBe(true);
    expect(new AssistantSupport('off').tries('stream', { channel: 'D0A', threadTs: '1.2' })).toBe(false);
  });
});
