import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Slack's v0 request signature: `v0=hex(HMAC_SHA256(secret, "v0:<timestamp>:<raw body>"))`.
 * The sandbox signs every delivery this way so the bot's own verification (Bolt's) runs exactly
 * as it does against Slack; there is no unsigned shortcut into the bot.
 */
export function slackSignature(secret: string, timestamp: number | string, rawBody: string): string {
  return `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:${rawBody}`, 'utf8').digest('hex')}`;
}

export function signedHeaders(secret: string, rawBody: string, now = Date.now()): Record<string, string> {
  const timestamp = String(Math.floor(now / 1000));
  return { 'x-slack-request-timestamp': timestamp, 'x-slack-signature': slackSignature(secret, timestamp, rawBody) };
}

/** The receiving side, for tests and tools: constant-time compare, timestamps within five minutes. */
export function verifySlackSignature(
  secret: string,
  headers: { timestamp: string | undefined; signature: string | undefined },
  rawBody: string,
  now = Date.now(),
): boolean {
  const { timestamp, signature } = headers;
  if (!timestamp || !signature || !/^\d+$/.test(timestamp)) return false;
  if (Math.abs(now / 1000 - Number(timestamp)) > 300) return false;
  const expected = Buffer.from(slackSignature(secret, timestamp, rawBody));
  const given = Buffer.from(signature);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
