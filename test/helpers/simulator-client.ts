import { WebClient, type WebAPIPlatformError } from '@slack/web-api';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { FAKE_BOT_TOKEN, startSlackSimulator, type SlackSimulator } from '../../src/simulator/index.js';
import { silentLogger } from './silent-logger.js';

interface SimulatorClient {
  readonly slack: SlackSimulator;
  /** Slack's own client on the simulator, with retries off so a planned fault is seen as it comes. */
  readonly web: WebClient;
}

/**
 * The Slack simulator for the enclosing describe block, started once and emptied before each
 * test, with a WebClient on it; read the fields inside tests (they are set in beforeAll).
 */
export function useSimulatorClient(): SimulatorClient {
  const context = {} as { slack: SlackSimulator; web: WebClient };
  beforeAll(async () => {
    context.slack = await startSlackSimulator();
    context.web = new WebClient(FAKE_BOT_TOKEN, { slackApiUrl: context.slack.apiUrl, retryConfig: { retries: 0 }, logger: silentLogger });
  });
  afterAll(() => context.slack?.close());
  beforeEach(() => context.slack.reset());
  return context;
}

/** What a Web API call that Slack (or the simulator) refuses rejects with; the test fails if the call succeeds. */
export async function platformError(promise: Promise<unknown>): Promise<WebAPIPlatformError> {
  try {
    await promise;
  } catch (err) {
    return err as WebAPIPlatformError;
  }
  throw new Error('expected the call to fail');
}
