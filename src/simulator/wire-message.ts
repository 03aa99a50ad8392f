import { clone } from './json.js';
import type { StoredMessage } from './types.js';

/** A stored message as Slack returns it in API responses: without the `channel` key. */
export function wireMessage(m: StoredMessage): Record<string, unknown> {
  const { channel: _channel, ...rest } = clone(m);
  return rest;
}
