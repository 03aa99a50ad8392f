import { describe, expect, it } from 'vitest';
import { CardLifecycle } from '../../../../src/slack/card/lifecycle.js';

function deferred() {
  let settle!: () => void;
  const promise = new Promise<void>((resolve) => (settle = resolve));
  return { promise, settle };
}

describe('CardLifecycle', () => {
  it('a redraw waits for a post under way and tells the poster; a finished post is forgotten', async () => {
    const cards = new CardLifecycle();
    const post = deferred();
    const posting = cards.startPosting([1, 2], post.promise, post.promise);
    const waiting = cards.redrawAfterPost(2);
    expect(posting.redrawWaiting).toBe(true);
    post.settle();
    await expect(waiting).resolves.toBe(true);
    posting.finish();
    await expect(cards.redrawAfterPost(2)).resolves.toBe(false);
  });

  it('a click waits until the card being posted is stored, and for nothing else', async () => {
    const cards = new CardLifecycle();
    const stored = deferred();
    cards.startPosting([5], new Promise(() => undefined), stored.promise);
    let through = false;
    const click = cards.whenStored([5, 6]).then(() => (through = true));
    await Promise.resolve();
    expect(through).toBe(false);
    stored.settle();
    await click;
    await cards.whenStored([6]);
  });

  it('counts decisions under way per request until each says it is done (twice is harmless)', () => {
    const cards = new CardLifecycle();
    const first = cards.markDeciding(3);
    const second = cards.markDeciding(3);
    first();
    first();
    expect(cards.isDeciding(3)).toBe(true);
    second();
    expect(cards.isDeciding(3)).toBe(false);
  });

  it('runs redraws of one card one after the other, the later one told it waited, even after a failure', async () => {
    const cards = new CardLifecycle();
    const gate = deferred();
    const order: string[] = [];
    const first = cards.redrawInTurn(9, async (waited) => {
      await gate.promise;
      order.push(`first waited=${waited}`);
      throw new Error('draw failed');
    });
    const second = cards.redrawInTurn(9, async (waited) => (order.push(`second waited=${waited}`), 'drawn'));
    const other = cards.redrawInTurn(10, async (waited) => (order.push(`other waited=${waited}`), 'other'));
    await other;
    gate.settle();
    await expect(first).rejects.toThrow('draw failed');
    await expect(second).resolves.toBe('drawn');
    expect(order).toEqual(['other waited=false', 'first waited=false', 'second waited=true']);
  });
});
