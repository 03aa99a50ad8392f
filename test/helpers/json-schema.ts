/**
 * A small JSON Schema (draft-07) validator for the subset Slack's app-manifest schema uses.
 *
 * Written here rather than adding a validator dependency for one test. It refuses schemas that
 * use an assertion keyword it does not implement, so it cannot pass something by ignoring a
 * rule it does not know. Unknown non-standard keywords (Slack's `_note`, `regex`) are
 * annotations in draft-07 and are ignored, as a conforming validator would.
 */

type Schema = boolean | { [keyword: string]: unknown };

const UNSUPPORTED = [
  'oneOf',
  'allOf',
  'not',
  'if',
  'then',
  'else',
  'const',
  'contains',
  'propertyNames',
  'dependencies',
  'additionalItems',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
];

export interface SchemaError {
  path: string;
  message: string;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function typeMatches(value: unknown, type: string): boolean {
  switch (type) {
    case 'object':
      return isObject(value);
    case 'array':
      return Array.isArray(value);
    case 'string':
      return typeof value === 'string';
    case 'boolean':
      return typeof value === 'boolean';
    case 'null':
      return value === null;
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    default:
      throw new Error(`json-schema: unknown type ${type}`);
  }
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  if (isObject(a) && isObject(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((k) => k in b && deepEqual(a[k], b[k]));
  }
  return false;
}

function compilePattern(pattern: string): RegExp {
  try {
    return new RegExp(pattern, 'u');
  } catch {
    return new RegExp(pattern);
  }
}

export class JsonSchemaValidator {
  private readonly patterns = new Map<string, RegExp>();

  constructor(private readonly root: Schema) {
    this.assertSupported(root, '#');
  }

  validate(value: unknown): SchemaError[] {
    const errors: SchemaError[] = [];
    this.check(this.root, value, '$', errors);
    return errors;
  }

  private assertSupported(schema: unknown, at: string): void {
    if (Array.isArray(schema)) {
      schema.forEach((s, i) => this.assertSupported(s, `${at}/${i}`));
      return;
    }
    if (!isObject(schema)) return;
    for (const [key, sub] of Object.entries(schema)) {
      if (UNSUPPORTED.includes(key)) throw new Error(`json-schema: keyword ${key} at ${at} is not supported`);
      if (key === 'properties' || key === 'definitions' || key === 'patternProperties') {
        for (const [name, s] of Object.entries(sub as Record<string, unknown>)) this.assertSupported(s, `${at}/${key}/${name}`);
      } else if (key === 'items' || key === 'additionalProperties' || key === 'anyOf') {
        this.assertSupported(sub, `${at}/${key}`);
      }
    }
  }

  private resolve(ref: string): Schema {
    if (!ref.startsWith('#/')) throw new Error(`json-schema: only local $ref is supported, got ${ref}`);
    let node: unknown = this.root;
    for (const raw of ref.slice(2).split('/')) {
      const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
      if (!isObject(node) || !(key in node)) throw new Error(`json-schema: unresolvable $ref ${ref}`);
      node = node[key];
    }
    return node as Schema;
  }

  private regex(pattern: string): RegExp {
    let re = this.patterns.get(pattern);
    if (re === undefined) {
      re = compilePattern(pattern);
      this.patterns.set(pattern, re);
    }
    return re;
  }

  private check(schema: Schema, value: unknown, path: string, errors: SchemaError[]): void {
    if (schema === true) return;
    if (schema === false) {
      errors.push({ path, message: 'no value is allowed here' });
      return;
    }
    // In draft-07, $ref overrides every sibling keyword.
    if (typeof schema.$ref === 'string') {
      this.check(this.resolve(schema.$ref), value, path, errors);
      return;
    }
    const fail = (message: string): void => {
      errors.push({ path, message });
    };

    if (schema.type !== undefined) {
      const types = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string];
      if (!types.some((t) => typeMatches(value, t))) {
        fail(`expected ${types.join(' or ')}`);
        return;
      }
    }
    if (Array.isArray(schema.enum) && !schema.enum.some((e) => deepEqual(e, value))) {
      fail(`must be one of ${JSON.stringify(schema.enum)}`);
    }
    if (Array.isArray(schema.anyOf)) {
      const matches = (schema.anyOf as Schema[]).some((s) => {
        const sub: SchemaError[] = [];
        this.check(s, value, path, sub);
        return sub.length === 0;
      });
      if (!matches) fail('matches none of anyOf');
    }

    if (typeof value === 'string') {
      const length = [...value].length;
      if (typeof schema.minLength === 'number' && length < schema.minLength) fail(`shorter than ${schema.minLength}`);
      if (typeof schema.maxLength === 'number' && length > schema.maxLength) fail(`longer than ${schema.maxLength}`);
      if (typeof schema.pattern === 'string' && !this.regex(schema.pattern).test(value)) {
        fail(`does not match ${schema.pattern}`);
      }
      if (schema.format === 'uri' && !URL.canParse(value)) fail('is not a URI');
    }

    if (Array.isArray(value)) {
      if (typeof schema.minItems === 'number' && value.length < schema.minItems) fail(`fewer than ${schema.minItems} items`);
      if (typeof schema.maxItems === 'number' && value.length > schema.maxItems) fail(`more than ${schema.maxItems} items`);
      if (schema.uniqueItems === true) {
        value.forEach((item, i) => {
          if (value.findIndex((other) => deepEqual(other, item)) !== i) fail(`item ${i} is a duplicate`);
        });
      }
      if (Array.isArray(schema.items)) {
        (schema.items as Schema[]).forEach((s, i) => {
          if (i < value.length) this.check(s, value[i], `${path}[${i}]`, errors);
        });
      } else if (schema.items !== undefined) {
        value.forEach((item, i) => this.check(schema.items as Schema, item, `${path}[${i}]`, errors));
      }
    }

    if (isObject(value)) {
      const keys = Object.keys(value);
      if (typeof schema.minProperties === 'number' && keys.length < schema.minProperties) {
        fail(`fewer than ${schema.minProperties} properties`);
      }
      if (typeof schema.maxProperties === 'number' && keys.length > schema.maxProperties) {
        fail(`more than ${schema.maxProperties} properties`);
      }
      if (Array.isArray(schema.required)) {
        for (const name of schema.required as string[]) if (!(name in value)) fail(`missing required property ${name}`);
      }
      const properties = (schema.properties ?? {}) as Record<string, Schema>;
      const patternProperties = (schema.patternProperties ?? {}) as Record<string, Schema>;
      for (const key of keys) {
        let matched = false;
        if (Object.hasOwn(properties, key)) {
          matched = true;
          this.check(properties[key]!, value[key], `${path}.${key}`, errors);
        }
        for (const [pattern, s] of Object.entries(patternProperties)) {
          if (this.regex(pattern).test(key)) {
            matched = true;
            this.check(s, value[key], `${path}.${key}`, errors);
          }
        }
        if (!matched && schema.additionalProperties !== undefined) {
          if (schema.additionalProperties === false) fail(`unknown property ${key}`);
          else this.check(schema.additionalProperties as Schema, value[key], `${path}.${key}`, errors);
        }
      }
    }
  }
}
