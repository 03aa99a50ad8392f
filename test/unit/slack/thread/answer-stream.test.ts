import { describe, expect, it } from 'vitest';
import { safeText, runFailureText } from '../../../../src/slack/thread/answer-stream.js';
import { AssistantSupport } from '../../../../src/slack/thread/assistant-status.js';
import { ModelCallError } from '../../../../src/agent/errors.js';

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

describe('runFailureText', () => {
  const details = { runId: 'r', agentId: 'ops', model: 'openai.responses/gpt-5-mini', step: 1, attempts: 1 };

  it('names the model and its HTTP status, never the provider\'s message', () => {
    const error = new ModelCallError(Object.assign(new Error('Incorrect API key provided: sk-ab***yz'), { statusCode: 401 }), details);
    const text = runFailureText(error, 'abcd1234');
    expect(text).toBe(':warning: Something went wrong while working on this: the model `openai.responses/gpt-5-mini` did not answer (HTTP 401). Reference: `abcd1234`');
    expect(text).not.toContain('sk-');
  });

  it('leaves the status out when there was no HTTP answer, and escapes a model name that is not plain', () => {
    const text = runFailureText(new ModelCallError(new TypeError('fetch failed'), { ...details, model: 'local/<!channel>`x`' }), 'abcd1234');
    expect(text).toContain('the model `local/&lt;!channel&gt;ˋxˋ` did not answer. Reference');
  });

  it('says only that something went wrong for any other failure', () => {
    expect(runFailureText(new Error('model exploded with secret xoxb-1'), 'abcd1234')).toBe(':warning: Something went wrong while working on this. Reference: `abcd1234`');
  });
});
