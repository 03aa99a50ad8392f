/** Slack's delivery side of the bench: signed requests sent with node:http, timed from the kernel's side. */
import { Agent as HttpAgent, request } from 'node:http';
import { performance } from 'node:perf_hooks';
import { signRequest } from '../../src/simulator/index.js';

export const SIGNING_SECRET = 'bench-signing-secret-5e0c1d2a9b7f';

export interface SignedResponse {
  status: number;
  /**
   * From the request handed to the kernel (its `finish`) to the response read: what Slack would
   * wait for. It leaves out this process's own work before the send (connecting, and the other
   * requests of a burst it is still writing).
   */
  ms: number;
  /** From the request() call to the response read: `ms` plus that work. */
  totalMs: number;
  /** performance.now() at the request() call. */
  at: number;
  /** The `x-bench-id` header, to find the request in the bot's server timings. */
  id: string;
  /** Epoch ms (fractional), comparable with the bot's ServerTiming. */
  sentEpoch: number;
  endEpoch: number;
}

/** A signed request, built ahead of time so that signing is not part of what is timed. */
interface PreparedRequest {
  send(): Promise<SignedResponse>;
}

let requestCounter = 0;
const epochOf = (t: number) => performance.timeOrigin + t;

/**
 * Idle pooled connections are dropped after this, before the server's own idle timeout (Node's
 * default is 5 s, the floors keep it) can close one just as a request goes out on it.
 */
const agentOptions = { keepAlive: true, timeout: 4_000 };

/** Posts signed requests to the bot with node:http (lighter than fetch: less of the client in the timings). */
export class SignedClient {
  private agent = new HttpAgent(agentOptions);
  private readonly url: URL;

  constructor(endpoint: string) {
    this.url = new URL(endpoint);
  }

  /** Drops the pooled connections: the next requests connect afresh (as a burst from Slack would). */
  freshConnections(): void {
    this.agent.destroy();
    this.agent = new HttpAgent(agentOptions);
  }

  prepare(rawBody: string): PreparedRequest {
    const id = `b${++requestCounter}`;
    const headers = {
      ...signRequest(SIGNING_SECRET, rawBody),
      'content-length': String(Buffer.byteLength(rawBody)),
      // Ignored by Bolt; lets the bench match the request with the bot's own timings.
      'x-bench-id': id,
    };
    const { hostname, port, pathname } = this.url;
    const agent = this.agent;
    return {
      send: () =>
        new Promise<SignedResponse>((resolve, reject) => {
          const at = performance.now();
          let sent: number | undefined;
          const req = request({ hostname, port, path: pathname, method: 'POST', headers, agent }, (res) => {
            res.resume();
            res.on('end', () => {
              const end = performance.now();
              const from = sent ?? at;
              resolve({ status: res.statusCode ?? 0, ms: end - from, totalMs: end - at, at, id, sentEpoch: epochOf(from), endEpoch: epochOf(end) });
            });
            res.on('error', reject);
          });
          req.once('finish', () => (sent = performance.now()));
          req.setTimeout(10_000, () => req.destroy(new Error('bench: the bot did not answer within 10 s')));
          req.on('error', reject);
          req.end(rawBody);
        }),
    };
  }

  close(): void {
    this.agent.destroy();
  }
}
