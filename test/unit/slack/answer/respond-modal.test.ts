import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { AnyBlock, InputBlock } from '@slack/types';
import { describe, expect, it } from 'vitest';
import type { RespondField } from '../../../../src/slack/card/card-types.js';
import type { ViewStateValues } from '../../../../src/slack/kit/submitted-payloads.js';
import { parseRespondModal, respondFieldBlockId, respondModal } from '../../../../src/slack/answer/respond-modal.js';
import { viewLimitErrors } from '../../../../src/simulator/index.js';
import { expectNoInjection, INJECTION } from '../../../helpers/slack/block-text.js';

const fixture = JSON.parse(
  readFileSync(fileURLToPath(new URL('../../../fixtures/slack/view_submission_respond.json', import.meta.url)), 'utf8'),
) as { view: { private_metadata: string; callback_id: string; state: { values: ViewStateValues } } };

const FIELDS: RespondField[] = [
  { name: 'note', kind: 'string', optional: false, description: 'Anything the tool should know' },
  { name: 'amount', kind: 'number', optional: false },
  { name: 'notify', kind: 'boolean', optional: false },
  { name: 'region', kind: 'enum', options: ['us-east-1', 'eu-west-1'], optional: false },
  { name: 'comment', kind: 'string', optional: true },
];

const isInput = (b: AnyBlock): b is InputBlock => b.type === 'input';
const text = (value: string | null) => ({ value: { type: 'plain_text_input', value } });
const selected = (value: string) => ({ value: { type: 'static_select', selected_option: { value } } });

describe('respondModal', () => {
  const view = respondModal({ actionId: 314, toolName: 'deploy_service', fields: FIELDS });

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
      ['region', 'static_select', false],
      ['comment', 'plain_text_input', true],
    ]);
    expect(inputs[0]?.hint?.text).toBe('Anything the tool should know');
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
    const v = respondModal({ actionId: 1, toolName: 't', fields: [{ name: 'pick', kind: 'enum', options: values, optional: false }] });
    expect(viewLimitErrors(v, 'modal')).toEqual([]);
    const input = v.blocks.find(isInput);
    expect(input?.element.type).toBe('plain_text_input');
    expect(input?.hint?.text).toMatch(/^One of: v0, v1, /);
  });

  it('stays valid with hostile, long and numerous fields', () => {
    const fields: RespondField[] = Array.from({ length: 150 }, (_, i) => ({
      name: `${INJECTION}${'n'.repeat(300)}${i}`,
      kind: (['string', 'number', 'boolean', 'enum'] as const)[i % 4]!,
      options: Array.from({ length: 100 }, (_, j) => `${INJECTION}${'o'.repeat(200)}${j}`),
      optional: i % 2 === 0,
      description: `${INJECTION}${'d'.repeat(5000)}`,
    }));
    const v = respondModal({ actionId: 1, toolName: INJECTION.repeat(50), fields });
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
    expect(parseRespondModal(FIELDS, fixture.view.state.values)).toEqual({
      ok: true,
      data: { note: 'Ship it after the <!here> freeze & review', amount: 12.5, notify: false, region: 'eu-west-1' },
    });
  });

  it('reads true, integers and optional values', () => {
    const result = parseRespondModal(FIELDS, {
      note: text('x'),
      amount: text('-3'),
      notify: selected('true'),
      region: selected('0'),
      comment: text('extra'),
    });
    expect(result).toEqual({
      ok: true,
      data: { note: 'x', amount: -3, notify: true, region: 'us-east-1', comment: 'extra' },
    });
  });

  it('reports per-field errors keyed by block id', () => {
    const result = parseRespondModal(FIELDS, {
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
        region: 'Choose one of: us-east-1 or eu-west-1',
      },
    });
  });

  it('reports missing required fields and ignores missing optional ones', () => {
    expect(parseRespondModal(FIELDS, {})).toEqual({
      ok: false,
      errors: {
        note: 'This field is required.',
        amount: 'This field is required.',
        notify: 'This field is required.',
        region: 'This field is required.',
      },
    });
    expect(parseRespondModal([{ name: 'c', kind: 'string', optional: true }], {})).toEqual({ ok: true, data: {} });
  });

  it('checks text-entered enum values for membership', () => {
    const values = Array.from({ length: 150 }, (_, i) => `v${i}`);
    const fields: RespondField[] = [{ name: 'pick', kind: 'enum', options: values, optional: false }];
    expect(parseRespondModal(fields, { pick: text('v149') })).toEqual({ ok: true, data: { pick: 'v149' } });
    const bad = parseRespondModal(fields, { pick: text('v150') });
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.errors.pick).toMatch(/^Choose one of: v0, v1/);
  });

  it('maps long field names through the same block ids the modal used', () => {
    const field: RespondField = { name: 'x'.repeat(300), kind: 'number', optional: false };
    const blockId = respondFieldBlockId(field, 0);
    expect(blockId.length).toBeLessThanOrEqual(255);
    expect(respondModal({ actionId: 1, toolName: 't', fields: [field] }).blocks[1]?.block_id).toBe(blockId);
    expect(parseRespondModal([field], { [blockId]: text('5') })).toEqual({ ok: true, data: { [field.name]: 5 } });
  });
});
