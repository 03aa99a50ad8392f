import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { AnyBlock, InputBlock } from '@slack/types';
import { describe, expect, it } from 'vitest';
import type { ElicitationField } from '../../../../src/mcp/elicitation-payload.js';
import type { Form, FormEntry } from '../../../../src/slack/kit/form-fields.js';
import { blockIdByName } from '../../../../src/slack/kit/form-inputs.js';
import type { ViewStateValues } from '../../../../src/slack/kit/submitted-payloads.js';
import { parseRespondModal, respondModal } from '../../../../src/slack/answer/answer-modals.js';
import { viewLimitErrors } from '../../../../src/simulator/index.js';
import { expectNoInjection, INJECTION } from '../../../helpers/slack/block-text.js';

const fixture = JSON.parse(
  readFileSync(fileURLToPath(new URL('../../../fixtures/slack/view_submission_respond.json', import.meta.url)), 'utf8'),
) as { view: { private_metadata: string; callback_id: string; state: { values: ViewStateValues } } };

const enumOf = (values: string[]): ElicitationField => ({ type: 'enum', options: values.map((v) => ({ value: v, label: v })) });
const FORM: Form = {
  fields: [
    { name: 'note', required: true, field: { type: 'string', description: 'Anything the tool should know, in a sentence or two' } },
    { name: 'amount', required: true, field: { type: 'number' } },
    { name: 'notify', required: true, field: { type: 'boolean' } },
    { name: 'region', required: true, field: enumOf(['us-east-1', 'eu-west-1']) },
    { name: 'comment', required: false, field: { type: 'string' } },
  ],
};

const isInput = (b: AnyBlock): b is InputBlock => b.type === 'input';
const text = (value: string | null) => ({ value: { type: 'plain_text_input', value } });
const selected = (value: string) => ({ value: { type: 'static_select', selected_option: { value } } });

