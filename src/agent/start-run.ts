import type { AgentInternals } from './agent-internals.js';
import { StreamSink, type AgentStream } from './agent-stream.js';
import { settleOutcome } from './drive.js';
import { sinkEmitter } from './emitter.js';
import { ClaimLostError } from './errors.js';
import { forgetFailedRun } from './forget-failed-run.js';
import { runSteps } from './loop.js';
import { putOnRecordIfSlow } from './put-on-record.js';
import type { RunState } from './run-state.js';

/** Runs a fresh top-level run in the background; the returned stream reports it. */
export function startRun(root: AgentInternals, run: RunState): AgentStream {
  const sink = new StreamSink(run.runId);
  sink.push({ type: 'start', runId: run.runId, payload: {} });
  const stopClock = putOnRecordIfSlow(run);
  void (async () => {
    try {
      const outcome = await runSteps(run, sinkEmitter(sink));
      stopClock();
      await settleOutcome(root, run, outcome, sink);
    } catch (error) {
      stopClock();
      // A lost claim is not a failure of the run: the process that took it over carries it on.
      if (error instanceof ClaimLostError) run.log.warn('stopped a run another process took over');
      else run.log.error({ err: error }, 'run failed');
      await forgetFailedRun(run, error);
      sink.finish('error', error);
    } finally {
      run.claim?.release();
    }
  })();
  return sink.toStream();
}
