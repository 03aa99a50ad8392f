import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { argsDiff } from '../../../../src/approvals/args-diff.js';
import { elicitationForm } from '../../../../src/mcp/elicitation-form.js';
import type { ElicitationForm } from '../../../../src/mcp/elicitation-payload.js';
import { ACTION_IDS, CALLBACK_IDS, parseButtonValue } from '../../../../src/slack/kit/action-ids.js';
import { approvalCard } from '../../../../src/slack/card/approval-card.js';
import { editDiffText } from '../../../../src/slack/kit/edit-diff-text.js';
import { editModal, parseEditModal } from '../../../../src/slack/edit/edit-modal.js';
import { blockLimitErrors, checkedView } from '../../../../src/simulator/index.js';
import { approvalCardData } from '../../../helpers/slack/approval-card-data.js';

const FINGERPRINT = 'fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210';

const schema = z.object({
  orderId: z.string().describe('The order to refund'),
  amountCents: z.number().int().positive(),
  currency: z.enum(['EUR', 'USD', 'GBP']),
  notifyCustomer: z.boolean(),
  note: z.string().optional(),
});

function formOf(s: z.ZodType): ElicitationForm {
  const json = z.toJSONSchema(s, { io: 'input' }) as { properties: Record<string, unknown>; required?: string[] };
  return elicitationForm({ type: 'object', properties: json.properties, required: json.required } as never)!;
}

type Block = Record<string, any>;

describe('the Edit modal', () => {
  const form = formOf(schema);
  const current = { orderId: 'A-1001', amountCents: 150050, currency: 'USD', notifyCustomer: true };
  const view = editModal({ actionId: 42, fingerprint: FINGERPRINT, toolName: 'issue_refund', form, current });

  it('is a modal Slack accepts, one input per argument, prefilled with the pending arguments', () => {
    expect(checkedView({ view }, 'modal')).toBe(view);
    expect(view.callback_id).toBe(CALLBACK_IDS.editModal);
    expect(parseButtonValue(view.private_metadata)).toEqual({ actionId: 42, fingerprintPrefix: FINGERPRINT.slice(0, 16) });
    const inputs = view.blocks.filter((b) => b.type === 'input') as Block[];
    expect(inputs.map((b) => [b.block_id, b.label.text, b.element.type, b.optional])).toEqual([
      ['f0', 'Order to refund', 'plain_text_input', false],
      ['f1', 'Amount (cents)', 'number_input', false],
      ['f2', 'Currency', 'radio_buttons', false],
      ['f3', 'Notify customer', 'radio_buttons', false],
      ['f4', 'Note', 'plain_text_input', true],
    ]);
    // The description is the label, so it is not repeated as the hint.
    expect(inputs[0]!.hint).toBeUndefined();
    expect(inputs[0]!.element.initial_value).toBe('A-1001');
    expect(inputs[1]!.element).toMatchObject({ initial_value: '150050', is_decimal_allowed: false });
    expect(inputs[2]!.element.initial_option.text.text).toBe('USD');
    expect(inputs[3]!.element.initial_option.value).toBe('true');
    expect(inputs[4]!.element.initial_value).toBeUndefined();
  });

  it('stays within Slack limits for long values, long names and many options', () => {
    const wide = z.object({
      ['k'.repeat(300)]: z.string(),
      region: z.enum(Array.from({ length: 150 }, (_, i) => `region-${i}-${'x'.repeat(90)}`) as [string, ...string[]]),
    });
    const big = editModal({ actionId: 7, fingerprint: FINGERPRINT, toolName: 't'.repeat(500), form: formOf(wide), current: { ['k'.repeat(300)]: 'v'.repeat(5000) } });
    expect(checkedView({ view: big }, 'modal')).toBe(big);
  });

  it('reads the submission back into typed arguments, leaving out an empty optional one', () => {
    const parsed = parseEditModal(form, {
      f0: { value: { type: 'plain_text_input', value: 'A-1001' } },
      f1: { value: { type: 'number_input', value: '100000' } },
      f2: { value: { type: 'radio_buttons', selected_option: { value: '0' } } },
      f3: { value: { type: 'radio_buttons', selected_option: { value: 'false' } } },
      f4: { value: { type: 'plain_text_input', value: '' } },
    });
    expect(parsed).toEqual({ ok: true, content: { orderId: 'A-1001', amountCents: 100000, currency: 'EUR', notifyCustomer: false } });
    expect(schema.safeParse(parsed.ok && parsed.content).success).toBe(true);
  });

  it('reports wrong or missing values by block id', () => {
    const parsed = parseEditModal(form, {
      f0: { value: { type: 'plain_text_input', value: '' } },
      f1: { value: { type: 'number_input', value: '1.5' } },
      f2: { value: { type: 'radio_buttons', selected_option: { value: '99' } } },
      f3: { value: { type: 'radio_buttons', selected_option: null } },
    });
    expect(parsed).toEqual({
      ok: false,
      errors: { f0: 'This field is required.', f1: 'Enter a whole number.', f2: 'Choose one of the options.', f3: 'This field is required.' },
    });
  });
});