describe('respondModal', () => {
  const view = respondModal({ actionId: 314, toolName: 'deploy_service', form: FORM });

  it('is a valid modal identified by its callback id and action id', () => {
    expect(viewLimitErrors(view, 'modal')).toEqual([]);
    expectNoInjection(view);
    expect(view.callback_id).toBe('suspension.respond_modal');
    expect(JSON.parse(view.private_metadata ?? '')).toEqual({ a: 314 });
    expect(view.submit?.text).toBe('Submit');
  });

  it('renders one input per field, with the field name as block id', () => {
    const inputs = view.blocks.filter(isInput);
    expect(inputs.map((b) => [b.block_id, b.element.type, b.optional])).toEqual([
      ['note', 'plain_text_input', false],
      ['amount', 'number_input', false],
      ['notify', 'radio_buttons', false],
      ['region', 'radio_buttons', false],
      ['comment', 'plain_text_input', true],
    ]);
    expect([inputs[0]?.label.text, inputs[0]?.hint?.text]).toEqual(['Anything the tool should know', 'Anything the tool should know, in a sentence or two']);
    expect(inputs[1]?.element).toMatchObject({ is_decimal_allowed: true });
    expect(inputs[2]?.element).toMatchObject({
      options: [
        { text: { text: 'Yes' }, value: 'true' },
        { text: { text: 'No' }, value: 'false' },
      ],
    });
    expect(inputs[3]?.element).toMatchObject({
      options: [
        { text: { text: 'us-east-1' }, value: '0' },
        { text: { text: 'eu-west-1' }, value: '1' },
      ],
    });
  });

  it('renders an enum too long for a menu as text, listing the values in the hint', () => {
    const values = Array.from({ length: 150 }, (_, i) => `v${i}`);
    const v = respondModal({ actionId: 1, toolName: 't', form: { fields: [{ name: 'pick', required: true, field: enumOf(values) }] } });
    expect(viewLimitErrors(v, 'modal')).toEqual([]);
    const input = v.blocks.find(isInput);
    expect(input?.element.type).toBe('plain_text_input');
    expect(input?.hint?.text).toMatch(/^One of: v0, v1, /);
  });

  it('stays valid with hostile, long and numerous fields', () => {
    const options = Array.from({ length: 100 }, (_, j) => ({ value: `${INJECTION}${'o'.repeat(200)}${j}`, label: `${INJECTION}${'o'.repeat(200)}${j}` }));
    const kinds: ElicitationField[] = [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }, { type: 'enum', options }];
    const fields: FormEntry[] = Array.from({ length: 150 }, (_, i) => ({
      name: `${INJECTION}${'n'.repeat(300)}${i}`,
      required: i % 2 !== 0,
      field: { ...kinds[i % 4]!, description: `${INJECTION}${'d'.repeat(5000)}` } as ElicitationField,
    }));
    const v = respondModal({ actionId: 1, toolName: INJECTION.repeat(50), form: { fields } });
    expect(viewLimitErrors(v, 'modal')).toEqual([]);
    expectNoInjection(v);
    expect(v.blocks).toHaveLength(100);
    expect(JSON.stringify(v.blocks.at(-1))).toContain('52 more fields do not fit');
    const ids = v.blocks.filter(isInput).map((b) => b.block_id);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe('parseRespondModal', () => {
  it('parses a real-shaped submission into typed data', () => {
    expect(fixture.view.callback_id).toBe('suspension.respond_modal');
    expect(parseRespondModal(FORM, fixture.view.state.values)).toEqual({
      ok: true,
      content: { note: 'Ship it after the <!here> freeze & review', amount: 12.5, notify: false, region: 'eu-west-1' },
    });
  });

  it('reads true, integers and optional values', () => {
    const result = parseRespondModal(FORM, {
      note: text('x'),
      amount: text('-3'),
      notify: selected('true'),
      region: selected('0'),
      comment: text('extra'),
    });
    expect(result).toEqual({
      ok: true,
      content: { note: 'x', amount: -3, notify: true, region: 'us-east-1', comment: 'extra' },
    });
  });

  it('reports per-field errors keyed by block id', () => {
    const result = parseRespondModal(FORM, {
      note: text('  '),
      amount: text('twelve'),
      notify: selected('maybe'),
      region: selected('7'),
    });
    expect(result).toEqual({
      ok: false,
      errors: {
        note: 'This field is required.',
        amount: 'Enter a number.',
        notify: 'Choose Yes or No.',
        region: 'Choose one of the options.',
      },
    });
  });

  it('reports missing required fields and ignores missing optional ones', () => {
    expect(parseRespondModal(FORM, {})).toEqual({
      ok: false,
      errors: {
        note: 'This field is required.',
        amount: 'This field is required.',
        notify: 'This field is required.',
        region: 'This field is required.',
      },
    });
    expect(parseRespondModal({ fields: [{ name: 'c', required: false, field: { type: 'string' } }] }, {})).toEqual({ ok: true, content: {} });
  });

  it('checks text-entered enum values for membership', () => {
    const values = Array.from({ length: 150 }, (_, i) => `v${i}`);
    const form: Form = { fields: [{ name: 'pick', required: true, field: enumOf(values) }] };
    expect(parseRespondModal(form, { pick: text('v149') })).toEqual({ ok: true, content: { pick: 'v149' } });
    const bad = parseRespondModal(form, { pick: text('v150') });
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.errors.pick).toMatch(/^Choose one of: v0, v1/);
  });

  it('maps long field names through the same block ids the modal used', () => {
    const entry: FormEntry = { name: 'x'.repeat(300), required: true, field: { type: 'number' } };
    const blockId = blockIdByName(entry, 0);
    expect(blockId.length).toBeLessThanOrEqual(255);
    expect(respondModal({ actionId: 1, toolName: 't', form: { fields: [entry] } }).blocks[1]?.block_id).toBe(blockId);
    expect(parseRespondModal({ fields: [entry] }, { [blockId]: text('5') })).toEqual({ ok: true, content: { [entry.name]: 5 } });
  });
});
