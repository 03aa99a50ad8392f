import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { respondFieldsFor } from '../../../../src/slack/answer/respond-fields.js';

describe('respondFieldsFor', () => {
  it('turns a flat object of strings, numbers, booleans and enums into form fields', () => {
    const schema = z.object({
      confirmed: z.boolean().describe('Go ahead?'),
      replicas: z.number().optional(),
      note: z.string().default(''),
      region: z.enum(['eu', 'us']),
    });
    expect(respondFieldsFor(schema)).toEqual([
      // A description without a title is the label, not repeated as a hint; a bare key is humanised.
      { name: 'confirmed', label: 'Go ahead?', kind: 'boolean', optional: false },
      { name: 'replicas', label: 'Replicas', kind: 'number', optional: true },
      { name: 'note', label: 'Note', kind: 'string', optional: true },
      { name: 'region', label: 'Region', kind: 'enum', optional: false, options: ['eu', 'us'] },
    ]);
  });

  it('refuses what a modal cannot ask for faithfully', () => {
    expect(respondFieldsFor(undefined)).toBeUndefined();
    expect(respondFieldsFor(z.string())).toBeUndefined();
    expect(respondFieldsFor(z.object({}))).toBeUndefined();
    expect(respondFieldsFor(z.object({ nested: z.object({ a: z.string() }) }))).toBeUndefined();
    expect(respondFieldsFor(z.object({ list: z.array(z.string()) }))).toBeUndefined();
  });
});
