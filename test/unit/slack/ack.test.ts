import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../../src/logger.js';
import { recordThenAck, submissionThenAck, type CheckedSubmission } from '../../../src/slack/ack.js';
import type { SlackContext } from '../../../src/slack/context.js';
import { BackgroundTasks } from '../../../src/slack/transport/background-tasks.js';

/** What the ack helpers use of the Slack context: its logger and its background tasks. */
function context(): { ctx: SlackContext; tasks: BackgroundTasks } {
  const tasks = new BackgroundTasks(silentLogger);
  return { ctx: { logger: silentLogger, tasks } as unknown as SlackContext, tasks };
}

type Answer = CheckedSubmission<{ kind: 'answer'; value: number }>;

/** A submission's journey: what was acked with, and what was recorded and shown, in order. */
async function submit(submission: Answer, record: (value: number) => Promise<string> = async (v) => `recorded ${v}`) {
  const { ctx, tasks } = context();
  const steps: string[] = [];
  const acks: unknown[] = [];
  const ack = async (response?: unknown) => {
    steps.push('ack');
    acks.push(response);
  };
  await submissionThenAck(ctx, ack as never, submission, (s) => ({
    name: 'test-submit',
    record: async () => {
      const recorded = await record(s.value);
      steps.push(recorded);
      return recorded;
    },
    show: async (recorded) => void steps.push(`shown ${recorded}`),
    onError: async (ref) => void steps.push(`told ${ref ? 'with a reference' : ''}`),
  }));
  await tasks.drain();
  return { steps, acks };
}

describe('submissionThenAck', () => {
  it('sends errors back beside their fields and records nothing: the modal stays open', async () => {
    const { steps, acks } = await submit({ kind: 'errors', errors: { amount: 'Enter a number.' } });
    expect(steps).toEqual(['ack']);
    expect(acks).toEqual([{ response_action: 'errors', errors: { amount: 'Enter a number.' } }]);
  });

  it('closes the modal and records nothing when the submission has nothing to record', async () => {
    const { steps, acks } = await submit({ kind: 'close' });
    expect(steps).toEqual(['ack']);
    expect(acks).toEqual([undefined]);
  });

  it('records a submission before the ack closes the modal, and shows it after', async () => {
    const { steps, acks } = await submit({ kind: 'answer', value: 7 });
    expect(steps).toEqual(['recorded 7', 'ack', 'shown recorded 7']);
    expect(acks).toEqual([undefined]);
  });

  it('a record that fails is acked all the same and the person is told, with a reference', async () => {
    const { steps } = await submit({ kind: 'answer', value: 7 }, () => Promise.reject(new Error('database down')));
    expect(steps).toEqual(['ack', 'told with a reference']);
  });
});

describe('recordThenAck', () => {
  it('hands the record a promise that settles only once the ack is sent', async () => {
    const { ctx, tasks } = context();
    const steps: string[] = [];
    await recordThenAck(ctx, async () => void steps.push('ack'), {
      name: 'test-click',
      record: async (startAfter) => {
        steps.push('recorded');
        void startAfter.then(() => steps.push('work starts'));
        return 1;
      },
      show: async () => void steps.push('shown'),
    });
    await tasks.drain();
    expect(steps.slice(0, 2)).toEqual(['recorded', 'ack']);
    expect(steps.slice(2).sort()).toEqual(['shown', 'work starts']);
  });
});
