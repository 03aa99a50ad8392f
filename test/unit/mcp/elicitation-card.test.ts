import { describe, expect, it } from 'vitest';
import { elicitationForm } from '../../../src/mcp/elicitation-form.js';
import type { ElicitationForm, McpElicitationPayload } from '../../../src/mcp/elicitation-payload.js';
import { elicitationCard } from '../../../src/slack/card/elicitation-card.js';
import { elicitationModal, parseElicitationModal } from '../../../src/slack/answer/answer-modals.js';
import { fieldElement, readField as parseFieldValue } from '../../../src/slack/kit/form-inputs.js';
import { blockLimitErrors, viewLimitErrors } from '../../../src/simulator/index.js';

const form = (fields: ElicitationForm['fields']): McpElicitationPayload => ({ kind: 'mcp-elicitation', server: 'tracker', tool: 'triage', message: 'Details?', mode: 'form', form: { fields }, waitsInCallUntil: '2026-12-01T15:00:00.000Z' });
const options = (n: number) => Array.from({ length: n }, (_, i) => ({ value: `v${i}`, label: `Option ${i}` }));

describe('elicitationForm', () => {
  it('maps each property of the requested schema to a field kind', () => {
    expect(
      elicitationForm({
        type: 'object',
        properties: {
          name: { type: 'string', title: 'Name', minLength: 2 },
          mail: { type: 'string', format: 'email' },
          size: { type: 'string', oneOf: [{ const: 's', title: 'Small' }, { const: 'l', title: 'Large' }] },
          tags: { type: 'array', items: { type: 'string', enum: ['a', 'b'] }, maxItems: 2 },
          n: { type: 'number', minimum: 0 },
          ok: { type: 'boolean', default: false },
        },
        required: ['name'],
      })!.fields,
    ).toEqual([
      { name: 'name', required: true, field: { type: 'string', title: 'Name', minLength: 2 } },
      { name: 'mail', required: false, field: { type: 'string', format: 'email' } },
      { name: 'size', required: false, field: { type: 'enum', options: [{ value: 's', label: 'Small' }, { value: 'l', label: 'Large' }] } },
      { name: 'tags', required: false, field: { type: 'multi-enum', options: [{ value: 'a', label: 'a' }, { value: 'b', label: 'b' }], maxItems: 2 } },
      { name: 'n', required: false, field: { type: 'number', minimum: 0 } },
      { name: 'ok', required: false, field: { type: 'boolean', default: false } },
    ]);
  });
});

describe('elicitation inputs', () => {
  it('pick the element by type, format and option count', () => {
    const el = (f: Parameters<typeof fieldElement>[0]) => fieldElement(f, 'v').type;
    expect(el({ type: 'integer', minimum: 1, maximum: 3 })).toBe('number_input');
    expect(fieldElement({ type: 'integer', minimum: 1, maximum: 3 }, 'v')).toMatchObject({ is_decimal_allowed: false, min_value: '1', max_value: '3' });
    expect(el({ type: 'string', format: 'email' })).toBe('email_text_input');
    expect(el({ type: 'string', format: 'uri' })).toBe('url_text_input');
    expect(el({ type: 'string', format: 'date' })).toBe('datepicker');
    expect(el({ type: 'string', format: 'date-time' })).toBe('datetimepicker');
    expect(el({ type: 'string' })).toBe('plain_text_input');
    expect(el({ type: 'enum', options: options(5) })).toBe('radio_buttons');
    expect(el({ type: 'enum', options: options(6) })).toBe('static_select');
    expect(el({ type: 'multi-enum', options: options(10) })).toBe('checkboxes');
    expect(el({ type: 'multi-enum', options: options(11) })).toBe('multi_static_select');
  });

  it('check answers: required, min/max, whole numbers, formats, options by index', () => {
    expect(parseFieldValue({ type: 'integer', maximum: 5 }, true, { value: '6' })).toEqual({ ok: false, error: 'Enter at most 5.' });
    expect(parseFieldValue({ type: 'integer' }, true, { value: '1.5' })).toEqual({ ok: false, error: 'Enter a whole number.' });
    expect(parseFieldValue({ type: 'string', format: 'email' }, true, { value: 'nope' })).toEqual({ ok: false, error: 'Enter an email address.' });
    expect(parseFieldValue({ type: 'string' }, true, { value: ' ' })).toEqual({ ok: false, error: 'This field is required.' });
    expect(parseFieldValue({ type: 'string' }, false, { value: '' })).toEqual({ ok: true, value: undefined });
    expect(parseFieldValue({ type: 'enum', options: options(3) }, true, { selected_option: { value: '2' } })).toEqual({ ok: true, value: 'v2' });
    expect(parseFieldValue({ type: 'enum', options: options(3) }, true, { selected_option: { value: '9' } })).toMatchObject({ ok: false });
    expect(parseFieldValue({ type: 'multi-enum', options: options(3) }, true, { selected_options: [{ value: '0' }, { value: '2' }] })).toEqual({ ok: true, value: ['v0', 'v2'] });
    expect(parseFieldValue({ type: 'string', format: 'date-time' }, true, { selected_date_time: 1_767_225_600 })).toEqual({ ok: true, value: '2026-01-01T00:00:00.000Z' });
  });

  it('holds an answer to the bounds its input declares: a text past its max_length, an option chosen twice', () => {
    // No maxLength of its own: the input holds 3,000 characters, and so does the answer.
    expect(parseFieldValue({ type: 'string' }, true, { value: 'x'.repeat(3000) })).toEqual({ ok: true, value: 'x'.repeat(3000) });
    expect(parseFieldValue({ type: 'string' }, true, { value: 'x'.repeat(3001) })).toEqual({ ok: false, error: 'Enter at most 3000 characters.' });
    expect(parseFieldValue({ type: 'string', maxLength: 10_000 }, true, { value: 'x'.repeat(3001) })).toEqual({ ok: false, error: 'Enter at most 3000 characters.' });
    expect(parseFieldValue({ type: 'string', maxLength: 4 }, true, { value: 'abcde' })).toEqual({ ok: false, error: 'Enter at most 4 characters.' });
    expect(fieldElement({ type: 'string', maxLength: 10_000 }, 'value')).toMatchObject({ max_length: 3000 });
    expect(parseFieldValue({ type: 'multi-enum', options: options(3) }, true, { selected_options: [{ value: '1' }, { value: '1' }] })).toEqual({ ok: false, error: 'Choose each option at most once.' });
    expect(parseFieldValue({ type: 'multi-enum', options: options(3), maxItems: 2 }, true, { selected_options: [{ value: '0' }, { value: '0' }] })).toMatchObject({ ok: false });
    // As many as the field allows, each once: one more than its maxItems is refused, though each is an option.
    expect(parseFieldValue({ type: 'multi-enum', options: options(3), maxItems: 2 }, true, { selected_options: [{ value: '0' }, { value: '2' }] })).toEqual({ ok: true, value: [options(3)[0]!.value, options(3)[2]!.value] });
    expect(parseFieldValue({ type: 'multi-enum', options: options(3), maxItems: 2 }, true, { selected_options: [{ value: '0' }, { value: '1' }, { value: '2' }] })).toEqual({ ok: false, error: 'Choose at most 2.' });
  });
});

