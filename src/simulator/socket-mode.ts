/**
 * Slack's Socket Mode side: `apps.connections.open` hands out a one-time `ws://` URL on the Web
 * API's own port, where tests push envelopes (events_api, interactive, slash_commands) and read
 * back the client's acks. Slack redelivers what it sees no ack for; tests do that with
 * `event(…, { retryAttempt })`.
 */
import { randomUUID } from 'node:crypto';
import type { EventEmitter } from 'node:events';
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { SLACK_IDS } from './ids.js';
import { clone, isObj } from './json.js';
import { slashCommandFields } from './slash-command.js';
import type { SocketAck, SocketConnection, SocketModeSide } from './types.js';

export interface SocketModeServer {
  side: SocketModeSide;
  /** The answer to a call made with an app-level token. */
  appLevelCall(method: string, token: string): Record<string, unknown>;
  /** Forgets acks and closed connections (open ones stay). */
  reset(): void;
  close(): void;
}

export function attachSocketMode(server: Server, emitter: EventEmitter, appToken: string, port: () => number): SocketModeServer {
  const wss = new WebSocketServer({ noServer: true });
  const openSockets = new Map<number, WebSocket>();
  const tickets = new Set<string>();
  let connectionCounter = 0;
  let connections: SocketConnection[] = [];
  let acks: SocketAck[] = [];
  let envelopeSentAt = new Map<string, number>();

  function appLevelCall(method: string, token: string): Record<string, unknown> {
    if (token !== appToken) return { ok: false, error: token.startsWith('xapp-') ? 'invalid_auth' : 'not_allowed_token_type' };
    if (method !== 'apps.connections.open') return { ok: false, error: 'not_allowed_token_type' };
    const ticket = randomUUID();
    tickets.add(ticket);
    return { ok: true, url: `ws://127.0.0.1:${port()}/link/?ticket=${ticket}&app_id=${SLACK_IDS.appId}` };
  }

  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const ticket = url.searchParams.get('ticket') ?? '';
    // A ticket is good for one connection, like Slack's: a client must call apps.connections.open again to reconnect.
    if (url.pathname !== '/link/' || !tickets.delete(ticket)) {
      socket.end('HTTP/1.1 401 Unauthorized\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      connectionCounter += 1;
      const connection: SocketConnection = { id: connectionCounter, ticket, openedAt: Date.now() };
      connections.push(connection);
      openSockets.set(connection.id, ws);
      ws.on('message', (data, isBinary) => {
        if (isBinary) return;
        let message: unknown;
        try {
          message = JSON.parse(data.toString());
        } catch {
          return;
        }
        if (!isObj(message) || typeof message.envelope_id !== 'string') return;
        const at = Date.now();
        const sentAt = envelopeSentAt.get(message.envelope_id);
        const ack: SocketAck = { envelope_id: message.envelope_id, connection: connection.id, at, elapsedMs: sentAt === undefined ? undefined : at - sentAt };
        if ('payload' in message) ack.payload = clone(message.payload);
        acks.push(ack);
        emitter.emit('socket');
      });
      ws.on('close', (code) => {
        openSockets.delete(connection.id);
        connection.closedAt = Date.now();
        connection.closeCode = code;
        emitter.emit('socket');
      });
      ws.send(
        JSON.stringify({
          type: 'hello',
          num_connections: openSockets.size,
          debug_info: { host: 'applink-fake', build_number: 1, approximate_connection_time: 18060 },
          connection_info: { app_id: SLACK_IDS.appId },
        }),
      );
      emitter.emit('socket');
    });
  });

  /** Resolves with the first non-undefined `find()`, checked now and after every socket event. */
  function waitForSocket<T>(find: () => T | undefined, what: string, timeoutMs = 5_000): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const check = () => {
        const found = find();
        if (found === undefined) return;
        cleanup();
        resolve(found);
      };
      const timer = setTimeout(() => {
        cleanup();
        const seen = connections.map((c) => `#${c.id}${c.closedAt === undefined ? ' open' : ` closed ${c.closeCode}`}`).join(', ') || 'none';
        reject(new Error(`Slack simulator: no ${what} within ${timeoutMs}ms; connections: ${seen}; acks: ${acks.length}`));
      }, timeoutMs);
      function cleanup() {
        clearTimeout(timer);
        emitter.off('socket', check);
      }
      emitter.on('socket', check);
      check();
    });
  }

  const side: SocketModeSide = {
    get connections() {
      return clone(connections);
    },
    get acks() {
      return clone(acks);
    },
    send: (envelope, connectionId) => {
      const id = connectionId ?? Math.max(...openSockets.keys());
      const ws = openSockets.get(id);
      if (!ws) throw new Error(`Slack simulator: no open Socket Mode connection${connectionId === undefined ? '' : ` #${connectionId}`} to send to`);
      const envelopeId = typeof envelope.envelope_id === 'string' ? envelope.envelope_id : randomUUID();
      envelopeSentAt.set(envelopeId, Date.now());
      ws.send(JSON.stringify({ envelope_id: envelopeId, ...envelope }));
      return envelopeId;
    },
    event: (body, o = {}) =>
      side.send({
        envelope_id: o.envelopeId ?? randomUUID(),
        payload: body,
        type: 'events_api',
        accepts_response_payload: false,
        retry_attempt: o.retryAttempt ?? 0,
        retry_reason: o.retryReason ?? (o.retryAttempt ? 'timeout' : ''),
      }),
    interaction: (payload, o = {}) => {
      const type = (payload as { type?: unknown }).type;
      return side.send({
        envelope_id: o.envelopeId ?? randomUUID(),
        payload,
        type: 'interactive',
        // Only interactions whose ack can carry a response (modal errors, options) say so.
        accepts_response_payload: type === 'view_submission' || type === 'block_suggestion',
      });
    },
    command: (options, o = {}) =>
      side.send({
        envelope_id: o.envelopeId ?? randomUUID(),
        payload: slashCommandFields(options),
        type: 'slash_commands',
        accepts_response_payload: true,
      }),
    disconnect: (reason = 'refresh_requested') => {
      const message = JSON.stringify({ type: 'disconnect', reason, debug_info: { host: 'applink-fake' } });
      for (const ws of openSockets.values()) ws.send(message);
    },
    waitForAck: (envelopeId, { timeoutMs } = {}) =>
      waitForSocket(() => acks.find((a) => a.envelope_id === envelopeId), `ack for envelope ${envelopeId}`, timeoutMs).then(clone),
    waitForConnection: ({ after = 0, timeoutMs } = {}) =>
      waitForSocket(() => connections.find((c) => c.id > after), `Socket Mode connection after #${after}`, timeoutMs).then(clone),
    waitForClose: (id, { timeoutMs } = {}) =>
      waitForSocket(() => connections.find((c) => c.id === id && c.closedAt !== undefined), `close of connection #${id}`, timeoutMs).then(clone),
  };


  return {
    side,
    appLevelCall,
    reset: () => {
      connections = connections.filter((c) => c.closedAt === undefined);
      acks = [];
      envelopeSentAt = new Map();
    },
    close: () => {
      // Upgraded sockets are no longer the HTTP server's to close; a live one would keep the process up.
      for (const ws of openSockets.values()) ws.terminate();
      wss.close();
    },
  };
}
