import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { trackerServer } from '../fixtures/mcp/tracker-server.js';

/**
 * The tracker MCP server over Streamable HTTP on loopback, one session per client (as the
 * SDK's servers keep them). `stop()` closes the port, so calls fail as against a server that
 * went down; `start()` again on the same port brings it back. With `held`, every request waits
 * for it to settle before it is answered: a server slow to come up.
 */
export async function mcpHttpServer(options: { callLog?: string; port?: number; requireHeader?: [string, string]; held?: Promise<void> } = {}) {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  let http: Server | undefined;
  let port = options.port ?? 0;

  const handler = async (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => {
    await options.held;
    if (options.requireHeader && req.headers[options.requireHeader[0]] !== options.requireHeader[1]) {
      res.writeHead(401).end();
      return;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = chunks.length ? (JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown) : undefined;
    const sessionId = req.headers['mcp-session-id'] as string | undefined;
    let transport = sessionId ? sessions.get(sessionId) : undefined;
    if (!transport) {
      if (req.method !== 'POST' || !isInitializeRequest(body)) {
        res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null }));
        return;
      }
      const created: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: randomUUID,
        onsessioninitialized: (id: string): void => {
          sessions.set(id, created);
        },
      });
      transport = created;
      await trackerServer(options.callLog ? { callLog: options.callLog } : {}).connect(created);
    }
    await transport!.handleRequest(req, res, body);
  };

  const start = async () => {
    http = createServer((req, res) => void handler(req, res).catch(() => res.writeHead(500).end()));
    await new Promise<void>((resolve) => http!.listen(port, '127.0.0.1', resolve));
    port = (http.address() as AddressInfo).port;
  };
  const stop = async () => {
    for (const transport of sessions.values()) await transport.close().catch(() => undefined);
    sessions.clear();
    http?.closeAllConnections();
    await new Promise<void>((resolve) => (http ? http.close(() => resolve()) : resolve()));
    http = undefined;
  };
  await start();
  return {
    get url() {
      return `http://127.0.0.1:${port}/mcp`;
    },
    start,
    stop,
  };
}
