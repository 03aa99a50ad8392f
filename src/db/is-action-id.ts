/** `pending_actions.id` is a PostgreSQL `integer` identity (migrations/001): it starts at 1. */
const MAX_ACTION_ID = 2_147_483_647;

/**
 * Whether a number read from outside (a button value, a block id, modal metadata) can name a
 * pending action at all. Anything else names no request, and must not reach a query, where
 * PostgreSQL would reject it as out of range: an error instead of the answer for a made-up id.
 */
export function isActionId(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= MAX_ACTION_ID;
}
