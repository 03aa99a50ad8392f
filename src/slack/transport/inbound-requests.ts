import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** What `BackgroundTasks` asks before it starts work: is a Slack request still waiting for its answer? */
export interface InboundRequests {
  /** Connections accepted that have not sent a request yet, plus requests not yet answered. */
  readonly pending: number;
  /** Calls `listener` each time `pending` drops to zero. */
  onIdle(listener: () => void): void;
}

/**
 * Counts what the HTTP server has taken in but not answered. A connection
 * counts from the moment it is accepted, before its bytes are read, because
 * under a burst that is the only sign that more acks are queued behind the
 * one being handled: the kernel has the requests, the event loop has not
 * read them yet.
 */
export function inboundRequests(server: Server): InboundRequests {
  let pending = 0;
  const listeners: Array<() => void> = [];
  const awaitingFirstRequest = new WeakSet<Socket>();

  const settle = () => {
    pending -= 1;
    if (pending === 0) for (const listener of listeners) listener();
  };

  server.on('connection', (socket: Socket) => {
    pending += 1;
    awaitingFirstRequest.add(socket);
    socket.once('close', () => {
      if (awaitingFirstRequest.delete(socket)) settle();
    });
  });

  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    // The connection's count passes to its first request; later keep-alive requests add their own.
    if (!awaitingFirstRequest.delete(req.socket)) pending += 1;
    let answered = false;
    const done = () => {
      if (answered) return;
      answered = true;
      settle();
    };
    res.once('finish', done);
    res.once('close', done);
  });

  return {
    get pending() {
      return pending;
    },
    onIdle(listener) {
      listeners.push(listener);
    },
  };
}
