import { webApi, LogLevel, type Logger as BoltLogger } from '@slack/bolt';
import type { Config } from '../../config.js';
import type { Logger } from '../../logger.js';
import { nodeHttpFetch } from './node-http-fetch.js';
import { botMetrics } from '../../metrics/bot-metrics.js';
import type { KnownBlock } from '@slack/types';
import { cachedGroupResolver, type GroupResolver } from '../../approvals/group-resolver.js';

/** Retries for rate limits (after Retry-After) and 5xx; gives up after about 15 s. */
const defaultRetryConfig: webApi.RetryOptions = { retries: 4, factor: 2, minTimeout: 500, maxTimeout: 8_000, randomize: true };

/**
 * The Web API options every client of the bot uses: SLACK_API_URL, retries, logging through
 * pino, and the node:http transport, unless Node is told to use a proxy from the environment:
 * the transport's own agents would go around it, so the client keeps the global fetch.
 */
export function slackClientOptions(
  slack: Pick<Config['slack'], 'apiUrl'> & { useEnvProxy?: boolean },
  logger: Logger,
  retryConfig: webApi.RetryOptions = defaultRetryConfig,
): webApi.WebClientOptions {
  return {
    ...(slack.apiUrl ? { slackApiUrl: slack.apiUrl.endsWith('/') ? slack.apiUrl : `${slack.apiUrl}/` } : {}),
    retryConfig: countingRetries(retryConfig),
    logger: boltLogger(logger.child({ component: 'slack' })),
    ...(slack.useEnvProxy ? {} : { fetch: nodeHttpFetch() }),
  };
}

/**
 * A Web API client outside Bolt, for what has to exist before the app does:
 * e.g. `slackGroupResolver(slackWebClient(config.slack, logger))` for the agent.
 */
export function slackWebClient(slack: Pick<Config['slack'], 'botToken' | 'apiUrl'> & { useEnvProxy?: boolean }, logger: Logger, retryConfig?: webApi.RetryOptions): webApi.WebClient {
  return new webApi.WebClient(slack.botToken, slackClientOptions(slack, logger, retryConfig));
}

/**
 * The same retries, each one counted. The Web API retries through p-retry, which calls
 * `onFailedAttempt` (passed through with the retry options, though their type does not list it)
 * after every failed attempt it may retry, with how many retries are left.
 */
function countingRetries(retryConfig: webApi.RetryOptions): webApi.RetryOptions {
  type FailedAttempt = { retriesLeft?: number };
  const theirs = (retryConfig as { onFailedAttempt?: (error: FailedAttempt) => unknown }).onFailedAttempt;
  const onFailedAttempt = async (error: FailedAttempt) => {
    if ((error.retriesLeft ?? 0) > 0) botMetrics.slackRetries.inc();
    await theirs?.(error);
  };
  return { ...retryConfig, onFailedAttempt } as webApi.RetryOptions;
}

/** The Web API's error code (`missing_scope`, `already_reacted`, …) of a WebClient error, if it carries one. */
export function slackErrorCode(error: unknown): string | undefined {
  const data = (error as { data?: { error?: unknown } } | null)?.data;
  return typeof data?.error === 'string' ? data.error : undefined;
}

/**
 * Blocks for a Web API call, already as the JSON text the call carries. The
 * WebClient sends arguments form-encoded, with arrays JSON-encoded, so the
 * request bytes are the same either way. Given an array, though, it first walks
 * it twice to build a debug line (redacting token-like keys at every depth),
 * whatever the log level; a string it passes through. Cards are the largest
 * thing the bot sends, so that walk was a visible share of its CPU per message.
 */
export function blocksAsJson(blocks: readonly KnownBlock[]): KnownBlock[] {
  // The WebClient's types only admit arrays; a JSON string is what Slack's form encoding carries.
  return JSON.stringify(blocks) as unknown as KnownBlock[];
}

/**
 * Bolt and the WebClient log through this, so their lines (bad signatures,
 * retries, rate limits) land in the same pino stream, with its redaction.
 */
export function boltLogger(logger: Logger): BoltLogger {
  const log = logger.child({ component: 'bolt' });
  let level = LogLevel.INFO;
  const text = (parts: unknown[]) => parts.map((p) => (typeof p === 'string' ? p : safeJson(p))).join(' ');
  // Bolt and the WebClient log debug lines on every request and call; formatting them only to drop them cost time on each ack.
  const at = (pinoLevel: 'debug' | 'info' | 'warn' | 'error') => (...parts: unknown[]) => {
    if (log.isLevelEnabled(pinoLevel)) log[pinoLevel](text(parts));
  };
  return {
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    setLevel: (next: LogLevel) => {
      level = next;
    },
    getLevel: () => level,
    setName: () => {},
  };
}

function safeJson(value: unknown): string {
  if (value instanceof Error) return value.message;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/** A person's team as users.info says, for events that do not name it (app_home_opened). */
export type UserTeams = (user: string) => Promise<string>;

interface UsersInfoUser {
  team_id?: string;
  enterprise_user?: { enterprise_id?: string };
}

/**
 * The team a user belongs to, from users.info (scope users:read), cached: a Home tab opened or
 * republished must know whether its viewer is a member of the workspace, and app_home_opened does
 * not say. On Enterprise Grid a member's organisation (E…) is given, as Slack names members of an
 * organisation in clicks. A lookup that fails is not cached and answers `''`, which the runtime
 * refuses (fail closed): the Home then lists nothing until a later lookup works.
 */
export function slackUserTeams(client: webApi.WebClient, logger: Logger, ttlMs = 10 * 60_000): UserTeams {
  const cache = new Map<string, { team: string; at: number }>();
  return async (user) => {
    const hit = cache.get(user);
    if (hit && Date.now() - hit.at < ttlMs) return hit.team;
    try {
      const info = (await client.users.info({ user })).user as UsersInfoUser | undefined;
      const team = info?.enterprise_user?.enterprise_id ?? info?.team_id ?? '';
      if (team !== '') cache.set(user, { team, at: Date.now() });
      return team;
    } catch (error) {
      logger.warn({ err: error, user }, 'users.info failed: the person\'s team is unknown, so their inbox lists nothing for now');
      return '';
    }
  };
}

/**
 * Members of a Slack user group (approvers listed as S…), from
 * usergroups.users.list, cached so a burst of clicks is one API call.
 */
export function slackGroupResolver(client: webApi.WebClient, options: { ttlMs?: number } = {}): GroupResolver {
  return cachedGroupResolver(
    async (groupId) => {
      const result = await client.usergroups.users.list({ usergroup: groupId });
      return result.users ?? [];
    },
    options.ttlMs !== undefined ? { ttlMs: options.ttlMs } : {},
  );
}
