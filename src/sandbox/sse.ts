import type { IncomingMessage, ServerResponse } from 'node:http';

/** Proxies and some browsers drop a stream that stays silent; a comment line keeps it open without waking the client. */
const KEEPALIVE_MS = 20_000;

/**
 * Server-sent events to every open sandbox tab. Changes are pushed the moment they happen; a
 * tab that reconnects fetches the whole state again, so no event ids or replay are needed.
 */
export class SseHub {
  private clients = new Set<ServerResponse>();
  private timer: NodeJS.Timeout | undefined;

  handle(req: IncomingMessage, res: ServerResponse): void {
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    res.write('retry: 1000\n\n');
    this.clients.add(res);
    const drop = () => this.clients.delete(res);
    req.on('close', drop);
    res.on('error', drop);
    this.timer ??= setInterval(() => this.write(': keepalive\n\n'), KEEPALIVE_MS).unref();
    this.send(res, 'hello', { at: new Date().toISOString() });
  }

  get size(): number {
    return this.clients.size;
  }

  broadcast(event: string, data: unknown): void {
    this.write(frame(event, data));
  }

  private send(res: ServerResponse, event: string, data: unknown): void {
    res.write(frame(event, data));
  }

  private write(text: string): void {
    for (const res of this.clients) {
      if (res.writableEnded || res.destroyed) this.clients.delete(res);
      else res.write(text);
    }
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    for (const res of this.clients) res.end();
    this.clients.clear();
  }
}

/** One SSE frame; JSON never contains a raw newline, so `data:` stays on one line. */
function frame(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}
