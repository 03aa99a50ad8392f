import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { formOfJsonSchema, formOfZod } from '../../../../src/slack/kit/form-fields.js';

describe('formOfZod', () => {
  it('turns a flat object of strings, numbers, booleans and enums into form fields', () => {
    const schema = z.object({
      confirmed: z.boolean().describe('Go ahead?'),
      replicas: z.number().int().optional(),
      note: z.string().default(''),
      region: z.enum(['eu', 'us']),
      tags: z.array(z.enum(['a', 'b'])).optional(),
      size: z.number().min(1).max(5).nullable(),
    });
    expect(formOfZod(schema)?.fields).toEqual([
      { name: 'confirmed', required: true, field: { type: 'boolean', description: 'Go ahead?' } },
      // An integer's bounds are zod's safe-integer ones: no bound a person needs to see.
      { name: 'replicas', required: false, field: { type: 'integer' } },
      // A defaulted field may be left empty; a nullable one too.
      { name: 'note', required: false, field: { type: 'string', default: '' } },
      { name: 'region', required: true, field: { type: 'enum', options: [{ value: 'eu', label: 'eu' }, { value: 'us', label: 'us' }] } },
      { name: 'tags', required: false, field: { type: 'multi-enum', options: [{ value: 'a', label: 'a' }, { value: 'b', label: 'b' }] } },
      { name: 'size', required: false, field: { type: 'number', minimum: 1, maximum: 5 } },
    ]);
  });

  it('refuses what a modal cannot ask for faithfully', () => {
    expect(formOfZod(undefined)).toBeUndefined();
    expect(formOfZod(z.string())).toBeUndefined();
    expect(formOfZod(z.object({}))).toBeUndefined();
    expect(formOfZod(z.object({ nested: z.object({ a: z.string() }) }))).toBeUndefined();
    expect(formOfZod(z.object({ list: z.array(z.string()) }))).toBeUndefined();
    expect(formOfZod(z.object({ kind: z.literal('x') }))).toBeUndefined();
    expect(formOfZod(z.object({ when: z.date() }))).toBeUndefined();
  });
});

describe('formOfJsonSchema', () => {
  it('reads a JSON Schema object, and nothing else', () => {
    expect(formOfJsonSchema({ type: 'object', properties: { n: { type: 'integer', minimum: 0, maximum: 9 } }, required: ['n'] })?.fields).toEqual([
      { name: 'n', required: true, field: { type: 'integer', minimum: 0, maximum: 9 } },
    ]);
    expect(formOfJsonSchema(undefined)).toBeUndefined();
    expect(formOfJsonSchema({ type: 'string' })).toBeUndefined();
    expect(formOfJsonSchema({ type: 'object', properties: {} })).toBeUndefined();
  });
});