describe('what an edit changed', () => {
  it('lists the changed arguments only, in the proposal order, added and removed ones too', () => {
    expect(argsDiff({ orderId: 'A', amountCents: 150050, meta: { a: 1, b: 2 }, gone: true }, { meta: { b: 2, a: 1 }, amountCents: 100000, orderId: 'A', added: 'x' })).toEqual([
      { key: 'amountCents', before: 150050, after: 100000 },
      { key: 'gone', before: true },
      { key: 'added', after: 'x' },
    ]);
    expect(argsDiff({ a: 1 }, { a: 1 })).toEqual([]);
  });

  it('is drawn with the formatter it is given, keys escaped, cut to its budget', () => {
    const changes = argsDiff({ amountCents: 150050, '<!channel>': 'a' }, { amountCents: 100000, '<!channel>': 'b' });
    expect(editDiffText('U0CAROL', changes)).toBe(':pencil2: Edited by <@U0CAROL>: amountCents `150050` → `100000`, &lt;!channel&gt; `"a"` → `"b"`');
    const dollars = (v: unknown) => `$${((v as number) / 100).toFixed(2)}`;
    expect(editDiffText('U0CAROL', [{ key: 'amount', before: 150000, after: 100000 }], dollars)).toBe(':pencil2: Edited by <@U0CAROL>: amount $1500.00 → $1000.00');
    const many = Array.from({ length: 200 }, (_, i) => ({ key: `field${i}`, before: i, after: i + 1 }));
    const text = editDiffText('U0CAROL', many, undefined, 500);
    expect(text.length).toBeLessThanOrEqual(500);
    expect(text).toMatch(/and \d+ more changes$/);
  });
});

describe('the approval card with Edit', () => {
  it('offers Edit between Approve and Decline while pending, and only when editable', () => {
    const blocks = approvalCard(approvalCardData({ editable: true }));
    expect(blockLimitErrors(blocks)).toEqual([]);
    const actions = blocks.find((b) => b.type === 'actions') as Block;
    expect(actions.elements.map((e: Block) => e.action_id)).toEqual([ACTION_IDS.approve, ACTION_IDS.edit, ACTION_IDS.decline, ACTION_IDS.showArguments]);
    expect(actions.elements[1].value).toBe(actions.elements[0].value);
    const plain = approvalCard(approvalCardData()).find((b) => b.type === 'actions') as Block;
    expect(plain.elements.map((e: Block) => e.action_id)).toEqual([ACTION_IDS.approve, ACTION_IDS.decline, ACTION_IDS.showArguments]);
    const decided = approvalCard(approvalCardData({ editable: true, state: { kind: 'approved', by: ['U0A'], at: new Date() } }));
    expect(decided.some((b) => b.type === 'actions')).toBe(false);
  });

  it('shows what the edit changed, and an edited request says it was replaced', () => {
    const line = editDiffText('U0CAROL', [{ key: 'amount', before: 150050, after: 100000 }]);
    const blocks = approvalCard(approvalCardData({ editedLine: line }));
    expect(blockLimitErrors(blocks)).toEqual([]);
    expect(JSON.stringify(blocks)).toContain('Edited by <@U0CAROL>: amount `150050` → `100000`');
    const replaced = approvalCard(approvalCardData({ state: { kind: 'edited', by: 'U0CAROL' } }));
    expect(blockLimitErrors(replaced)).toEqual([]);
    expect(JSON.stringify(replaced)).toContain('Edited by <@U0CAROL>: the edited request replaced this one');
  });
});
