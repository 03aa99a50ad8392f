import { cpus, loadavg } from 'node:os';
import { round } from './stats.js';

/** The 1-minute load average now, after warning when the cores are already busy (noisy timings). */
export function loadNow(log: (line: string) => void): number {
  const load = loadavg()[0]!;
  if (load > cpus().length) log(`warning: load average ${load.toFixed(1)} on ${cpus().length} cores; the timings will be noisy`);
  return load;
}

/** What a results file records about the machine a suite ran on. */
export function machineInfo(postgres: string, loadBefore: number, loadAfter: number) {
  return {
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? 'unknown',
    node: process.version,
    postgres,
    loadAverage1m: { before: round(loadBefore, 2), after: round(loadAfter, 2) },
  };
}
