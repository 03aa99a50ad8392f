import { describe, expect, it } from 'vitest';
import { MessageStore, TsClock, type MessageChange } from '../../../src/simulator/index.js';

function storeWithChanges() {
  const changes: MessageChange[] = [];
  const now = 1_726_133_700_000;
  const store = new MessageStore(new TsClock(() => now), (c) => changes.push(c));
  return { store, changes };
}

describe('MessageStore: the one store of messages, threads and reactions', () => {
  it('keeps the thread root summary through replies and deletions, as Slack reports it', () => {
    const { store } = storeWithChanges();
    const root = store.add({ channel: 'C1', text: 'root', user: 'U0ALICE' });
    const r1 = store.add({ channel: 'C1', text: 'one', user: 'U0BOB', thread_ts: root.ts });
    const r2 = store.add({ channel: 'C1', text: 'two', user: 'U0BOT', bot_id: 'B0BOT', thread_ts: root.ts });
    expect(r1.parent_user_id).toBe('U0ALICE');
    expect(store.message('C1', root.ts)).toMatchObject({ thread_ts: root.ts, reply_count: 2, reply_users: ['U0BOB', 'U0BOT'], reply_users_count: 2, latest_reply: r2.ts });
    store.remove('C1', r2.ts);
    expect(store.message('C1', root.ts)).toMatchObject({ reply_count: 1, reply_users: ['U0BOB'], latest_reply: r1.ts });
    store.remove('C1', r1.ts);
    const bare = store.message('C1', root.ts)!;
    expect(bare.reply_count).toBeUndefined();
    expect(bare.thread_ts).toBeUndefined();
    expect(store.thread('C1', root.ts).map((m) => m.text)).toEqual(['root']);
  });

  it('orders by ts, and a message brought with its own ts pushes later ones after it', () => {
    const { store } = storeWithChanges();
    const seeded = store.add({ channel: 'C1', text: 'from the future', ts: '1900000000.000001' });
    const next = store.add({ channel: 'C1', text: 'next' });
    expect(Number(next.ts)).toBeGreaterThan(Number(seeded.ts));
    store.add({ channel: 'C1', text: 'from the past', ts: '1000000000.000001' });
    expect(store.messages('C1').map((m) => m.text)).toEqual(['from the past', 'from the future', 'next']);
  });

  it('reacts per person: a second identical reaction and removing a missing one change nothing', () => {
    const { store, changes } = storeWithChanges();
    const m = store.add({ channel: 'C1', text: 'x' });
    expect(store.react('C1', m.ts, 'eyes', 'U1', true)).toBe(true);
    expect(store.react('C1', m.ts, 'eyes', 'U2', true)).toBe(true);
    expect(store.react('C1', m.ts, 'eyes', 'U1', true)).toBe(false);
    expect(store.message('C1', m.ts)?.reactions).toEqual([{ name: 'eyes', users: ['U1', 'U2'], count: 2 }]);
    expect(store.react('C1', m.ts, 'eyes', 'U1', false)).toBe(true);
    expect(store.react('C1', m.ts, 'eyes', 'U2', false)).toBe(true);
    expect(store.react('C1', m.ts, 'tada', 'U2', false)).toBe(false);
    expect(store.message('C1', m.ts)?.reactions).toBeUndefined();
    expect(store.react('C1', '1.000001', 'eyes', 'U1', true)).toBe(false);
    // The add itself, then the four reactions that changed something.
    expect(changes.filter((c) => c.kind === 'message')).toHaveLength(5);
  });

  it('announces every change, deletions by channel and ts', () => {
    const { store, changes } = storeWithChanges();
    const m = store.add({ channel: 'C1', text: 'x' });
    store.update('C1', m.ts, { text: 'y' });
    store.remove('C1', m.ts);
    expect(changes.map((c) => c.kind)).toEqual(['message', 'message', 'message_deleted']);
    expect(changes[1]).toMatchObject({ kind: 'message', message: { text: 'y' } });
    expect(store.update('C1', m.ts, { text: 'z' })).toBeUndefined();
  });
});
