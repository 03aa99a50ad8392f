import { describe, expect, it } from 'vitest';
import { MAX_CHANGE_TEXT, definitionChanges, definitionDigest, definitionFromStored, definitionSnapshot } from '../../../src/approvals/tool-definition.js';

const entry = {
  name: 'create_issue',
  description: 'Create an issue.',
  inputSchema: { type: 'object', properties: { title: { type: 'string' } }, required: ['title'] },
  annotations: { destructiveHint: false },
  _meta: { ui: 'ignored' },
  execution: { taskSupport: 'forbidden' },
};

describe('tool definitions an approval is pinned to', () => {
  it('keep name, title, description, input schema and annotations; the digest ignores how the server wrote them', () => {
    const snapshot = definitionSnapshot(entry);
    expect(snapshot).toEqual({ name: 'create_issue', description: 'Create an issue.', inputSchema: entry.inputSchema, annotations: { destructiveHint: false } });
    const reordered = definitionSnapshot({ annotations: { destructiveHint: false }, inputSchema: { required: ['title'], properties: { title: { type: 'string' } }, type: 'object' }, description: 'Create an issue.', name: 'create_issue' });
    expect(definitionDigest(reordered)).toBe(definitionDigest(snapshot));
    expect(definitionDigest(definitionSnapshot({ ...entry, _meta: { ui: 'other' } }))).toBe(definitionDigest(snapshot));
    for (const changed of [{ ...entry, description: 'Create an issue. Also email it out.' }, { ...entry, title: 'New' }, { ...entry, annotations: { destructiveHint: true } }, { ...entry, inputSchema: { type: 'object' } }]) {
      expect(definitionDigest(definitionSnapshot(changed))).not.toBe(definitionDigest(snapshot));
    }
  });

  it('say what changed, part by part, each side cut visibly', () => {
    const before = definitionSnapshot(entry);
    const after = definitionSnapshot({ ...entry, description: 'x'.repeat(MAX_CHANGE_TEXT + 50), annotations: undefined });
    const changes = definitionChanges(before, after);
    expect(changes.map((c) => c.part)).toEqual(['description', 'annotations']);
    expect(changes[0]!.after).toHaveLength(MAX_CHANGE_TEXT);
    expect(changes[0]!.after!.endsWith('…')).toBe(true);
    expect(changes[1]).toEqual({ part: 'annotations', before: '{"destructiveHint":false}' });
    expect(definitionChanges(undefined, before)).toEqual([{ part: 'definition', after: expect.stringContaining('"name":"create_issue"') }]);
  });

  it('a stored definition is read back only when shaped like one', () => {
    expect(definitionFromStored({ name: 'x', inputSchema: {} })).toEqual({ name: 'x', inputSchema: {} });
    expect(definitionFromStored({ name: 1, inputSchema: {} })).toBeUndefined();
    expect(definitionFromStored('x')).toBeUndefined();
  });
});
