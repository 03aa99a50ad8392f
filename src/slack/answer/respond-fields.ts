import { z } from 'zod';
import type { RespondField } from '../card/card-types.js';
import { fieldLabel } from './schema-labels.js';

/**
 * The form fields for a resume schema, when it is a flat object of strings,
 * numbers, booleans and enums (optional or defaulted ones included); undefined
 * for anything a modal cannot ask for faithfully, which then falls back to a
 * thread reply.
 */
export function respondFieldsFor(schema: z.ZodType | undefined): RespondField[] | undefined {
  if (!(schema instanceof z.ZodObject)) return undefined;
  const shape = schema.shape as Record<string, z.ZodType>;
  const fields: RespondField[] = [];
  for (const [name, raw] of Object.entries(shape)) {
    const { inner, optional, layers } = unwrap(raw);
    const { label, hint } = fieldLabel(name, layers);
    const base = { name, label, optional, ...(hint ? { description: hint } : {}) };
    if (inner instanceof z.ZodString) fields.push({ ...base, kind: 'string' });
    else if (inner instanceof z.ZodNumber) fields.push({ ...base, kind: 'number' });
    else if (inner instanceof z.ZodBoolean) fields.push({ ...base, kind: 'boolean' });
    else if (inner instanceof z.ZodEnum) {
      const options = (inner.options as Array<string | number>).filter((o): o is string => typeof o === 'string');
      if (options.length !== inner.options.length) return undefined;
      fields.push({ ...base, kind: 'enum', options });
    } else return undefined;
  }
  return fields.length > 0 ? fields : undefined;
}

/** The schema inside optional/default/nullable wrappers, and every layer met on the way (titles may sit on any). */
function unwrap(schema: z.ZodType): { inner: z.ZodType; optional: boolean; layers: z.ZodType[] } {
  let inner = schema;
  let optional = false;
  const layers = [schema];
  for (let depth = 0; depth < 8; depth++) {
    if (inner instanceof z.ZodOptional || inner instanceof z.ZodDefault || inner instanceof z.ZodNullable) {
      optional = true;
      inner = inner.unwrap() as z.ZodType;
      layers.push(inner);
    } else break;
  }
  return { inner, optional, layers };
}
