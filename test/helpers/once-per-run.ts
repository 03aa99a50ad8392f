/**
 * What a vitest global setup makes for the whole run. vitest calls a global setup once per
 * project, in one process: the first call starts it, the others share it, and the last project's
 * teardown stops it. After that a new call starts it afresh (vitest watch restarting the projects).
 * `key` names it across the projects' copies of the setup module (Symbol.for).
 */
export async function oncePerRun<T>(key: string, start: () => T | Promise<T>, stop: (value: T) => void | Promise<void>): Promise<{ value: T; teardown: () => Promise<void> }> {
  const slot = Symbol.for(key);
  const runs = globalThis as { [slot: symbol]: { value: Promise<T>; holders: number } | undefined };
  const held = (runs[slot] ??= { value: Promise.resolve().then(start), holders: 0 });
  held.holders += 1;
  const value = await held.value;
  return {
    value,
    async teardown() {
      held.holders -= 1;
      if (held.holders > 0) return;
      if (runs[slot] === held) delete runs[slot];
      await stop(value);
    },
  };
}
