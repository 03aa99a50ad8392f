import { describe, expect, it } from 'vitest';
import { policyRefusalText } from '../../../../src/slack/thread/run-in-thread.js';
import { blockLimitErrors } from '../../../../src/simulator/index.js';
import { context } from '../../../../src/slack/kit/limits.js';
import { expectNoInjection, INJECTION } from '../../../helpers/slack/block-text.js';

describe('policyRefusalText', () => {
  it('names the tool and the policy’s reason, escaped, and says it did not run', () => {
    expect(policyRefusalText({ toolName: 'delete_record', reason: 'No deletions on Fridays' })).toBe(
      ':no_entry: `delete_record` refused by policy: No deletions on Fridays. It did not run, and nobody was asked.',
    );
    const text = policyRefusalText({ toolName: 'delete`record', reason: `Ask ${INJECTION}!` });
    expectNoInjection([context(text)]);
    expect(text).toContain('&lt;!channel&gt;');
    expect(text).toContain('`deleteˋrecord`');
  });

  it('names the change freeze that refused it and until when', () => {
    const until = new Date('2026-07-06T06:00:00Z');
    expect(policyRefusalText({ toolName: 'deploy', reason: 'Frozen.', freeze: { name: 'weekend', until } })).toBe(
      `:no_entry: \`deploy\` refused by policy during change freeze \`weekend\` (until <!date^${until.getTime() / 1000}^{date_short_pretty} {time}|2026-07-06T06:00:00.000Z>): Frozen. It did not run, and nobody was asked.`,
    );
  });

  it('stays within a context block however long the reason', () => {
    const text = policyRefusalText({ toolName: 't'.repeat(300), reason: '&'.repeat(5000), freeze: { name: 'f'.repeat(300) } });
    expect(blockLimitErrors([context(text)])).toEqual([]);
  });
});
