import { describe, expect, it } from 'vitest';
import { StreamSink } from '../../../../src/agent/stream.js';
import { LeaseLostError } from '../../../../src/agent/errors.js';
import { silentLogger } from '../../../../src/logger.js';
import { runInThread } from '../../../../src/slack/thread/run-in-thread.js';
import type { SlackContext } from '../../../../src/slack/context.js';

function context() {
  const posted: Array<{ channel: string; thread_ts?: string; text?: string }> = [];
  const ctx = {
    logger: silentLogger,
    client: { chat: { postMessage: async (args: { channel: string; text?: string }) => (posted.push(args), { ok: true, ts: '1.1' }) } },
  } as unknown as SlackContext;
  return { ctx, posted };
}

const target = { channel: 'C1', threadTs: '100.1' };

function endedWith(error: unknown) {
  const sink = new StreamSink('run-1');
  sink.push({ type: 'text-delta', runId: 'run-1', payload: { text: 'Deleting it now.' } });
  sink.finish('error', error);
  return sink.toStream();
}

describe('runInThread', () => {
  it('posts the text so far and a failure with a reference when the run fails', async () => {
    const { ctx, posted } = context();
    await runInThread(ctx, endedWith(new Error('boom')), target);
    expect(posted.map((p) => p.text)).toEqual(['Deleting it now.', expect.stringMatching(/Something went wrong.*Reference: `[^`]+`/)]);
    expect(posted.every((p) => p.channel === 'C1' && p.thread_ts === '100.1')).toBe(true);
  });

  it('posts nothing when another instance took the run over: that instance shows it in the thread', async () => {
    const { ctx, posted } = context();
    await runInThread(ctx, endedWith(new LeaseLostError('run-1')), target);
    expect(posted).toEqual([]);
  });
});
