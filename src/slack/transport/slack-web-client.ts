import { webApi } from '@slack/bolt';
import type { Config } from '../../config.js';
import type { Logger } from '../../logger.js';
import { boltLogger } from './bolt-logger.js';
import { nodeHttpFetch } from './node-http-fetch.js';
import { botMetrics } from '../../metrics/bot-metrics.js';
import type { KnownBlock } from '@slack/types';

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
