import { describe, expect, it } from 'vitest';
import { againOnDeadlock } from '../../../../src/slack/card/cards.js';

const deadlock = () => Object.assign(new Error('deadlock detected'), { code: '40P01' });

describe('againOnDeadlock', () => {
  it('runs the work again when PostgreSQL ended it to break a deadlock, and gives its result', async () => {
    let runs = 0;
    const result = await againOnDeadlock(async () => {
      runs += 1;
      if (runs < 3) throw deadlock();
      return 'moved';
    });
    expect({ result, runs }).toEqual({ result: 'moved', runs: 3 });
  });

  it('gives up after the attempts it was given, with the last deadlock', async () => {
    let runs = 0;
    const failing = againOnDeadlock(async () => {
      runs += 1;
      throw deadlock();
    }, 2);
    await expect(failing).rejects.toMatchObject({ code: '40P01' });
    expect(runs).toBe(2);
  });

  it('does not run again after any other error', async () => {
    let runs = 0;
    const failing = againOnDeadlock(async () => {
      runs += 1;
      throw Object.assign(new Error('duplicate key'), { code: '23505' });
    });
    await expect(failing).rejects.toThrow('duplicate key');
    expect(runs).toBe(1);
  });
});
