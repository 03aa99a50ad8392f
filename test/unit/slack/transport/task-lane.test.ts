import { describe, expect, it, vi } from 'vitest';
import { silentLogger } from '../../../../src/logger.js';
import { BackgroundTasks } from '../../../../src/slack/transport/background-tasks.js';
import { TaskLane } from '../../../../src/slack/transport/task-lane.js';

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
