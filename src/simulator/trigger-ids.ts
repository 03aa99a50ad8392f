/**
 * Trigger ids as Slack hands them out with each interaction: good for one views.open or
 * views.push, for a short time, on the screen of the person who clicked. An id the store handed
 * out knows its person, which is how a modal finds its way to the right screen. A test that
 * builds a click itself brings an id the store never saw: it is taken on trust (once), unless
 * the store sees every click (the sandbox), where an unknown id is refused as Slack would.
 */
import { newTriggerId } from './random-ids.js';

export type TriggerCheck =
  | { ok: true; user?: string; ageMs: number }
  | { ok: false; error: 'invalid_trigger_id' | 'expired_trigger_id' | 'exchanged_trigger_id' };

/** Real trigger ids are `<digits>.<digits>.<hex>`. */
const TRIGGER_ID = /^\d+\.\d+\.[0-9a-f]+$/;

interface TriggerOptions {
  /** How long an issued id works; forever by default. */
  ttlMs?: number;
  /** Refuse ids this store did not issue. */
  issuedOnly?: boolean;
  now?: () => number;
}

export class TriggerIds {
  private issued = new Map<string, { user: string; issuedAt: number; used: boolean }>();
  /** Ids the store did not issue, once used. */
  private usedForeign = new Set<string>();
  private expired: 'all' | Set<string> = new Set();
  private readonly ttlMs: number;
  private readonly now: () => number;

  constructor(private readonly options: TriggerOptions = {}) {
    this.ttlMs = options.ttlMs ?? Number.POSITIVE_INFINITY;
    this.now = options.now ?? Date.now;
  }

  issue(user: string): string {
    const now = this.now();
    const id = newTriggerId();
    this.issued.set(id, { user, issuedAt: now, used: false });
    // Long-expired ids can never be used again; dropping them keeps memory flat in a long session.
    for (const [key, t] of this.issued) if (now - t.issuedAt > 10 * this.ttlMs) this.issued.delete(key);
    return id;
  }

  /** Ids to refuse as expired from now on ('all': every one), as when Slack's 3 s have passed. */
  expire(ids: 'all' | Iterable<string>): void {
    this.expired = ids === 'all' ? 'all' : new Set(ids);
  }

  use(id: string): TriggerCheck {
    if (!TRIGGER_ID.test(id)) return { ok: false, error: 'invalid_trigger_id' };
    if (this.expired === 'all' || this.expired.has(id)) return { ok: false, error: 'expired_trigger_id' };
    const trigger = this.issued.get(id);
    if (!trigger) {
      if (this.options.issuedOnly) return { ok: false, error: 'invalid_trigger_id' };
      if (this.usedForeign.has(id)) return { ok: false, error: 'exchanged_trigger_id' };
      this.usedForeign.add(id);
      return { ok: true, ageMs: 0 };
    }
    if (trigger.used) return { ok: false, error: 'exchanged_trigger_id' };
    const ageMs = this.now() - trigger.issuedAt;
    if (ageMs > this.ttlMs) return { ok: false, error: 'expired_trigger_id' };
    trigger.used = true;
    return { ok: true, user: trigger.user, ageMs };
  }

  clear(): void {
    this.issued.clear();
    this.usedForeign.clear();
    this.expired = new Set();
  }
}
