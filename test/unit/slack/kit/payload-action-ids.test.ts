import { describe, expect, it } from 'vitest';
import { isActionId } from '../../../../src/db/is-action-id.js';
import { cardBlockId, parseCardBlockId, actionButtonValue, approvalButtonValue, parseButtonValue } from '../../../../src/slack/kit/action-ids.js';
import { parseDeclineModal } from '../../../../src/slack/approval/approval-modals.js';

/** The largest id PostgreSQL's `integer` (pending_actions.id) holds. */
const MAX = 2_147_483_647;
const FINGERPRINT = 'fedcba9876543210';
/** Ids a payload may carry that name no request: out of the column's range, or not whole numbers. */
const NOT_IDS = [0, -1, MAX + 1, 999_999_999_999_999, Number.MAX_SAFE_INTEGER, 1.5];

describe('request ids read from Slack payloads', () => {
  it('are whole numbers from 1 up to what pending_actions.id holds', () => {
    for (const id of [1, 42, MAX]) expect(isActionId(id)).toBe(true);
    for (const id of [...NOT_IDS, Number.NaN, Number.POSITIVE_INFINITY, '1', null, undefined]) expect(isActionId(id)).toBe(false);
  });

  it('button values and modal metadata name no request when the id is out of range', () => {
    expect(parseButtonValue(approvalButtonValue(MAX, FINGERPRINT))).toEqual({ actionId: MAX, fingerprintPrefix: FINGERPRINT });
    expect(parseButtonValue(actionButtonValue(MAX))).toEqual({ actionId: MAX });
    for (const id of NOT_IDS) {
      expect(parseButtonValue(JSON.stringify({ a: id, f: FINGERPRINT })), String(id)).toBeUndefined();
      expect(parseButtonValue(JSON.stringify({ a: id })), String(id)).toBeUndefined();
      expect(parseDeclineModal(JSON.stringify({ a: id, f: FINGERPRINT }), {}), String(id)).toBeUndefined();
    }
    expect(parseButtonValue('{"a":1e300,"f":"fedcba9876543210"}')).toBeUndefined();
  });

  it('card block ids name no request when the id is out of range', () => {
    expect(parseCardBlockId(cardBlockId('approval', MAX))).toEqual({ kind: 'approval', actionId: MAX });
    for (const kind of ['approval', 'question', 'suspension'] as const) {
      for (const id of ['0', String(MAX + 1), '999999999999999', '99999999999', '-1', '1.5', '1e3', '007', ' 7']) {
        expect(parseCardBlockId(`${kind}:${id}`), `${kind}:${id}`).toBeUndefined();
      }
    }
  });
});
