import { describe, expect, it } from 'vitest';
import { ModelCallError } from '../../../../src/agent/errors.js';
import { runFailureText } from '../../../../src/slack/thread/show-answer.js';

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
