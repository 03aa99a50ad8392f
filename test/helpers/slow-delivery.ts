import { connect, type Socket } from 'node:net';
import { nowSeconds } from '../../src/simulator/index.js';

/**
 * A delivery still on its way in to the bot at `url`: connected, headers sent (with a timestamp,
 * so it is not refused on its headers alone), body not yet. Destroy the socket to end it.
 */
export async function openSlowDelivery(url: string): Promise<Socket> {
  const slow = connect(Number(new URL(url).port), '127.0.0.1');
  await new Promise<void>((resolve) => slow.once('connect', () => resolve()));
  slow.write(
    `POST /slack/events HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nX-Slack-Request-Timestamp: ${nowSeconds()}\r\nContent-Length: 100\r\n\r\n`,
  );
  return slow;
}
