import type { ElicitRequestFormParams } from '@modelcontextprotocol/sdk/types.js';
import type { ElicitationField, ElicitationForm } from './elicitation-payload.js';

type Property = ElicitRequestFormParams['requestedSchema']['properties'][string];

/**
 * The form an elicitation's requested schema describes, in the terms a Slack form needs: each
 * property as one field kind (enums from `enum`/`oneOf`, titled or not, and arrays of them as
 * multi-enums). A property of another shape makes the whole form unshowable (undefined): the
 * request is then declined, since a form that leaves a field out cannot be answered correctly.
 */
export function elicitationForm(schema: ElicitRequestFormParams['requestedSchema']): ElicitationForm | undefined {
  const required = new Set(schema.required ?? []);
  const fields: ElicitationForm['fields'] = [];
  for (const [name, property] of Object.entries(schema.properties)) {
    const field = fieldOf(property);
    if (!field) return undefined;
    fields.push({ name, required: required.has(name), field });
  }
  return { fields };
}

function fieldOf(p: Property): ElicitationField | undefined {
  const raw = p as Record<string, unknown>;
  const text = { ...(typeof raw.title === 'string' ? { title: raw.title } : {}), ...(typeof raw.description === 'string' ? { description: raw.description } : {}) };
  if (raw.type === 'array') {
    const items = raw.items as Record<string, unknown> | undefined;
    const options = optionsOf(items ?? {});
    if (!options) return undefined;
    return {
      type: 'multi-enum',
      ...text,
      options,
      ...(Array.isArray(raw.default) ? { default: raw.default.filter((v): v is string => typeof v === 'string') } : {}),
      ...(typeof raw.minItems === 'number' ? { minItems: raw.minItems } : {}),
      ...(typeof raw.maxItems === 'number' ? { maxItems: raw.maxItems } : {}),
    };
  }
  if (raw.type === 'string') {
    const options = optionsOf(raw);
    if (options) return { type: 'enum', ...text, options, ...(typeof raw.default === 'string' ? { default: raw.default } : {}) };
    const format = raw.format;
    return {
      type: 'string',
      ...text,
      ...(typeof raw.default === 'string' ? { default: raw.default } : {}),
      ...(typeof raw.minLength === 'number' ? { minLength: raw.minLength } : {}),
      ...(typeof raw.maxLength === 'number' ? { maxLength: raw.maxLength } : {}),
      ...(format === 'email' || format === 'uri' || format === 'date' || format === 'date-time' ? { format } : {}),
    };
  }
  if (raw.type === 'number' || raw.type === 'integer') {
    return {
      type: raw.type,
      ...text,
      ...(typeof raw.default === 'number' ? { default: raw.default } : {}),
      ...(typeof raw.minimum === 'number' ? { minimum: raw.minimum } : {}),
      ...(typeof raw.maximum === 'number' ? { maximum: raw.maximum } : {}),
    };
  }
  if (raw.type === 'boolean') return { type: 'boolean', ...text, ...(typeof raw.default === 'boolean' ? { default: raw.default } : {}) };
  return undefined;
}

/** `enum` (with optional legacy `enumNames`), or `oneOf`/`anyOf` of `{ const, title }`. */
function optionsOf(raw: Record<string, unknown>): Array<{ value: string; label: string }> | undefined {
  if (Array.isArray(raw.enum)) {
    const names = Array.isArray(raw.enumNames) ? raw.enumNames : [];
    return raw.enum.map((value, i) => ({ value: String(value), label: typeof names[i] === 'string' ? (names[i] as string) : String(value) }));
  }
  const choices = Array.isArray(raw.oneOf) ? raw.oneOf : Array.isArray(raw.anyOf) ? raw.anyOf : undefined;
  if (!choices) return undefined;
  const options = choices.map((c) => c as { const?: unknown; title?: unknown });
  if (!options.every((c) => typeof c.const === 'string')) return undefined;
  return options.map((c) => ({ value: c.const as string, label: typeof c.title === 'string' ? c.title : (c.const as string) }));
}
