import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { JSONSchema7 } from '@ai-sdk/provider';
import { describeArgs, escapeOwnDescription, formLabel, labelOf } from '../../../../src/slack/kit/describe-args.js';
import { formatArgValue, formatCents, isMoneyInCents, humanizeKey, humanizeWords } from '../../../../src/slack/kit/format-arg-value.js';
import { approvalCard } from '../../../../src/slack/card/approval-card.js';
import { blockLimitErrors } from '../../../../src/simulator/index.js';
import { approvalCardData } from '../../../helpers/slack/approval-card-data.js';

const schemaOf = (s: z.ZodType) => z.toJSONSchema(s, { io: 'input', unrepresentable: 'any' }) as JSONSchema7;

describe('humanize', () => {
  it('turns tool ids into a title', () => {
    expect(humanizeWords('issue_refund')).toBe('Issue refund');
    expect(humanizeWords('deployService')).toBe('Deploy service');
    expect(humanizeWords('github__create_issue')).toBe('Github create issue');
    expect(humanizeWords('prod_eu')).toBe('Prod eu');
    expect(humanizeWords('USD')).toBe('USD');
    expect(humanizeWords('US_EAST')).toBe('US EAST');
  });

  it('turns keys into labels: units dropped, acronyms capitalised', () => {
    expect(humanizeKey('amountCents')).toBe('Amount');
    expect(humanizeKey('amount_cents')).toBe('Amount');
    expect(humanizeKey('order_id')).toBe('Order ID');
    expect(humanizeKey('orderId')).toBe('Order ID');
    expect(humanizeKey('callbackURL')).toBe('Callback URL');
    expect(humanizeKey('cents')).toBe('Cents');
  });
});

describe('labelOf', () => {
  it('prefers the schema title, then a short description, then the key in words', () => {
    expect(labelOf('amountCents', { title: 'Refund amount', description: 'The amount in cents' })).toBe('Refund amount');
    expect(labelOf('orderId', { description: 'The order id, e.g. "1042"' })).toBe('Order id');
    expect(labelOf('amountCents', { description: 'The amount to refund in cents: 1250 is $12.50' })).toBe('Amount to refund');
    expect(labelOf('note', { description: 'A very long description that goes on and on about what this field is for and more' })).toBe('Note');
    expect(labelOf('order_id', undefined)).toBe('Order ID');
  });
});

describe('formLabel', () => {
  it('is the card\'s label, with the unit a form types in, and the description as hint when the label does not say all of it', () => {
    expect(formLabel('orderId', undefined)).toEqual({ label: 'Order ID' });
    expect(formLabel('amountCents', undefined)).toEqual({ label: 'Amount (cents)' });
    expect(formLabel('amountCents', { description: 'The amount to refund in cents: 1250 is $12.50' })).toEqual({ label: 'Amount to refund (cents)', hint: 'The amount to refund in cents: 1250 is $12.50' });
    expect(formLabel('orderId', { description: 'The order to refund' })).toEqual({ label: 'Order to refund' });
    expect(formLabel('orderId', { description: 'The order id, e.g. "1042"' })).toEqual({ label: 'Order id', hint: 'The order id, e.g. "1042"' });
    expect(formLabel('deployNow', { title: 'Deploy now?', description: 'Goes out to every region' })).toEqual({ label: 'Deploy now?', hint: 'Goes out to every region' });
  });
});

