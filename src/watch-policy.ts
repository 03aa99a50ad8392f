import { watch, type FSWatcher } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Agent } from './agent/agent.js';
import type { Policy } from './approvals/policy-schema.js';
import { reloadPolicyFile, type PolicyReload } from './approvals/reload-policy-file.js';
import { errorMessage } from './error-message.js';
import type { Logger } from './logger.js';
import { warnUnsatisfiable } from './warn-unsatisfiable.js';

export interface WatchPolicyOptions {
  /** POLICY_FILE. Without one there is nothing to reload: SIGHUP only says so. */
  path: string | undefined;
  /** The policy the bot started with (the file's, the agents module's or the demo's). */
  initial: Policy;
  logger: Logger;
  /** How long the file must stay quiet before it is read: an editor's save is several events. */
  debounceMs?: number;
  /** Where SIGHUP arrives; the process, except in tests. */
  signals?: NodeJS.EventEmitter;
}

export interface WatchedPolicy {
  /** The policy new requests are decided under. */
  readonly current: Policy;
  /** Puts the agent (and its sub-agents, which share its runtime) under the current policy and every later one. */
  follow(agent: Agent): Agent;
  /** Reads POLICY_FILE now, as SIGHUP does; undefined without a file. */
  reload(): PolicyReload | undefined;
  close(): void;
}

/**
 * Policy reload without a restart: on SIGHUP, and when POLICY_FILE changes, the file is read
 * and validated again. A valid policy is swapped in for new requests (one assignment per
 * agent, so a request is decided under the old policy or the new, never a mix); an invalid one
 * is logged, once per attempt, naming the file and the problem, and the old policy stays.
 * Requests and grants keep the version they were made under, as they do across a restart.
 *
 * The directory is watched rather than the file: editors and config mounts replace the file
 * (rename, symlink swap), which would end a watch on the file itself. Any event there leads to
 * a read; a file that decides the same as before changes nothing and logs nothing.
 */
export function watchPolicy(options: WatchPolicyOptions): WatchedPolicy {
  const { path, logger, debounceMs = 250, signals = process } = options;
  const log = logger.child({ policyFile: path });
  let current = options.initial;
  const agents = new Set<Agent>();
  warnUnsatisfiable(log, current);

  const reload = (): PolicyReload | undefined => {
    if (path === undefined) {
      log.warn('SIGHUP received, but no POLICY_FILE is set: there is no policy file to reload');
      return undefined;
    }
    let result: PolicyReload;
    try {
      result = reloadPolicyFile(path, current);
    } catch (error) {
      log.error({ err: error, keptVersion: current.version }, `Could not reload ${path}: ${errorMessage(error)}; the policy in force stays`);
      return undefined;
    }
    if (result.outcome === 'invalid') {
      log.error({ keptVersion: result.kept, problems: result.error.problems }, `${result.error.message}\nThe policy in force (${result.kept}) stays.`);
    } else if (result.outcome === 'changed') {
      current = result.policy;
      // RuntimeDeps is shared by an agent tree's runs: whatever decides next reads the new policy.
      for (const agent of agents) agent.runtime.policy = current;
      log.info({ from: result.from, to: result.to }, `policy reloaded: ${result.from} → ${result.to}`);
      warnUnsatisfiable(log, current);
    } else {
      log.debug({ version: result.version }, 'policy file read again; nothing changed');
    }
    return result;
  };

  const onSignal = () => void reload();
  signals.on('SIGHUP', onSignal);

  let timer: NodeJS.Timeout | undefined;
  let watcher: FSWatcher | undefined;
  if (path !== undefined) {
    try {
      watcher = watch(dirname(resolve(path)), { persistent: false }, () => {
        clearTimeout(timer);
        timer = setTimeout(() => void reload(), debounceMs);
      });
      watcher.on('error', (error) => log.warn({ err: error }, 'stopped watching the policy file; SIGHUP still reloads it'));
    } catch (error) {
      log.warn({ err: error }, 'cannot watch the policy file; SIGHUP still reloads it');
    }
  }

  return {
    get current() {
      return current;
    },
    follow(agent) {
      agent.runtime.policy = current;
      agents.add(agent);
      return agent;
    },
    reload,
    close() {
      signals.off('SIGHUP', onSignal);
      clearTimeout(timer);
      watcher?.close();
    },
  };
}
