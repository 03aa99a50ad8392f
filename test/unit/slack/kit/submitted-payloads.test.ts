import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { blockActionsSchema, viewSubmissionSchema } from '../../../../src/slack/kit/submitted-payloads.js';
import { blockActionsPayload, viewSubmissionPayload } from '../../../../src/simulator/index.js';

const respondSubmission = JSON.parse(readFileSync(fileURLToPath(new URL('../../../fixtures/slack/view_submission_respond.json', import.meta.url)), 'utf8')) as Record<string, any>;

const view = (values: Record<string, Record<string, unknown>>) => viewSubmissionPayload({ user: 'U0A', callbackId: 'cb', privateMetadata: '{"a":1}', stateValues: values as never });
const parses = (payload: unknown) => viewSubmissionSchema.safeParse(payload).success;

describe('submitted payloads', () => {
  it('takes what Slack sends for every element the bot draws, keeping fields it does not read', () => {
    expect(parses(respondSubmission)).toBe(true);
    const every = view({
      a: { v: { type: 'plain_text_input', value: 'text' } },
      b: { v: { type: 'plain_text_input', value: null } },
      c: { v: { type: 'number_input', value: '12.5' } },
      d: { v: { type: 'radio_buttons', selected_option: { text: { type: 'plain_text', text: 'Yes' }, value: 'true' } } },
      e: { v: { type: 'static_select', selected_option: null } },
      f: { v: { type: 'checkboxes', selected_options: [] } },
      g: { v: { type: 'multi_static_select', selected_options: [{ value: '0' }, { value: '3' }] } },
      h: { v: { type: 'datepicker', selected_date: '2026-12-24' } },
      i: { v: { type: 'datetimepicker', selected_date_time: 1_767_225_600 } },
      j: { v: { type: 'email_text_input', value: 'a@example.com' } },
      k: { v: { type: 'users_select', selected_user: 'U0B' } },
    });
    const parsed = viewSubmissionSchema.parse(every);
    expect(parsed.view.state.values.k!.v).toEqual({ type: 'users_select', selected_user: 'U0B' });
    expect((parsed.view as Record<string, unknown>).hash).toBe((every.view as Record<string, unknown>).hash);
    const click = blockActionsPayload({ user: 'U0A', channel: 'C0', messageTs: '1.2', threadTs: '1.1', actionId: 'x', blockId: 'approval:1', value: '{"a":1}' });
    expect(blockActionsSchema.parse(click).actions[0]).toMatchObject({ type: 'button', action_id: 'x', block_id: 'approval:1', value: '{"a":1}' });
  });

  it('refuses a value of the wrong type, past its element’s bound, a repeated option or an impossible date', () => {
    for (const state of [
      { type: 'plain_text_input', value: { x: 1 } },
      { type: 'plain_text_input', value: 3 },
      { type: 'plain_text_input', value: 'x'.repeat(3001) },
      { type: 'radio_buttons', selected_option: 'true' },
      { type: 'radio_buttons', selected_option: { value: true } },
      { type: 'checkboxes', selected_options: [{ value: '1' }, { value: '1' }] },
      { type: 'checkboxes', selected_options: Array.from({ length: 101 }, (_, i) => ({ value: String(i) })) },
      { type: 'checkboxes', selected_options: { value: '1' } },
      { type: 'datepicker', selected_date: '2026-02-31x' },
      { type: 'datepicker', selected_date: '2026-99-99' },
      { type: 'datetimepicker', selected_date_time: 1e20 },
      { type: 'datetimepicker', selected_date_time: '1767225600' },
    ]) {
      expect(parses(view({ f0: { value: state } })), JSON.stringify(state).slice(0, 80)).toBe(false);
    }
    const noState = view({});
    delete (noState.view as Record<string, unknown>).state;
    expect(parses(noState)).toBe(false);
    expect(parses({ ...view({}), user: { id: 5 } })).toBe(false);
    const click = blockActionsPayload({ user: 'U0A', channel: 'C0', messageTs: '1.2', actionId: 'x', value: 'v' });
    expect(blockActionsSchema.safeParse({ ...click, actions: [] }).success).toBe(false);
    expect(blockActionsSchema.safeParse({ ...click, container: { message_ts: 1.2 } }).success).toBe(false);
    expect(blockActionsSchema.safeParse({ ...click, actions: [{ ...(click.actions as object[])[0], value: ['v'] }] }).success).toBe(false);
  });
});
