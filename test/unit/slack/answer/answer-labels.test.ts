import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { answeredText, summariseAnswer } from '../../../../src/slack/card/answer-card.js';
import { respondModal } from '../../../../src/slack/answer/answer-modals.js';
import { confirmationOf, formOfZod } from '../../../../src/slack/kit/form-fields.js';
import { fieldText } from '../../../../src/slack/kit/form-inputs.js';
import { humanizeKey } from '../../../../src/slack/kit/format-arg-value.js';
import { checkedView } from '../../../../src/simulator/index.js';

describe('resume schema labels', () => {
  it('labels a field with its title, else its description, else the key in words; the description is the hint only when the label does not say it all', () => {
    const schema = z.object({
      deployNow: z.boolean().meta({ title: 'Deploy now?', description: 'Goes out to every region' }),
      reason: z.string().describe('Why this deploy').optional(),
      ticketId: z.string().optional(),
      region: z.enum(['eu', 'us']).meta({ title: 'Region' }).default('eu'),
    });
    const form = formOfZod(schema)!;
    expect(form.fields.map((f) => [f.name, fieldText(f).label, fieldText(f).hint])).toEqual([
      ['deployNow', 'Deploy now?', 'Goes out to every region'],
      ['reason', 'Why this deploy', undefined],
      ['ticketId', 'Ticket ID', undefined],
      ['region', 'Region', undefined],
    ]);
  });

  it('shows the question at the top of the Respond modal and labels from the schema, within Slack limits', () => {
    const form = formOfZod(z.object({ deployNow: z.boolean().meta({ title: 'Deploy now?', description: 'All regions' }), note: z.string().describe('A note to the team') }))!;
    const view = respondModal({ actionId: 4, toolName: 'deploy_service', question: 'Deploy <!here> api & web?', form });
    expect(checkedView({ view: view as unknown as Record<string, unknown> }, 'modal')).toBeDefined();
    const [intro, first, second] = view.blocks as Array<{ text?: { text: string }; label?: { text: string }; hint?: { text: string }; block_id?: string }>;
    expect(intro!.text!.text).toContain('Deploy &lt;!here&gt; api &amp; web?');
    expect(intro!.text!.text).toContain('`deploy_service`');
    expect([first!.block_id, first!.label!.text, first!.hint?.text]).toEqual(['deployNow', 'Deploy now?', 'All regions']);
    expect([second!.block_id, second!.label!.text, second!.hint]).toEqual(['note', 'Note to the team', undefined]);
  });

  it('keeps a huge question within the modal limits', () => {
    const form = formOfZod(z.object({ a: z.string() }))!;
    const view = respondModal({ actionId: 4, toolName: 't', question: '<&>'.repeat(5000), form });
    expect(() => checkedView({ view: view as unknown as Record<string, unknown> }, 'modal')).not.toThrow();
  });
});

describe('yes/no confirmations', () => {
  it('are a bare boolean or an object with exactly one boolean field', () => {
    expect(confirmationOf(z.boolean())!.answer(false)).toBe(false);
    expect(confirmationOf(z.object({ confirmed: z.boolean() }))!.answer(true)).toEqual({ confirmed: true });
    expect(confirmationOf(z.object({ ok: z.boolean().optional() }))!.field).toBe('ok');
    expect(confirmationOf(z.object({ ok: z.boolean(), why: z.string() }))).toBeUndefined();
    expect(confirmationOf(z.object({ name: z.string() }))).toBeUndefined();
    expect(confirmationOf(z.string())).toBeUndefined();
    expect(confirmationOf(undefined)).toBeUndefined();
  });
});

describe('what an answer said', () => {
  const label = (key: string) => (key === 'deployNow' ? 'Deploy now' : humanizeKey(key));

  it('says a yes/no answer as Yes or No, a bare value as itself, a structured one as pairs', () => {
    expect(summariseAnswer({ confirmed: false }, label)).toEqual({ kind: 'value', text: 'No' });
    expect(summariseAnswer(true, label)).toEqual({ kind: 'value', text: 'Yes' });
    expect(summariseAnswer('v1.2.3', label)).toEqual({ kind: 'value', text: 'v1.2.3' });
    expect(summariseAnswer(['a', 'b'], label)).toEqual({ kind: 'value', text: 'a, b' });
    expect(summariseAnswer({ deployNow: true, refundAmount: 12.5, tags: ['x'] }, label)).toEqual({
      kind: 'pairs',
      pairs: [
        { label: 'Deploy now', value: 'Yes' },
        { label: 'Refund amount', value: '12.5' },
        { label: 'Tags', value: 'x' },
      ],
    });
    expect(summariseAnswer(null, label)).toEqual({ kind: 'none' });
    expect(summariseAnswer({}, label)).toEqual({ kind: 'none' });
  });

  it('renders "Answered *No* by" with the value escaped, long values below the line', () => {
    expect(answeredText({ kind: 'value', text: 'No' }, 'U0ALICE', 2000)).toBe('Answered *No* by <@U0ALICE>');
    expect(answeredText({ kind: 'value', text: '<!channel> *x*' }, 'U0ALICE', 2000)).toBe('Answered *&lt;!channel&gt; ∗x∗* by <@U0ALICE>');
    expect(answeredText({ kind: 'value', text: 'line one\nline two' }, 'U0ALICE', 2000)).toBe('Answered by <@U0ALICE>:\nline one\nline two');
    expect(answeredText({ kind: 'none' }, '<!here>', 2000)).toBe('Answered by &lt;!here&gt;');
  });
});
