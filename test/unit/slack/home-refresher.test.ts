import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/logger.js';
import { HomeRefresher } from '../../../src/slack/home/home-refresher.js';

const quiet = createLogger({ level: 'silent', name: 'test' }, new Writable({ write: (_c, _e, done) => done() }));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A refresher whose "database" of Home viewers starts with `viewers`. */
function recorder(options: { debounceMs?: number; minIntervalMs?: number; fail?: string; viewers?: string[] } = {}) {
  const published: Array<{ user: string; notice?: string; at: number }> = [];
  const viewers = new Set(options.viewers ?? ['U0A', 'U0B', 'U0C']);
  const asked: Array<string[] | 'everyone'> = [];
  const home = new HomeRefresher({
    logger: quiet,
    debounceMs: options.debounceMs ?? 30,
    minIntervalMs: options.minIntervalMs ?? 0,
    publish: async (user, notice) => {
      published.push({ user, ...(notice ? { notice } : {}), at: Date.now() });
      if (user === options.fail) throw new Error('ratelimited');
    },
    recordViewer: async (user) => void viewers.add(user),
    viewersAmong: async (users) => {
      asked.push(users);
      return users === 'everyone' ? [...viewers] : users.filter((u) => viewers.has(u));
    },
  });
  return { home, published, asked };
}

describe('HomeRefresher', () => {
  it('coalesces a burst of changes into one publish per person, after the debounce, and one viewer lookup', async () => {
    const { home, published, asked } = recorder();
    for (let i = 0; i < 20; i++) home.refresh(['U0A', 'U0B']);
    home.refresh(['U0A', 'U0C']);
    expect(published).toEqual([]);
    await sleep(80);
    await home.flushNow();
    expect(published.map((p) => p.user).sort()).toEqual(['U0A', 'U0B', 'U0C']);
    expect(asked).toHaveLength(1);
  });

  it('publishes only people who have a Home (they opened it once), or every viewer when anyone may decide', async () => {
    const { home, published } = recorder({ viewers: ['U0A'] });
    home.refresh(['U0A', 'U0NEVER']);
    await sleep(60);
    await home.flushNow();
    expect(published.map((p) => p.user)).toEqual(['U0A']);
    await home.opened('U0NEW');
    home.refresh([], true);
    await sleep(60);
    await home.flushNow();
    expect(published.map((p) => p.user)).toEqual(['U0A', 'U0NEW', 'U0A', 'U0NEW']);
  });

  it('spaces publishes to stay under views.publish’s rate limit', async () => {
    const { home, published } = recorder({ minIntervalMs: 40 });
    home.refresh(['U0A', 'U0B', 'U0C']);
    await home.flushNow();
    expect(published).toHaveLength(3);
    for (let i = 1; i < published.length; i++) expect(published[i]!.at - published[i - 1]!.at).toBeGreaterThanOrEqual(35);
  });

  it('a person who changes while a publish is under way is published again, and a failed publish does not stop the others', async () => {
    const { home, published } = recorder({ fail: 'U0A' });
    home.refresh(['U0A', 'U0B']);
    await sleep(50);
    home.refresh(['U0A']);
    await sleep(80);
    await home.flushNow();
    expect(published.map((p) => p.user)).toEqual(['U0A', 'U0B', 'U0A']);
  });

  it('a notice is published at once, with its text', async () => {
    const { home, published } = recorder({ debounceMs: 10_000 });
    await home.notice('U0B', 'Only listed approvers can approve delete_record.');
    expect(published.map((p) => [p.user, p.notice])).toEqual([['U0B', 'Only listed approvers can approve delete_record.']]);
  });

  it('publishes nothing after stop', async () => {
    const { home, published } = recorder();
    home.refresh(['U0A']);
    home.stop();
    home.refresh(['U0B']);
    await sleep(60);
    expect(published).toEqual([]);
  });
});
