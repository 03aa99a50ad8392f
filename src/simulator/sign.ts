/**
 * Slack's v0 request signature, the one signer of the simulator:
 * `v0=hex(HMAC_SHA256(secret, "v0:<timestamp>:<raw body>"))`. Every delivery to a bot is signed
 * this way so the bot's own verification (Bolt's) runs exactly as it does against Slack.
 */
import { createHmac } from 'node:crypto';

export type ContentType = 'application/json' | 'application/x-www-form-urlencoded';

interface SignedHeaders {
  'x-slack-signature': string;
  'x-slack-request-timestamp': string;
  'content-type': ContentType;
}

export function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

function slackSignature(secret: string, timestamp: number | string, rawBody: string): string {
  return `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:${rawBody}`, 'utf8').digest('hex')}`;
}

/** Slack sends events as JSON and everything else (interactions, slash commands) as a form. */
export function inferContentType(rawBody: string): ContentType {
  return rawBody.trimStart().startsWith('{') ? 'application/json' : 'application/x-www-form-urlencoded';
}

/** The headers Slack attaches to a request. The signature covers the raw bytes, so send exactly `body` afterwards. */
export function signRequest(secret: string, body: string, timestamp: number | string = nowSeconds()): SignedHeaders {
  const ts = String(timestamp);
  return {
    'x-slack-signature': slackSignature(secret, ts, body),
    'x-slack-request-timestamp': ts,
    'content-type': inferContentType(body),
  };
}
