/**
 * The wire between the sandbox and the bot: signed POSTs to the bot's real `/slack/events`,
 * events as JSON and interactions as `payload=` forms, just as Slack sends them. What goes wrong
 * (the bot is not up yet, a 401 from a wrong secret, a slow ack) is told to the person at the
 * screen as a notice, because in the sandbox they are the operator too.
 */
import type { Logger } from '../logger.js';
import { signRequest } from '../simulator/index.js';
import type { SandboxStore } from './store.js';

/** Slack gives up on an ack after three seconds. */
const SLACK_ACK_MS = 3_000;
const DEFAULT_TIMEOUT_MS = 15_000;

interface Delivery {
  /** The bot answered 2xx. */
  ok: boolean;
  /** 0 when no answer came (not connected, refused, timed out). */
  status: number;
  body: string;
  /** The answer parsed as JSON, when it was JSON (view_submission `response_action`s are). */
  json?: unknown;
  error?: string;
  elapsedMs: number;
}

interface BotLinkOptions {
  signingSecret: string;
  store: SandboxStore;
  url?: string;
  logger?: Logger;
  timeoutMs?: number;
}

export class BotLink {
  private target: string | undefined;
  private readonly inFlight = new Set<Promise<unknown>>();
  private readonly aborter = new AbortController();

  constructor(private readonly options: BotLinkOptions) {
    this.target = options.url;
  }

  get url(): string | undefined {
    return this.target;
  }

  connect(url: string): void {
    if (!URL.canParse(url)) throw new Error(`not a URL: ${url}`);
    this.target = url;
  }

  /** An Events API envelope, as JSON. */
  sendEvent(envelope: Record<string, unknown>): Promise<Delivery> {
    const event = envelope.event as { type?: unknown; subtype?: unknown } | undefined;
    const what = `${String(event?.type ?? 'event')}${event?.subtype ? `/${String(event.subtype)}` : ''} event`;
    return this.post(JSON.stringify(envelope), 'application/json', what);
  }

  /** Several events one after the other (a mention before its message event), tracked as one delivery. */
  sendEvents(envelopes: Array<Record<string, unknown>>): Promise<Delivery[]> {
    return this.track(
      (async () => {
        const out: Delivery[] = [];
        for (const envelope of envelopes) out.push(await this.sendEvent(envelope));
        return out;
      })(),
    );
  }

  /** An interactivity payload, as the single form field `payload`. */
  sendInteraction(payload: Record<string, unknown>): Promise<Delivery> {
    const body = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
    return this.post(body, 'application/x-www-form-urlencoded', String(payload.type ?? 'interaction'));
  }

  /** A slash command, as the flat form Slack posts. */
  sendCommand(fields: Record<string, string>): Promise<Delivery> {
    return this.post(new URLSearchParams(fields).toString(), 'application/x-www-form-urlencoded', `${fields.command ?? 'slash'} command`);
  }

  async drain(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  /** Abandons whatever is still on the way; used when the sandbox stops. */
  close(): void {
    this.aborter.abort();
  }

  private post(body: string, contentType: string, what: string): Promise<Delivery> {
    return this.track(this.postNow(body, contentType, what));
  }

  /** Aborted by a timeout or by close(); built by hand because AbortSignal.any needs Node 20.3. */
  private requestSignal(): { signal: AbortSignal; done: () => void } {
    const controller = new AbortController();
    const abort = () => controller.abort();
    const timer = setTimeout(abort, this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    this.aborter.signal.addEventListener('abort', abort, { once: true });
    return {
      signal: controller.signal,
      done: () => {
        clearTimeout(timer);
        this.aborter.signal.removeEventListener('abort', abort);
      },
    };
  }

  private track<T>(p: Promise<T>): Promise<T> {
    this.inFlight.add(p);
    void p.finally(() => this.inFlight.delete(p)).catch(() => undefined);
    return p;
  }

  private async postNow(body: string, contentType: string, what: string): Promise<Delivery> {
    const started = Date.now();
    const url = this.target;
    const { store, logger } = this.options;
    if (!url) {
      store.notice('warn', `The bot is not connected yet, so the ${what} went nowhere. Try again in a moment.`);
      return { ok: false, status: 0, body: '', error: 'not_connected', elapsedMs: 0 };
    }
    try {
      const { signal, done } = this.requestSignal();
      let response: Response;
      let text: string;
      try {
        response = await fetch(url, {
          method: 'POST',
          headers: { ...signRequest(this.options.signingSecret, body), 'content-type': contentType },
          body,
          signal,
        });
        text = await response.text();
      } finally {
        done();
      }
      const elapsedMs = Date.now() - started;
      const delivery: Delivery = { ok: response.ok, status: response.status, body: text, elapsedMs };
      if (text.trim().startsWith('{')) {
        try {
          delivery.json = JSON.parse(text);
        } catch {
          // Not JSON after all; the raw body is kept.
        }
      }
      logger?.debug({ what, status: response.status, elapsedMs }, 'sandbox delivered to the bot');
      if (!response.ok) {
        const hint = response.status === 401 ? ' (the signature was refused: is the bot using the sandbox signing secret?)' : '';
        store.notice('error', `The bot answered the ${what} with HTTP ${response.status}${hint}.`);
      } else if (elapsedMs > SLACK_ACK_MS) {
        store.notice('warn', `The bot took ${elapsedMs} ms to acknowledge the ${what}; Slack gives up after 3 s and retries events.`);
      }
      return delivery;
    } catch (error) {
      const elapsedMs = Date.now() - started;
      const message = error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : String(error);
      if (!this.aborter.signal.aborted) {
        logger?.warn({ what, err: error }, 'sandbox could not deliver to the bot');
        store.notice('error', `Could not deliver the ${what} to the bot at ${url}: ${message}`);
      }
      return { ok: false, status: 0, body: '', error: message, elapsedMs };
    }
  }
}
