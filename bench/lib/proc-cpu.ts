import { readdirSync, readFileSync } from 'node:fs';

/** Jiffies per second on Linux (USER_HZ); the same on every mainstream build. */
const HZ = 100;

interface ProcCpu {
  /** CPU time of every process named `postgres` (all backends, other users' included), ms. */
  postgresMs: number;
  /** The same, per process id: a delta must not count a backend that exited as negative CPU. */
  postgresByPid: Map<string, number>;
  /** Whole machine, all cores, ms: busy (not idle or iowait), stolen by the hypervisor, and in total. */
  busyMs: number;
  stealMs: number;
  totalMs: number;
}

/** The CPU time (user + system) process `pid` has used so far, ms, from /proc/<pid>/stat. */
export function processCpuMs(pid: string | number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const after = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // Fields 14 and 15 of stat (utime, stime) are 11 and 12 after the command name.
  return ((Number(after[11]) + Number(after[12])) * 1000) / HZ;
}

/** Reads /proc; undefined where there is none (not Linux) or it cannot be read. */
export function readProcCpu(): ProcCpu | undefined {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] = fields;
    const total = user + nice + system + idle + iowait + irq + softirq + steal;
    let postgres = 0;
    const postgresByPid = new Map<string, number>();
    const ms = (jiffies: number) => (jiffies * 1000) / HZ;
    for (const pid of readdirSync('/proc')) {
      if (!/^\d+$/.test(pid)) continue;
      try {
        if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() !== 'postgres') continue;
        const used = processCpuMs(pid);
        postgres += used;
        postgresByPid.set(pid, used);
      } catch {
        // The process ended while we looked.
      }
    }
    return { postgresMs: postgres, postgresByPid, busyMs: ms(total - idle - iowait - steal), stealMs: ms(steal), totalMs: ms(total) };
  } catch {
    return undefined;
  }
}

/** What happened between two readings. */
export function procCpuDelta(a: ProcCpu | undefined, b: ProcCpu | undefined) {
  if (!a || !b) return undefined;
  const total = b.totalMs - a.totalMs || 1;
  // Per process: one that exited in between takes its CPU with it (an undercount, never negative);
  // one that started in between (or reused an exited one's id) counts from zero.
  let postgresMs = 0;
  for (const [pid, after] of b.postgresByPid) {
    const before = a.postgresByPid.get(pid);
    postgresMs += before !== undefined && after >= before ? after - before : after;
  }
  return {
    postgresMs,
    /** Share of all cores' time that was busy / stolen. */
    machineBusy: (b.busyMs - a.busyMs) / total,
    machineSteal: (b.stealMs - a.stealMs) / total,
  };
}
