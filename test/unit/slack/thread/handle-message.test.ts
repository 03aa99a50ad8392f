import { describe, expect, it } from 'vitest';
import { looksLikeDecision } from '../../../../src/slack/thread/handle-message.js';

describe('looksLikeDecision', () => {
  it.each(['approved', 'Approve', 'LGTM!', 'yes', 'Yes.', 'no', 'nope', 'decline', 'Declined', 'ship it', 'go ahead', ':+1:', '👍', 'approve this'])(
    'reads %j as a decision',
    (text) => expect(looksLikeDecision(text)).toBe(true),
  );
  it.each(['', 'no idea, checking with finance', 'yes but only half of it', 'why is this 500?', 'cancel', 'approved '.repeat(10)])(
    'does not read %j as one',
    (text) => expect(looksLikeDecision(text)).toBe(false),
  );
});
