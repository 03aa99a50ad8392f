import type { SlackViewMiddlewareArgs } from '@slack/bolt';
import type { SlackContext } from './context.js';

/**
 * How long a listener waits for what a click decides to be recorded before it
 * acknowledges anyway: Slack gives a request 3 seconds, and Bolt needs some.
 */
const RECORD_BEFORE_ACK_MS = 2_000;

interface RecordedClick<T> {
  /** A task name for the logs. */
  name: string;
  /**
   * Records what the click decides (one conditional statement, after the reads
   * that check it). `startAfter` settles once Slack has the acknowledgement and
   * the requests received before are answered; the run's work waits for it, so
   * a burst of clicks is acknowledged first.
   */
  record: (startAfter: Promise<void>) => Promise<T>;
  /** Shows the outcome (card redraw, ephemeral, the run's continuation), after the ack. */
  show: (recorded: T) => Promise<unknown>;
  /** Tells the clicker when recording or showing failed, with the log reference. */
  onError?: (ref: string) => Promise<unknown>;
}

/**
 * Acknowledges a click only once its decision is on record (or after
 * RECORD_BEFORE_ACK_MS, whichever comes first). An acknowledged click is
 * therefore never lost to a process that stops right after the ack: the
 * decision is in PostgreSQL, and any instance's sweep carries its run on and
 * repairs its card. Everything slow (the redraw, the run) comes after the ack.
 */
export async function recordThenAck<T>(ctx: SlackContext, ack: () => Promise<void>, click: RecordedClick<T>): Promise<void> {
  let acknowledged!: () => void;
  const acked = new Promise<void>((resolve) => (acknowledged = resolve));
  // The run's work starts once the ack is sent and, as any work handed off, once requests already received are answered.
  const recorded = click.record(acked.then(() => ctx.tasks.admitted()));
  let timer: NodeJS.Timeout | undefined;
  const budget = new Promise<void>((resolve) => (timer = setTimeout(resolve, RECORD_BEFORE_ACK_MS)));
  // Settled either way: a failure is reported by the task below, after the ack.
  await Promise.race([recorded.then(() => undefined, () => undefined), budget]);
  clearTimeout(timer);
  try {
    await ack();
  } finally {
    acknowledged();
  }
  ctx.tasks.run(click.name, async () => click.show(await recorded), click.onError);
}

/** What checking a modal's submission comes to: close the modal, show errors beside its fields, or `T`, to record. */
export type CheckedSubmission<T> = { kind: 'close' } | { kind: 'errors'; errors: Record<string, string> } | T;

/**
 * A modal's submission once checked (Edit, Respond, an MCP form): errors go back beside their
 * fields and the modal stays open, a submission with nothing to record closes it, and anything else
 * is recorded before the ack, as a click is (recordThenAck).
 */
export async function submissionThenAck<T extends { kind: string }, R>(
  ctx: SlackContext,
  ack: SlackViewMiddlewareArgs['ack'],
  submission: CheckedSubmission<T>,
  click: (submission: T) => RecordedClick<R>,
): Promise<void> {
  if (submission.kind === 'errors') return void (await ack({ response_action: 'errors', errors: (submission as { errors: Record<string, string> }).errors }));
  if (submission.kind === 'close') return void (await ack());
  await recordThenAck(ctx, () => ack(), click(submission as T));
}
