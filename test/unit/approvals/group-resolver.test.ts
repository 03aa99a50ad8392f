import { describe, expect, it, vi } from 'vitest';
import { cachedGroupResolver } from '../../../src/approvals/group-resolver.js';

function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (reason: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe('cachedGroupResolver', () => {
  it('caches members per group', async () => {
    const fetchMembers = vi.fn(async (groupId: string) => [`${groupId}-member`]);
    const resolve = cachedGroupResolver(fetchMembers);
    expect(await resolve('S1')).toEqual(['S1-member']);
    expect(await resolve('S1')).toEqual(['S1-member']);
    expect(await resolve('S2')).toEqual(['S2-member']);
    expect(fetchMembers.mock.calls).toEqual([['S1'], ['S2']]);
  });

  it('fetches again once the TTL has passed', async () => {
    let now = 1_000;
    const fetchMembers = vi.fn(async () => ['U1']);
    const resolve = cachedGroupResolver(fetchMembers, { ttlMs: 500, now: () => now });
    await resolve('S1');
    now = 1_499;
    await resolve('S1');
    expect(fetchMembers).toHaveBeenCalledTimes(1);
    now = 1_500;
    await resolve('S1');
    expect(fetchMembers).toHaveBeenCalledTimes(2);
  });

  it('defaults to a one-minute TTL', async () => {
    let now = 0;
    const fetchMembers = vi.fn(async () => ['U1']);
    const resolve = cachedGroupResolver(fetchMembers, { now: () => now });
    await resolve('S1');
    now = 59_999;
    await resolve('S1');
    expect(fetchMembers).toHaveBeenCalledTimes(1);
    now = 60_000;
    await resolve('S1');
    expect(fetchMembers).toHaveBeenCalledTimes(2);
  });

  it('does not cache failures', async () => {
    const fetchMembers = vi
      .fn<(groupId: string) => Promise<string[]>>()
      .mockRejectedValueOnce(new Error('ratelimited'))
      .mockResolvedValueOnce(['U1']);
    const resolve = cachedGroupResolver(fetchMembers);
    await expect(resolve('S1')).rejects.toThrow('ratelimited');
    expect(await resolve('S1')).toEqual(['U1']);
    expect(fetchMembers).toHaveBeenCalledTimes(2);
  });

  it('does not cache a fetch that throws synchronously', async () => {
    let calls = 0;
    const resolve = cachedGroupResolver((): Promise<string[]> => {
      calls += 1;
      if (calls === 1) throw new Error('bad token');
      return Promise.resolve(['U1']);
    });
    await expect(resolve('S1')).rejects.toThrow('bad token');
    expect(await resolve('S1')).toEqual(['U1']);
  });

  it('shares one request between concurrent lookups of the same group', async () => {
    const pending = deferred<string[]>();
    const fetchMembers = vi.fn(() => pending.promise);
    const resolve = cachedGroupResolver(fetchMembers);
    const lookups = [resolve('S1'), resolve('S1'), resolve('S1')];
    pending.resolve(['U1', 'U2']);
    expect(await Promise.all(lookups)).toEqual([
      ['U1', 'U2'],
      ['U1', 'U2'],
      ['U1', 'U2'],
    ]);
    expect(fetchMembers).toHaveBeenCalledTimes(1);
  });

  it('shares a failure between concurrent lookups, then tries again', async () => {
    const first = deferred<string[]>();
    const fetchMembers = vi
      .fn<(groupId: string) => Promise<string[]>>()
      .mockReturnValueOnce(first.promise)
      .mockResolvedValueOnce(['U1']);
    const resolve = cachedGroupResolver(fetchMembers);
    const a = resolve('S1');
    const b = resolve('S1');
    first.reject(new Error('timeout'));
    await expect(a).rejects.toThrow('timeout');
    await expect(b).rejects.toThrow('timeout');
    expect(await resolve('S1')).toEqual(['U1']);
    expect(fetchMembers).toHaveBeenCalledTimes(2);
  });

  it('hands out copies, so a caller cannot corrupt the cache', async () => {
    const resolve = cachedGroupResolver(async () => ['U1']);
    const members = await resolve('S1');
    members.push('U0MALLORY');
    expect(await resolve('S1')).toEqual(['U1']);
  });

  it('rejects a negative TTL', () => {
    expect(() => cachedGroupResolver(async () => [], { ttlMs: -1 })).toThrow(RangeError);
  });
});
