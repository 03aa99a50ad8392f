import { z } from 'zod';

/**
 * A resume schema that is a yes/no question: a bare boolean, or an object with exactly one
 * field, a boolean (e.g. `{ confirmed: boolean }`). Such a card gets Yes / No buttons instead of
 * a form; `answer(yes)` is the resume data either button gives.
 */
export interface Confirmation {
  /** The one field's key; absent for a bare boolean. */
  field?: string;
  answer(yes: boolean): unknown;
}

export function confirmationOf(schema: z.ZodType | undefined): Confirmation | undefined {
  if (schema === undefined) return undefined;
  if (schema instanceof z.ZodBoolean) return { answer: (yes) => yes };
  if (!(schema instanceof z.ZodObject)) return undefined;
  const entries = Object.entries(schema.shape as Record<string, z.ZodType>);
  if (entries.length !== 1) return undefined;
  const [field, raw] = entries[0]!;
  let inner = raw;
  for (let depth = 0; depth < 8 && (inner instanceof z.ZodOptional || inner instanceof z.ZodDefault || inner instanceof z.ZodNullable); depth++) {
    inner = inner.unwrap() as z.ZodType;
  }
  if (!(inner instanceof z.ZodBoolean)) return undefined;
  return { field, answer: (yes) => ({ [field]: yes }) };
}
