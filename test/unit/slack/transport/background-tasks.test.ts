import { describe, expect, it, vi } from 'vitest';
import { silentLogger } from '../../../../src/logger.js';
import { BackgroundTasks, TaskLane } from '../../../../src/slack/transport/background-tasks.js';
import type { InboundRequests } from '../../../../src/slack/transport/inbound-requests.js';

/** Stands in for the HTTP server's count of requests received and not yet answered. */
function fakeInbound(): InboundRequests & { set(n: number): void } {
  let pending = 0;
  const listeners: Array<() => void> = [];
  return {
    get pending() {
      return pending;
    },
    onIdle: (listener) => void listeners.push(listener),
    set(n) {
      pending = n;
      if (n === 0) for (const l of listeners) l();
    },
  };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

describe('BackgroundTasks', () => {
  it('starts work at once when nothing is waiting for an ack, and logs a failure with a reference for onError', async () => {
    const tasks = new BackgroundTasks(silentLogger);
    const started: string[] = [];
    tasks.run('a', async () => void started.push('a'));
    expect(started).toEqual(['a']);
    const refs: string[] = [];
    tasks.run('b', async () => Promise.reject(new Error('boom')), async (ref) => void refs.push(ref));
    await tasks.drain();
    expect(refs).toHaveLength(1);
    expect(refs[0]).toMatch(/\S/);
    expect(tasks.size).toBe(0);
  });

  it('with ackFirst, holds work while requests are unanswered and starts it, in order, once they all are', async () => {
    const inbound = fakeInbound();
    const tasks = new BackgroundTasks(silentLogger, 60_000);
    tasks.ackFirst(inbound);
    const started: string[] = [];
    inbound.set(3);
    tasks.run('first', async () => void started.push('first'));
    inbound.set(2);
    tasks.run('second', async () => void started.push('second'));
    await tick();
    expect(started).toEqual([]);
    expect(tasks.size).toBe(2);

    inbound.set(1);
    await tick();
    expect(started).toEqual([]);
    inbound.set(0);
    await tasks.drain();
    expect(started).toEqual(['first', 'second']);

    // Nothing unanswered: no wait.
    tasks.run('third', async () => void started.push('third'));
    expect(started).toEqual(['first', 'second', 'third']);
  });

  it('drain() waits for held work too', async () => {
    const inbound = fakeInbound();
    const tasks = new BackgroundTasks(silentLogger, 60_000);
    tasks.ackFirst(inbound);
    inbound.set(1);
    let ran = false;
    tasks.run('held', async () => void (ran = true));
    const drained = tasks.drain().then(() => ran);
    await tick();
    inbound.set(0);
    expect(await drained).toBe(true);
  });

  it('starts held work after maxHoldMs even if requests keep coming', async () => {
    const inbound = fakeInbound();
    const tasks = new BackgroundTasks(silentLogger, 200);
    tasks.ackFirst(inbound);
    inbound.set(5);
    const t0 = performance.now();
    let startedAfter: number | undefined;
    tasks.run('held', async () => void (startedAfter = performance.now() - t0));
    await Promise.resolve();
    expect(startedAfter).toBeUndefined();
    await tasks.drain();
    expect(startedAfter).toBeGreaterThanOrEqual(195);
    expect(inbound.pending).toBe(5);
  });
});

/** A task that runs until its `finish` is called. */
function held(name: string, log: string[]) {
  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));
  return {
    finish,
    work: async () => {
      log.push(`start ${name}`);
      await done;
      log.push(`end ${name}`);
    },
  };
}

describe('TaskLane', () => {
  it('runs at most `width` tasks at once, as background tasks, the others in the order they came', async () => {
    const tasks = new BackgroundTasks(silentLogger);
    const lane = new TaskLane(tasks, 2);
    const log: string[] = [];
    const jobs = ['a', 'b', 'c', 'd'].map((name) => held(name, log));
    jobs.forEach((job, i) => lane.add(`job ${i}`, job.work));
    expect(log).toEqual(['start a', 'start b']);
    expect([lane.size, tasks.size]).toEqual([4, 2]);
    jobs[1]!.finish();
    await vi.waitFor(() => expect(log).toEqual(['start a', 'start b', 'end b', 'start c']), { timeout: 5_000, interval: 2 });
    const idle = lane.idle();
    for (const job of jobs) job.finish();
    await idle;
    expect(log.filter((l) => l.startsWith('start'))).toEqual(['start a', 'start b', 'start c', 'start d']);
    expect(log.filter((l) => l.startsWith('end'))).toHaveLength(4);
    expect(lane.size).toBe(0);
  });

  it('a failing task is logged as any background task and frees its place', async () => {
    const lane = new TaskLane(new BackgroundTasks(silentLogger), 1);
    const log: string[] = [];
    lane.add('fails', async () => {
      throw new Error('Slack is down');
    });
    lane.add('next', async () => void log.push('next ran'));
    await lane.idle();
    expect(log).toEqual(['next ran']);
  });

  it('clear() forgets what has not started (a stop); what runs finishes', async () => {
    const lane = new TaskLane(new BackgroundTasks(silentLogger), 1);
    const log: string[] = [];
    const running = held('a', log);
    lane.add('a', running.work);
    lane.add('b', held('b', log).work);
    expect(lane.clear()).toBe(1);
    running.finish();
    await lane.idle();
    expect(log).toEqual(['start a', 'end a']);
  });
});
