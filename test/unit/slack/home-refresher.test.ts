import { describe, expect, it } from 'vitest';
import { HomeRefresher } from '../../../src/slack/home/home-refresher.js';
import { createLogger } from '../../../src/logger.js';
import { Writable } from 'node:stream';

const quiet = createLogger({ level: 'silent', name: 'test' }, new Writable({ write: (_c, _e, done) => done() }));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function recorder(options: { debounceMs?: number; minIntervalMs?: number; fail?: string } = {}) {
  const published: Array<{ user: string; notice?: string; at: number }> = [];
  const home = new HomeRefresher({
    logger: quiet,
    debounceMs: options.debounceMs ?? 30,
    minIntervalMs: options.minIntervalMs ?? 0,
    publish: async (user, notice) => {
      published.push({ user, ...(notice ? { notice } : {}), at: Date.now() });
      if (user === options.fail) throw new Error('ratelimited');
    },
  });
  return { home, published };
}

describe('HomeRefresher', () => {
  it('coalesces a burst of changes into one publish per person, after the debounce', async () => {
    const { home, published } = recorder();
    for (let i = 0; i < 20; i++) home.refresh(['U0A', 'U0B']);
    home.refresh(['U0A', 'U0C']);
    expect(published).toEqual([]);
    await sleep(80);
    await home.flushNow();
    expect(published.map((p) => p.user).sort()).toEqual(['U0A', 'U0B', 'U0C']);
  });

  it('spaces publishes to stay under views.publish’s rate limit', async () => {
    const { home, published } = recorder({ minIntervalMs: 40 });
    home.refresh(['U0A', 'U0B', 'U0C']);
    await home.flushNow();
    const gaps = published.slice(1).map((p, i) => p.at - published[i]!.at);
    expect(published).toHaveLength(3);
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(35);
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

  it('opened publishes at once and remembers the viewer; a notice is published at once, with its text', async () => {
    const { home, published } = recorder({ debounceMs: 10_000 });
    await home.opened('U0A');
    await home.notice('U0B', 'Only listed approvers can approve delete_record.');
    expect(published.map((p) => [p.user, p.notice])).toEqual([
      ['U0A', undefined],
      ['U0B', 'Only listed approvers can approve delete_record.'],
    ]);
    expect(home.knownViewers()).toEqual(['U0A']);
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
