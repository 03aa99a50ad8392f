/** What conversations.history and conversations.replies list of a message, and which messages: Slack's time window and metadata rules. */
import { compareTs, isTs } from './slack-ts.js';
import { optString, truthy, type Args } from './wire-args.js';

/** `oldest`/`latest` bound a time window; `inclusive` decides whether the bounds themselves count. */
export function inTimeWindow(ts: string, args: Args): boolean {
  const oldest = optString(args, 'oldest');
  const latest = optString(args, 'latest');
  const inclusive = truthy(args.inclusive);
  if (oldest !== undefined && isTs(oldest) && (inclusive ? compareTs(ts, oldest) < 0 : compareTs(ts, oldest) <= 0)) return false;
  if (latest !== undefined && isTs(latest) && (inclusive ? compareTs(ts, latest) > 0 : compareTs(ts, latest) >= 0)) return false;
  return true;
}

/** A listed message carries its metadata only when the call asks for it (`include_all_metadata`), as on Slack. */
export function withListedMetadata(message: Record<string, unknown>, args: Args): Record<string, unknown> {
  if (truthy(args.include_all_metadata) || !('metadata' in message)) return message;
  const { metadata: _metadata, ...rest } = message;
  return rest;
}