describe('elicitationCard', () => {
  it('puts one field on the card and several behind Answer, within Block Kit limits, escaping the server\'s text', () => {
    const one = elicitationCard({ actionId: 4, toolName: 'tracker__triage', payload: { ...form([{ name: 'n', required: true, field: { type: 'integer' } }]), message: 'Hi <!channel> *x*' }, askedOf: 'U0REQ', state: { kind: 'pending' } });
    expect(blockLimitErrors(one)).toEqual([]);
    expect(JSON.stringify(one)).not.toContain('<!channel>');
    expect(one.find((b) => b.block_id === 'elicitation-field:4')).toMatchObject({ type: 'input', dispatch_action: true, element: { type: 'number_input' } });

    const many = elicitationCard({ actionId: 5, toolName: 't', payload: form(options(30).map((o) => ({ name: o.value, required: false, field: { type: 'string' as const, title: o.label.repeat(20) } }))), state: { kind: 'pending' } });
    expect(blockLimitErrors(many)).toEqual([]);
    expect(JSON.stringify(many)).toContain('elicitation.answer');

    const huge = elicitationCard({ actionId: 6, toolName: 't', payload: form([{ name: 'pick', required: true, field: { type: 'multi-enum', options: options(300).map((o) => ({ ...o, label: o.label.repeat(10) })) } }]), state: { kind: 'pending' } });
    expect(blockLimitErrors(huge)).toEqual([]);
  });

  it('shows a URL request\'s full URL and domain, and says when the call is made again instead of waiting', () => {
    const url = 'https://evil.example.net/login?next=https://tracker.example.com';
    const card = elicitationCard({ actionId: 7, toolName: 't', payload: { kind: 'mcp-elicitation', server: 's', tool: 't', message: 'Sign in', mode: 'url', url, elicitationId: 'e' }, state: { kind: 'pending' } });
    expect(blockLimitErrors(card)).toEqual([]);
    const text = JSON.stringify(card);
    expect(text).toContain('evil.example.net');
    expect(text).toContain('Open evil.example.net');
    expect(text).toContain('makes the call again');
  });

  it('answered and declined cards have no inputs left', () => {
    const answered = elicitationCard({ actionId: 8, toolName: 't', payload: form([{ name: 'n', required: true, field: { type: 'integer' } }]), state: { kind: 'answered', by: 'U0REQ', action: 'decline' } });
    expect(JSON.stringify(answered)).toContain('Declined by <@U0REQ>');
    expect(answered.some((b) => b.type === 'actions' || b.type === 'input')).toBe(false);
  });
});

describe('elicitationModal', () => {
  it('is a valid view whose submission parses to typed content, with errors by field', () => {
    const payload = form([
      { name: 'count', required: true, field: { type: 'integer', minimum: 1 } },
      { name: 'when', required: false, field: { type: 'string', format: 'date' } },
    ]);
    if (payload.mode !== 'form') throw new Error('form');
    const view = elicitationModal({ actionId: 3, message: payload.message, form: payload.form });
    expect(viewLimitErrors(view, 'modal')).toEqual([]);
    expect(parseElicitationModal(payload.form, { f0: { value: { value: '0' } } })).toEqual({ ok: false, errors: { f0: 'Enter at least 1.' } });
    expect(parseElicitationModal(payload.form, { f0: { value: { value: '2' } }, f1: { value: { selected_date: '2026-12-31' } } })).toEqual({ ok: true, content: { count: 2, when: '2026-12-31' } });
  });
});
