import { Writable } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../../../src/logger.js';
import { HomeRefresher } from '../../../../src/slack/inbox/home-refresher.js';

const quiet = createLogger({ level: 'silent', name: 'test' }, new Writable({ write: (_c, _e, done) => done() }));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Waits until `check` passes: for the refresher's background work, however slow the machine. */
const settled = (check: () => void) => vi.waitFor(check, { timeout: 5_000, interval: 2 });
/** Lets what a resolved lookup set off (its enqueues) run before the test goes on. */
const afterCallbacks = () => new Promise((resolve) => setImmediate(resolve));

/** A refresher whose "database" of Home viewers starts with `viewers`. */
function recorder(options: { debounceMs?: number; minIntervalMs?: number; maxWaiting?: number; fail?: string; viewers?: string[]; gate?: () => Promise<void> } = {}) {
  const published: Array<{ user: string; notice?: string; at: number }> = [];
  const logged: Array<{ msg: string; data: Record<string, unknown> }> = [];
  const recorded: string[] = [];
  const logger = Object.assign(Object.create(quiet), {
    warn: (data: Record<string, unknown>, msg: string) => void logged.push({ msg, data }),
  }) as typeof quiet;
  const viewers = new Set(options.viewers ?? ['U0A', 'U0B', 'U0C']);
  const asked: Array<string[] | 'everyone'> = [];
  const home = new HomeRefresher({
    logger,
    debounceMs: options.debounceMs ?? 30,
    minIntervalMs: options.minIntervalMs ?? 0,
    ...(options.maxWaiting !== undefined ? { maxWaiting: options.maxWaiting } : {}),
    publish: async (user, notice) => {
      published.push({ user, ...(notice ? { notice } : {}), at: Date.now() });
      await options.gate?.();
      if (user === options.fail) throw new Error('ratelimited');
    },
    recordViewer: async (user) => {
      recorded.push(user);
      viewers.add(user);
    },
    viewersAmong: async (users) => {
      asked.push(users);
      return users === 'everyone' ? [...viewers] : users.filter((u) => viewers.has(u));
    },
  });
  return { home, published, asked, logged, recorded };
}

/** A publish that waits until the test lets it finish: what is queued meanwhile is in plain view. */
function gated() {
  let release: () => void = () => {};
  let held = new Promise<void>((resolve) => (release = resolve));
  return {
    gate: () => held,
    /** Lets the publish under way (and every later one) finish. */
    open: () => release(),
    /** Holds the next publishes again. */
    close: () => void (held = new Promise<void>((resolve) => (release = resolve))),
  };
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
    await settled(() => expect(published).toHaveLength(2));
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

  it('a flood of opens by one person is one publish of theirs waiting, and another person is served next', async () => {
    const g = gated();
    const { home, published, recorded } = recorder({ gate: g.gate });
    const flood = Array.from({ length: 150 }, () => home.opened('U0MALLORY'));
    await settled(() => expect(published).toHaveLength(1));
    // The first open is being published; the other 149 wait as one.
    expect(published.map((p) => p.user)).toEqual(['U0MALLORY']);
    const alice = home.opened('U0ALICE');
    const more = Array.from({ length: 50 }, () => home.opened('U0MALLORY'));
    g.open();
    await Promise.all([...flood, alice, ...more]);
    await home.flushNow();
    // Mallory's waiting publish kept the place it had before Alice asked; nothing more of his comes before her.
    expect(published.map((p) => p.user)).toEqual(['U0MALLORY', 'U0MALLORY', 'U0ALICE']);
    // Each wait recorded the viewer once, not once per event.
    expect(recorded.filter((u) => u === 'U0MALLORY').length).toBeLessThanOrEqual(2);
  });

  it('serves people round robin: someone asked for again after being served waits behind the others', async () => {
    const g = gated();
    const { home, published } = recorder({ gate: g.gate });
    void home.opened('U0A');
    await settled(() => expect(published).toHaveLength(1));
    for (const user of ['U0B', 'U0C', 'U0A', 'U0D']) void home.opened(user);
    g.open();
    await home.flushNow();
    expect(published.map((p) => p.user)).toEqual(['U0A', 'U0B', 'U0C', 'U0A', 'U0D']);
  });

  it('the newest notice wins, and a later plain refresh does not wipe a waiting notice', async () => {
    const g = gated();
    const { home, published, asked } = recorder({ gate: g.gate, debounceMs: 1, viewers: ['U0A', 'U0B'] });
    void home.opened('U0A');
    await settled(() => expect(published).toHaveLength(1));
    void home.notice('U0B', 'first');
    void home.notice('U0B', 'second');
    home.refresh(['U0B']);
    await settled(() => expect(asked).toHaveLength(1));
    await afterCallbacks();
    g.open();
    await home.flushNow();
    expect(published.map((p) => [p.user, p.notice])).toEqual([
      ['U0A', undefined],
      ['U0B', 'second'],
    ]);
  });

  it('bounds who waits: past the maximum the oldest background refresh is dropped and logged, while opens and notices are always served', async () => {
    const g = gated();
    const viewers = ['U0BUSY', 'U01', 'U02', 'U03', 'U04', 'U05'];
    const { home, published, logged, asked } = recorder({ gate: g.gate, debounceMs: 1, maxWaiting: 3, viewers });
    void home.opened('U0BUSY');
    await settled(() => expect(published).toHaveLength(1));
    home.refresh(['U01', 'U02', 'U03', 'U04', 'U05']);
    await settled(() => expect(asked).toHaveLength(1));
    await afterCallbacks();
    // Three wait; U01 and U02, the oldest background refreshes, were dropped to let U04 and U05 in.
    void home.opened('U0OPEN1');
    void home.opened('U0OPEN2');
    void home.opened('U0OPEN3');
    // A fourth open beyond the maximum still gets in (each open pushes out a background refresh while there is one).
    void home.opened('U0OPEN4');
    home.refresh(['U01']);
    await settled(() => expect(asked).toHaveLength(2));
    await afterCallbacks();
    g.open();
    await home.flushNow();
    expect(published.map((p) => p.user)).toEqual(['U0BUSY', 'U0OPEN1', 'U0OPEN2', 'U0OPEN3', 'U0OPEN4']);
    expect(logged.filter((l) => l.msg.startsWith('Home refresh dropped'))).toHaveLength(1);
    expect(logged.find((l) => l.msg.startsWith('Home refreshes dropped'))?.data).toMatchObject({ dropped: 6, maxWaiting: 3 });
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
