import { describe, expect, it } from 'vitest';
import { declineModal, parseDeclineModal } from '../../../../src/slack/approval/decline-modal.js';
import { viewLimitErrors } from '../../../../src/simulator/index.js';
import { allText, expectNoInjection, INJECTION } from '../../../helpers/slack/block-text.js';

const FINGERPRINT = 'fedcba9876543210fedcba9876543210';

describe('declineModal', () => {
  const view = declineModal({ actionId: 42, fingerprint: FINGERPRINT, toolName: 'issue_refund' });

  it('is a valid modal', () => {
    expect(viewLimitErrors(view, 'modal')).toEqual([]);
    expectNoInjection(view);
  });

  it('is identified by its callback id and bound to the request and fingerprint', () => {
    expect(view.callback_id).toBe('approval.decline_modal');
    expect(JSON.parse(view.private_metadata ?? '')).toEqual({ a: 42, f: 'fedcba9876543210' });
    expect(view.title.text.length).toBeLessThanOrEqual(24);
    expect(view.submit?.text).toBe('Decline');
    expect(view.close?.text).toBe('Cancel');
    expect(allText(view)).toContain('`issue_refund`');
  });

  it('asks for an optional multiline reason', () => {
    expect(view.blocks[1]).toMatchObject({
      type: 'input',
      block_id: 'reason',
      optional: true,
      element: { type: 'plain_text_input', action_id: 'reason', multiline: true, max_length: 3000 },
    });
  });

  it('stays valid and escaped with a hostile tool name', () => {
    const hostile = declineModal({ actionId: 1, fingerprint: INJECTION.repeat(100), toolName: INJECTION.repeat(100) });
    expect(viewLimitErrors(hostile, 'modal')).toEqual([]);
    expectNoInjection(hostile);
  });
});

describe('parseDeclineModal', () => {
  const metadata = JSON.stringify({ a: 42, f: 'fedcba9876543210' });

  it('reads the request, fingerprint prefix and trimmed reason', () => {
    expect(parseDeclineModal(metadata, { reason: { reason: { type: 'plain_text_input', value: '  Too risky \n' } } })).toEqual({
      actionId: 42,
      fingerprintPrefix: 'fedcba9876543210',
      reason: 'Too risky',
    });
  });

  it('leaves the reason out when none was given', () => {
    expect(parseDeclineModal(metadata, { reason: { reason: { type: 'plain_text_input', value: null } } })).toEqual({
      actionId: 42,
      fingerprintPrefix: 'fedcba9876543210',
    });
    expect(parseDeclineModal(metadata, {})).toEqual({ actionId: 42, fingerprintPrefix: 'fedcba9876543210' });
  });

  it('rejects metadata that is not ours', () => {
    for (const bad of [undefined, '', 'nope', '{"a":"42","f":"x"}', '{"a":42}', '{"a":1.5,"f":"x"}', 'null']) {
      expect(parseDeclineModal(bad, {})).toBeUndefined();
    }
  });
});
