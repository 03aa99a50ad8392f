/** Cursor paging the way WebClient.paginate walks it: an opaque cursor, and an empty next_cursor ends the walk. */
import { SlackApiError } from './api-error.js';
import { optString, type Args } from './wire-args.js';

export interface CursorPage<T> {
  items: T[];
  has_more: boolean;
  response_metadata: { next_cursor: string };
}

export function cursorPage<T>(items: T[], args: Args, defaultLimit: number): CursorPage<T> {
  const limit = Math.max(1, Math.min(1000, Number(optString(args, 'limit') ?? defaultLimit) || defaultLimit));
  const cursor = optString(args, 'cursor');
  const start = cursor === undefined ? 0 : Number(Buffer.from(cursor, 'base64').toString('utf8').replace(/^offset:/, ''));
  if (!Number.isInteger(start) || start < 0) throw new SlackApiError('invalid_cursor');
  const more = start + limit < items.length;
  return {
    items: items.slice(start, start + limit),
    has_more: more,
    response_metadata: { next_cursor: more ? Buffer.from(`offset:${start + limit}`).toString('base64') : '' },
  };
}
