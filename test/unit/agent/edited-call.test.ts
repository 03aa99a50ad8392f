import { describe, expect, it } from 'vitest';
import { editNote, splitEditNote, withNote } from '../../../src/agent/edited-call.js';

describe('what the model is told about an edit', () => {
  const row = { args: { orderId: 'o-1', amountCents: 100000 }, edit: { fromActionId: 1, editor: 'U0CAROL', proposedArgs: { orderId: 'o-1', amountCents: 150050 } } };

  it('names the editor and each changed argument, old → new', () => {
    expect(editNote(row, row.edit.proposedArgs)).toBe(
      'An approver (U0CAROL) changed the arguments before approving: amountCents 150050 → 100000. The tool ran with the changed arguments: {"orderId":"o-1","amountCents":100000}.',
    );
    expect(editNote({ args: {}, edit: null }, {})).toBeUndefined();
  });

  it('goes in front of the tool result, whatever its kind', () => {
    expect(withNote({ type: 'json', value: { refunded: 100000 } }, 'N')).toEqual({ type: 'text', value: 'N\n\nResult: {"refunded":100000}' });
    const note = editNote(row, row.edit.proposedArgs)!;
    const noted = withNote({ type: 'json', value: { refunded: 1 } }, note);
    expect(noted.type === 'text' && splitEditNote(noted.value)).toEqual({ note, value: { refunded: 1 } });
    expect(splitEditNote('An approver said hello')).toBeUndefined();
    expect(withNote({ type: 'text', value: 'ok' }, 'N')).toEqual({ type: 'text', value: 'N\n\nok' });
    expect(withNote({ type: 'error-text', value: 'boom' }, 'N')).toEqual({ type: 'error-text', value: 'N\n\nboom' });
    expect(withNote({ type: 'content', value: [{ type: 'text', text: 'x' }] }, 'N')).toEqual({ type: 'content', value: [{ type: 'text', text: 'N' }, { type: 'text', text: 'x' }] });
  });
});
