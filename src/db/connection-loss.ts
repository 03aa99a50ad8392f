import type pg from 'pg';
import { errorMessage } from '../error-message.js';
import type { Logger } from '../logger.js';

/**
 * PostgreSQL may end any connection at any time (pg_terminate_backend, a restart, a failover).
 * pg reports that as an 'error' event: on the client, and again on the pool when the client was
 * idle. An 'error' event nobody listens to is thrown, which ends the process, so every instance
 * would go down at once. Listening is all it takes: pg drops an idle client that errored at once
 * and a checked-out one when it is released (it is no longer queryable), and the next statement
 * opens a new connection. A statement that was running on it rejects through its caller's usual
 * error path.
 */
export function surviveConnectionLoss(pool: pg.Pool, logger: Logger): void {
  pool.on('connect', (client) => watchConnection(client, logger));
  // The client's own listener has logged it already; this one only keeps the pool's copy from being thrown.
  pool.on('error', () => {});
}

/**
 * One warn line per lost connection, though pg emits an error for the server's message and another
 * for the closed socket. Only the message, code and backend pid (to match the server's log) are
 * logged: the error pg hands over carries the client, and with it the connection settings,
 * password included.
 */
function watchConnection(client: pg.ClientBase, logger: Logger): void {
  let reported = false;
  client.on('error', (error) => {
    if (reported) return;
    reported = true;
    const code = (error as { code?: unknown }).code;
    // Not `pid`: pino's own field for the process id.
    const backendPid = (client as { processID?: unknown }).processID;
    logger.warn(
      { reason: errorMessage(error), ...(typeof code === 'string' ? { code } : {}), ...(typeof backendPid === 'number' ? { backendPid } : {}) },
      'database connection lost; dropped from the pool, the next statement opens a new one',
    );
  });
}
