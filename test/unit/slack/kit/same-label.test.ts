import type { JSONSchema7 } from '@ai-sdk/provider';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { elicitationForm } from '../../../../src/mcp/elicitation-form.js';
import { elicitationModal, respondModal } from '../../../../src/slack/answer/answer-modals.js';
import { elicitationCard } from '../../../../src/slack/card/elicitation-card.js';
import { approvalCard } from '../../../../src/slack/card/approval-card.js';
import { editModal } from '../../../../src/slack/edit/edit-modal.js';
import { callFieldsLine, describeArgs, labelOf } from '../../../../src/slack/kit/describe-args.js';
import { editDiffText } from '../../../../src/slack/kit/edit-diff-text.js';
import { formOfJsonSchema, formOfZod } from '../../../../src/slack/kit/form-fields.js';
import { approvalCardData } from '../../../helpers/slack/approval-card-data.js';

/** One tool argument of each kind of label: a bare key, a short description, a title; and money in cents. */
const schema = z.object({
  orderId: z.string(),
  reason: z.string().describe('Why the refund is made'),
  region: z.enum(['eu', 'us']).meta({ title: 'Region of the order' }),
  amountCents: z.number().int(),
});
const json = z.toJSONSchema(schema, { io: 'input' }) as JSONSchema7;
const args = { orderId: 'A-1', reason: 'broken', region: 'eu', amountCents: 1250 };

type Block = Record<string, any>;
const inputLabels = (blocks: readonly Block[]) => blocks.filter((b) => b.type === 'input').map((b) => b.label.text as string);

describe('one argument, one label', () => {
  it('is named the same on the card, in the inbox, in an edit diff, in the Edit and Respond modals and in an MCP form', () => {
    const card = describeArgs('issue_refund', args, json).fields.map((f) => f.label);
    expect(card).toEqual(['Order ID', 'Why the refund is made', 'Region of the order', 'Amount']);

    const drawn = approvalCard(approvalCardData({ fields: describeArgs('issue_refund', args, json).fields }));
    for (const label of card) expect(JSON.stringify(drawn)).toContain(`*${label}*`);
    expect(callFieldsLine(describeArgs('issue_refund', args, json).fields)).toContain('*Order ID* A-1');
    expect(editDiffText('U0CAROL', [{ key: 'orderId', before: 'A-1', after: 'A-2' }], undefined, 2000, (key) => labelOf(key, json.properties?.[key] as JSONSchema7))).toContain('Order ID');

    // Forms type the number as it is stored: the same label, with its unit.
    const inForms = ['Order ID', 'Why the refund is made', 'Region of the order', 'Amount (cents)'];
    const edit = editModal({ actionId: 1, fingerprint: 'f'.repeat(64), toolName: 'issue_refund', form: formOfJsonSchema(json)!, current: args });
    expect(inputLabels(edit.blocks)).toEqual(inForms);
    const respond = respondModal({ actionId: 2, toolName: 'issue_refund', form: formOfZod(schema)! });
    expect(inputLabels(respond.blocks)).toEqual(inForms);
    const mcp = elicitationForm(json as never)!;
    expect(inputLabels(elicitationModal({ actionId: 3, message: 'Details?', form: mcp }).blocks)).toEqual(inForms);

    // A form of one field is drawn on the elicitation card itself, labelled the same.
    const one = elicitationCard({
      actionId: 4,
      toolName: 'tracker__refund',
      payload: { kind: 'mcp-elicitation', server: 'tracker', tool: 'refund', message: 'Which order?', mode: 'form', form: { fields: [mcp.fields[0]!] } },
      state: { kind: 'pending' },
    });
    expect(inputLabels(one)).toEqual(['Order ID']);
  });
});
