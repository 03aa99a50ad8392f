import { webApi } from '@slack/bolt';
import type { Config } from '../../config.js';
import type { Logger } from '../../logger.js';
import { boltLogger } from './bolt-logger.js';
import { nodeHttpFetch } from './node-http-fetch.js';
import { botMetrics } from '../../metrics/bot-metrics.js';

/** Retries for rate limits (after Retry-After) and 5xx; gives up after about 15 s. */
export const defaultRetryConfig: webApi.RetryOptions = { retries: 4, factor: 2, minTimeout: 500, maxTimeout: 8_000, randomize: true };

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
