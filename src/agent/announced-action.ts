import type { PendingAction } from '../db/pending-action.js';

/** Rows by the payload object of the chunk that announced them; gone with the chunk. */
const rows = new WeakMap<object, PendingAction>();

/** Called by the runtime as it announces a call it has just stored. */
export function rememberAnnounced(payload: object, row: PendingAction): void {
  rows.set(payload, row);
}

/**
 * The pending action a `tool-call-approval` or `tool-call-suspended` chunk
 * announced, as the statement that stored it returned it, when this process
 * stored it. A front end drawing the request from it need not read it back.
 * Not part of the chunk itself: the chunk's payload is the public, Mastra-shaped
 * view of the call, and the row is storage.
 */
export function announcedAction(payload: object): PendingAction | undefined {
  return rows.get(payload);
}
