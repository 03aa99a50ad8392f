import { get, type IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../helpers/sandbox/harness.js';

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ echoBotMessages: false });
});
afterAll(async () => {
  await h.close();
});

interface Frame {
  event: string;
  data: any;
}

/** Reads the event stream frame by frame, the way EventSource does. */
function subscribe(url: string): Promise<{ response: IncomingMessage; next(predicate: (f: Frame) => boolean): Promise<Frame>; close(): void }> {
  return new Promise((resolve, reject) => {
    const req = get(url, (response) => {
      let buffer = '';
      const frames: Frame[] = [];
      const waiters: Array<() => void> = [];
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        buffer += chunk;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const event = /^event: (.*)$/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (event && data) frames.push({ event, data: JSON.parse(data) });
        }
        waiters.splice(0).forEach((w) => w());
      });
      resolve({
        response,
        next(predicate) {
          return new Promise((done, fail) => {
            const timer = setTimeout(() => fail(new Error(`no matching frame; saw ${frames.map((f) => f.event).join(', ')}`)), 5000);
            const check = () => {
              const i = frames.findIndex(predicate);
              if (i >= 0) {
                clearTimeout(timer);
                done(frames.splice(i, 1)[0]!);
              } else waiters.push(check);
            };
            check();
          });
        },
        close: () => req.destroy(),
      });
    });
    req.on('error', reject);
  });
}

describe('live updates over server-sent events', () => {
  it('pushes the new message when the bot posts, and the redrawn card when it calls chat.update', async () => {
    const stream = await subscribe(`${h.sandbox.url}/events/stream`);
    try {
      expect(stream.response.headers['content-type']).toContain('text/event-stream');
      await stream.next((f) => f.event === 'hello');

      const posted = await h.client.chat.postMessage({ channel: 'C0GENERAL', text: 'pending', blocks: [{ type: 'section', text: { type: 'mrkdwn', text: 'pending' } }] });
      const added = await stream.next((f) => f.event === 'message' && f.data.message.ts === posted.ts);
      expect(added.data).toMatchObject({ kind: 'message', channel: 'C0GENERAL', seq: expect.any(Number), message: { text: 'pending' } });

      await h.client.chat.update({ channel: 'C0GENERAL', ts: posted.ts!, text: 'approved', blocks: [{ type: 'section', text: { type: 'mrkdwn', text: ':white_check_mark: Approved' } }] });
      const updated = await stream.next((f) => f.event === 'message' && f.data.message.text === 'approved');
      expect(updated.data.message).toMatchObject({ ts: posted.ts, edited: { user: 'U0BOT' }, blocks: [{ text: { text: ':white_check_mark: Approved' } }] });
      expect(updated.data.seq).toBeGreaterThan(added.data.seq);

      await h.client.reactions.add({ channel: 'C0GENERAL', timestamp: posted.ts!, name: 'eyes' });
      const reacted = await stream.next((f) => f.event === 'message' && f.data.message.reactions !== undefined);
      expect(reacted.data.message.reactions).toEqual([{ name: 'eyes', users: ['U0BOT'], count: 1 }]);

      await h.client.chat.postEphemeral({ channel: 'C0GENERAL', user: 'U0BOB', text: 'psst' });
      const ephemeral = await stream.next((f) => f.event === 'ephemeral');
      expect(ephemeral.data.ephemeral).toMatchObject({ user: 'U0BOB', text: 'psst' });
    } finally {
      stream.close();
    }
  });

  it('gives a snapshot whose seq tells which pushed changes it already holds', async () => {
    const before = (await (await fetch(`${h.sandbox.url}/ui/state?user=U0ALICE`)).json()) as any;
    await h.client.chat.postMessage({ channel: 'C0GENERAL', text: 'after the snapshot' });
    const after = (await (await fetch(`${h.sandbox.url}/ui/state?user=U0ALICE`)).json()) as any;
    expect(after.seq).toBeGreaterThan(before.seq);
    expect(after.messages.some((m: { text: string }) => m.text === 'after the snapshot')).toBe(true);
    // Alice's snapshot holds her own DM, never Bob's.
    expect(after.channels.map((c: { id: string }) => c.id)).toEqual(['C0GENERAL', 'D0ALICE']);
  });
});
