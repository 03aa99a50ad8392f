import { describe, expect, it } from 'vitest';
import { dueNotices } from '../../../src/approvals/due-notices.js';
import type { Reach } from '../../../src/approvals/reach.js';

const MIN = 60_000;
const CREATED = new Date('2030-01-01T00:00:00Z');
const EXPIRES = new Date(CREATED.getTime() + 240 * MIN);
const reach: Reach = { notify: 'mentions', route: 'thread', dmLimit: 10, remindAfterMs: 60 * MIN, remindLimit: 2, warnBeforeMs: 15 * MIN, escalateAfterMs: 120 * MIN, escalateTo: ['S0LEADS'] };
const at = (min: number, sent: string[] = []) => dueNotices(reach, { createdAt: CREATED, expiresAt: EXPIRES, sent: new Set(sent), now: new Date(CREATED.getTime() + min * MIN) });

describe('dueNotices', () => {
  it('is nothing before the first reminder', () => expect(at(59)).toEqual([]));
  it('reminds after remindAfter, once', () => {
    expect(at(60)).toEqual(['remind:1']);
    expect(at(61, ['remind:1'])).toEqual([]);
  });
  it('escalates after escalateAfter and reminds a second time', () => expect(at(120, ['remind:1'])).toEqual(['escalate', 'remind:2']));
  it('sends only the latest missed reminder after a pause, and stops at the limit', () => {
    expect(at(130)).toEqual(['escalate', 'remind:2']);
    expect(at(200, ['remind:2', 'escalate'])).toEqual([]);
  });
  it('warns warnBefore before expiry instead of reminding', () => {
    expect(at(225, ['remind:2', 'escalate'])).toEqual(['warn']);
    expect(at(230, ['remind:2', 'escalate', 'warn'])).toEqual([]);
  });
  it('sends nothing once expired', () => expect(at(240)).toEqual([]));
  it('without reminders or escalation only warns', () => {
    const plain: Reach = { ...reach, remindAfterMs: undefined, escalateAfterMs: undefined, escalateTo: [] } as Reach;
    const t = (min: number) => dueNotices(plain, { createdAt: CREATED, expiresAt: EXPIRES, sent: new Set(), now: new Date(CREATED.getTime() + min * MIN) });
    expect(t(200)).toEqual([]);
    expect(t(226)).toEqual(['warn']);
  });
});