describe('formatArgValue', () => {
  it('shows money in cents as currency', () => {
    expect(formatArgValue(150050, { key: 'amountCents' })).toBe('$1,500.50');
    expect(formatArgValue(150050, { key: 'amount_cents' })).toBe('$1,500.50');
    expect(formatArgValue(999, { key: 'total', schema: { type: 'integer', description: 'Total in cents' } })).toBe('$9.99');
    expect(formatArgValue(150050, { key: 'amountCents', currency: 'EUR' })).toBe('€1,500.50');
    expect(formatArgValue(150050, { key: 'amountCents', currency: 'gbp' })).toBe('£1,500.50');
    // Zero-decimal currencies count whole units.
    expect(formatArgValue(1500, { key: 'amountCents', currency: 'JPY' })).toBe('¥1,500');
    // Not a currency code: dollars, as if none were given.
    expect(formatArgValue(100, { key: 'amountCents', currency: 'not-a-code' })).toBe('$1.00');
    expect(formatArgValue(100, { key: 'amountCents', currency: 'ZZZ' })).toMatch(/1\.00/);
    expect(formatArgValue(-250, { key: 'deltaCents' })).toBe('-$2.50');
  });

  it('leaves other numbers alone', () => {
    expect(formatArgValue(150050, { key: 'count' })).toBe('150050');
    expect(formatArgValue(8080, { key: 'port' })).toBe('8080');
    expect(isMoneyInCents('percent')).toBe(false);
    expect(formatArgValue(Number.NaN, { key: 'x' })).toBe('NaN');
  });

  it('shows enum values and booleans in words', () => {
    const schema = schemaOf(z.object({ region: z.enum(['prod_eu', 'staging']) })).properties!.region as JSONSchema7;
    expect(formatArgValue('prod_eu', { key: 'region', schema })).toBe('Prod eu');
    expect(formatArgValue(true, { key: 'force' })).toBe('Yes');
    expect(formatArgValue(false, { key: 'force' })).toBe('No');
    // Not an enum value: shown as written.
    expect(formatArgValue('prod_eu', { key: 'region' })).toBe('prod_eu');
  });

  it('shows dates and date-times with Slack date formatting', () => {
    const at = new Date('2030-01-02T03:04:05Z');
    expect(formatArgValue('2030-01-02T03:04:05Z', { key: 'at' })).toBe(`<!date^${at.getTime() / 1000}^{date_short_pretty} {time}|2030-01-02T03:04:05.000Z>`);
    expect(formatArgValue('2030-01-02T03:04:05Z', { key: 'at', schema: { type: 'string', format: 'date-time' } })).toContain('<!date^');
    const noon = Date.UTC(2030, 0, 2, 12) / 1000;
    expect(formatArgValue('2030-01-02', { key: 'day', schema: { type: 'string', format: 'date' } })).toBe(`<!date^${noon}^{date_short_pretty}|2030-01-02>`);
    expect(formatArgValue('2030-01-02', { key: 'day' })).toBe(`<!date^${noon}^{date_short_pretty}|2030-01-02>`);
    // Not a real date: plain (escaped) text, never a token.
    expect(formatArgValue('2030-13-45T99:99:99Z', { key: 'at' })).toBe('2030-13-45T99:99:99Z');
    expect(formatArgValue('next tuesday', { key: 'at', schema: { type: 'string', format: 'date-time' } })).toBe('next tuesday');
  });

  it('shows nested values as compact JSON in inline code, escaped', () => {
    expect(formatArgValue({ a: 1, b: [1, 2] }, { key: 'x' })).toBe('`{"a":1,"b":[1,2]}`');
    expect(formatArgValue(['<!here>'], { key: 'x' })).toBe('`["&lt;!here&gt;"]`');
    expect(formatArgValue({ s: '`tick`' }, { key: 'x' })).not.toMatch(/`.*`.*`/);
  });

  it('escapes model-controlled text so it cannot mention or link', () => {
    expect(formatArgValue('<!channel> & <@U123>', { key: 'note' })).toBe('&lt;!channel&gt; &amp; &lt;@U123&gt;');
    expect(formatArgValue('', { key: 'note' })).toBe('_empty_');
    expect(formatArgValue(null, { key: 'note' })).toBe('_none_');
    expect(formatArgValue('x'.repeat(5000), { key: 'note', maxChars: 100 })).toHaveLength(100);
  });

  it('formats cents on their own', () => {
    expect(formatCents(0)).toBe('$0.00');
    expect(formatCents(123456789)).toBe('$1,234,567.89');
  });
});

describe('describeArgs', () => {
  const refundSchema = schemaOf(
    z.object({
      orderId: z.string().describe('The order id, e.g. "1042"'),
      amountCents: z.number().int().meta({ title: 'Amount' }),
      express: z.boolean().optional(),
      region: z.enum(['prod_eu', 'us_east']),
      notBefore: z.string().meta({ format: 'date-time' }).optional(),
      meta: z.object({ ticket: z.string() }).optional(),
    }),
  );

  it('titles the call with the tool id in words and gives one field per argument, in schema order', () => {
    const described = describeArgs('issue_refund', { region: 'prod_eu', amountCents: 150050, orderId: '1042', express: true, meta: { ticket: 'T-1' } }, refundSchema);
    expect(described).toEqual({
      title: 'Issue refund',
      fields: [
        { label: 'Order id', value: '1042' },
        { label: 'Amount', value: '$1,500.50' },
        { label: 'Express', value: 'Yes' },
        { label: 'Region', value: 'Prod eu' },
        { label: 'Meta', value: '`{"ticket":"T-1"}`' },
      ],
    });
  });

  it('uses the currency argument for amounts', () => {
    const described = describeArgs('charge', { amount_cents: 2500, currency: 'EUR' });
    expect(described.fields).toContainEqual({ label: 'Amount', value: '€25.00' });
    expect(described.fields).toContainEqual({ label: 'Currency', value: 'EUR' });
  });

  it('describes arguments without a schema, and ones the schema does not name', () => {
    const described = describeArgs('x', { 'order_id': 'A', '<!here>': 'b' }, refundSchema);
    expect(described.fields.map((f) => f.label)).toEqual(['Order ID', '<!here>']);
  });

  it('copes with arguments that are not an object, or many of them', () => {
    expect(describeArgs('t', undefined).fields).toEqual([]);
    expect(describeArgs('t', 'plain').fields).toEqual([{ label: 'Arguments', value: 'plain' }]);
    expect(describeArgs('t', [1, 2]).fields).toEqual([{ label: 'Arguments', value: '`[1,2]`' }]);
    const many = Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`k${i}`, i]));
    const fields = describeArgs('t', many).fields;
    expect(fields).toHaveLength(41);
    expect(fields.at(-1)!.value).toContain('20 more arguments');
  });

  it('renders into a card Slack accepts, whatever the arguments', () => {
    const args = { ...Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`key_${i}_${'k'.repeat(100)}`, '<&>'.repeat(2000)])) };
    const blocks = approvalCard(approvalCardData({ args, fields: describeArgs('t', args).fields }));
    expect(blockLimitErrors(blocks)).toEqual([]);
  });
});

describe('escapeOwnDescription', () => {
  it('escapes the values a tool wrote (they carry model text), and fills blanks', () => {
    const own = escapeOwnDescription({ title: '  Refund <!channel>  ', fields: [{ label: ' ', value: '<@U1> & co' }, { label: 'Empty', value: '' }] });
    expect(own.title).toBe('Refund <!channel>');
    expect(own.fields).toEqual([
      { label: '—', value: '&lt;@U1&gt; &amp; co' },
      { label: 'Empty', value: '—' },
    ]);
    const blocks = approvalCard(approvalCardData({ title: own.title, fields: own.fields }));
    expect(blockLimitErrors(blocks)).toEqual([]);
    expect(JSON.stringify(blocks)).not.toContain('<@U1>');
  });
});
