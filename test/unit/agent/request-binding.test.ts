import { describe, expect, it } from 'vitest';
import { bindingOfRow, stateKey } from '../../../src/agent/request-binding.js';

describe("a request's binding as read back", () => {
  it('keeps what is shaped as written and drops anything else, never trusting the row', () => {
    const preview = { fields: [{ label: 'Record', value: 'abc' }], diff: [{ label: 'Status', before: 'a', after: 'b' }], stateDigest: 'v1' };
    expect(
      bindingOfRow({
        stated_reason: 'because',
        preview,
        tool_pin: { digest: 'd1', definition: { name: 't', inputSchema: {} } },
        asked_again: { fromActionId: 4, why: 'tool-changed', changes: [{ part: 'description', before: 'a', after: 'b' }, { part: 3 }] },
      }),
    ).toEqual({
      statedReason: 'because',
      preview,
      toolPin: { digest: 'd1', definition: { name: 't', inputSchema: {} } },
      askedAgain: { fromActionId: 4, why: 'tool-changed', changes: [{ part: 'description', before: 'a', after: 'b' }] },
    });
    expect(bindingOfRow({ stated_reason: null, preview: { failed: 'down' }, tool_pin: { digest: 1 }, asked_again: { fromActionId: 'x', why: 'state-changed' } })).toEqual({ preview: { failed: 'down' } });
    expect(bindingOfRow({ preview: { stateDigest: '' } })).toEqual({});
    expect(bindingOfRow({ preview: { stateDigest: 'v', fields: Array.from({ length: 21 }, () => ({ label: 'a', value: 'b' })) } })).toEqual({});
    expect(bindingOfRow({ asked_again: { fromActionId: 1, why: 'because' } })).toEqual({});
  });

  it('compares states as their digest, a failure, or none', () => {
    expect(stateKey(undefined)).toBe('none');
    expect(stateKey({ failed: 'x' })).toBe('failed');
    expect(stateKey({ stateDigest: 'v1' })).toBe('digest:v1');
    expect(stateKey({ stateDigest: 'v1' })).not.toBe(stateKey({ stateDigest: 'v2' }));
  });
});
