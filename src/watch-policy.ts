import { readFileSync, unwatchFile, watch, watchFile as watchFilePoll, type FSWatcher, type Stats } from 'node:fs';
import type { Agent } from './agent/agent.js';
import type { Policy } from './approvals/policy-types.js';
import { reloadPolicyFile, type PolicyReload } from './approvals/reload-policy-file.js';
import { errorMessage } from './error-message.js';
import type { Logger } from './logger.js';
import { warnUnsatisfiable } from './approvals/unsatisfiable-rules.js';

interface WatchPolicyOptions {
  /** POLICY_FILE. Without one there is nothing to reload: SIGHUP only says so. */
  path: string | undefined;
  /** The policy the bot started with (the file's, the agents module's or the demo's). */
  initial: Policy;
  logger: Logger;
  /** How long the file must stay quiet before it is read: an editor's save is several events. */
  debounceMs?: number;
  /** How often the path is looked at (a stat) for changes no event reports; default 2 s. */
  pollMs?: number;
  /** Where SIGHUP arrives; the process, except in tests. */
  signals?: NodeJS.EventEmitter;
  /**
   * `enforced` (default): the policy calls are decided under (RuntimeDeps.policy). `shadow`:
   * SHADOW_POLICY_FILE's, evaluated beside it and never enforced (RuntimeDeps.shadowPolicy).
   */
  role?: 'enforced' | 'shadow';
}

export interface WatchedPolicy {
  /** The policy new requests are decided under. */
  readonly current: Policy;
  /** Puts the agent (and its sub-agents, which share its runtime) under the current policy and every later one (as its shadow policy, for `shadow`). */
  follow(agent: Agent): Agent;
  /** Reads POLICY_FILE now, as SIGHUP does; undefined without a file. */
  reload(): PolicyReload | undefined;
  close(): void;
}

/**
 * Policy reload without a restart: on SIGHUP, and when POLICY_FILE changes, the file is read
 * and validated again. A valid policy is swapped in for new requests (one assignment per
 * agent, so a request is decided under the old policy or the new, never a mix); an invalid one
 * is logged naming the file and the problem, and the old policy stays.
 * Requests and grants keep the version they were made under, as they do across a restart.
 *
 * The file itself is watched, not its directory, so other files there (the bot's own log, an
 * editor's swap files) never lead to a read. Editors and config mounts replace the file (a
 * rename over it, a symlink swapped to a new target), which ends a watch on the old one: the
 * watch is set up again on the path after every event, and a slow poll of the path (a stat
 * every `pollMs`) sees what no event reports (a symlink re-pointed, the file created again
 * after it was removed, a file system without change events). The file is acted on only when
 * its content differs from the content last acted on, so each distinct content is reloaded, or
 * reported as invalid, once; SIGHUP reads it again whatever it holds.
 */
export function watchPolicy(options: WatchPolicyOptions): WatchedPolicy {
  const { path, logger, debounceMs = 250, pollMs = 2_000, signals = process, role = 'enforced' } = options;
  const log = logger.child(role === 'shadow' ? { shadowPolicyFile: path } : { policyFile: path });
  const what = role === 'shadow' ? 'shadow policy' : 'policy';
  const apply = (agent: Agent, policy: Policy) => {
    if (role === 'shadow') agent.runtime.shadowPolicy = policy;
    else agent.runtime.policy = policy;
  };
  let current = options.initial;
  /**
   * The content last acted on (read by a reload). Unknown at first: the file may have changed
   * since the bot read it at start, so the first change is read whatever it holds.
   */
  let seen: string | undefined;
  const agents = new Set<Agent>();
  warnUnsatisfiable(log, current);

  const reload = (): PolicyReload | undefined => {
    if (path === undefined) {
      log.warn(`SIGHUP received, but no ${role === 'shadow' ? 'SHADOW_POLICY_FILE' : 'POLICY_FILE'} is set: there is no ${what} file to reload`);
      return undefined;
    }
    seen = contentOf(path);
    let result: PolicyReload;
    try {
      result = reloadPolicyFile(path, current);
    } catch (error) {
      log.error({ err: error, keptVersion: current.version }, `Could not reload ${path}: ${errorMessage(error)}; the ${what} in force stays`);
      return undefined;
    }
    if (result.outcome === 'invalid') {
      log.error({ keptVersion: result.kept, problems: result.error.problems }, `${result.error.message}\nThe ${what} in force (${result.kept}) stays.`);
    } else if (result.outcome === 'changed') {
      current = result.policy;
      // RuntimeDeps is shared by an agent tree's runs: whatever decides next reads the new policy.
      for (const agent of agents) apply(agent, current);
      log.info({ from: result.from, to: result.to }, `${what} reloaded: ${result.from} → ${result.to}`);
      warnUnsatisfiable(log, current);
    } else {
      log.debug({ version: result.version }, `${what} file read again; nothing changed`);
    }
    return result;
  };

  const onSignal = () => void reload();
  signals.on('SIGHUP', onSignal);

  let timer: NodeJS.Timeout | undefined;
  let watcher: FSWatcher | undefined;
  let closed = false;
  const watchFile = (file: string) => {
    watcher?.close();
    watcher = undefined;
    try {
      watcher = watch(file, { persistent: false }, changed);
      // A watch can end with an error (the file gone under it): the poll and the next event set it up again.
      watcher.on('error', () => {
        watcher?.close();
        watcher = undefined;
      });
    } catch {
      // No file at the path right now (between an editor's delete and rename, or removed): the poll finds it again.
    }
  };
  /** An editor's save is several events: the file is looked at once they are over. */
  const changed = () => {
    clearTimeout(timer);
    timer = setTimeout(settle, debounceMs);
  };
  const settle = () => {
    if (closed || path === undefined) return;
    // The watch follows the file it was set on, which a rename or a symlink swap takes away from the path.
    watchFile(path);
    if (contentOf(path) !== seen) reload();
    else log.debug(`${what} file changed on disk, to the content last read: nothing to do`);
  };
  const poll = (curr: Stats, prev: Stats) => {
    if (curr.ino !== prev.ino || curr.mtimeMs !== prev.mtimeMs || curr.size !== prev.size || curr.nlink !== prev.nlink) changed();
  };
  if (path !== undefined) {
    watchFile(path);
    watchFilePoll(path, { persistent: false, interval: pollMs }, poll);
  }

  return {
    get current() {
      return current;
    },
    follow(agent) {
      apply(agent, current);
      agents.add(agent);
      return agent;
    },
    reload,
    close() {
      closed = true;
      signals.off('SIGHUP', onSignal);
      clearTimeout(timer);
      watcher?.close();
      if (path !== undefined) unwatchFile(path, poll);
    },
  };
}

/** The file's text, or why it cannot be read: what decides whether a change is a new one. */
function contentOf(path: string): string {
  try {
    return `text:${readFileSync(path, 'utf8')}`;
  } catch (error) {
    return `unreadable:${(error as NodeJS.ErrnoException).code ?? errorMessage(error)}`;
  }
}
