import { randomBytes } from 'node:crypto';

export type TriggerCheck =
  | { ok: true; user: string; ageMs: number }
  | { ok: false; error: 'invalid_trigger_id' | 'expired_trigger_id' | 'exchanged_trigger_id' };

/**
 * Trigger ids as Slack hands them out with each interaction: good for one views.open or
 * views.push, for a short time, on the screen of the person who clicked. The person is why the
 * sandbox tracks them at all: it is how a modal finds its way to the right screen.
 */
export class TriggerIds {
  private issued = new Map<string, { user: string; issuedAt: number; used: boolean }>();

  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number,
  ) {}

  /** Shaped like Slack's: digits.digits.hex. */
  issue(user: string): string {
    const now = this.now();
    const id = `${Math.floor(now / 1000)}${String(Math.floor(Math.random() * 1000)).padStart(3, '0')}.7700000000.${randomBytes(16).toString('hex')}`;
    this.issued.set(id, { user, issuedAt: now, used: false });
    // Long-expired ids can never be used again; dropping them keeps memory flat in a long session.
    for (const [key, t] of this.issued) if (now - t.issuedAt > 10 * this.ttlMs) this.issued.delete(key);
    return id;
  }

  use(id: string): TriggerCheck {
    const trigger = this.issued.get(id);
    if (!trigger) return { ok: false, error: 'invalid_trigger_id' };
    if (trigger.used) return { ok: false, error: 'exchanged_trigger_id' };
    const ageMs = this.now() - trigger.issuedAt;
    if (ageMs > this.ttlMs) return { ok: false, error: 'expired_trigger_id' };
    trigger.used = true;
    return { ok: true, user: trigger.user, ageMs };
  }

  clear(): void {
    this.issued.clear();
  }
}
