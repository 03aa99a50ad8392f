import fc from 'fast-check';
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { fingerprint, shortFingerprint } from '../../../src/approvals/fingerprint.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** Sets a key as data, so a generated "__proto__" key stays a key. */
function put(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Deep clone with every object's keys inserted in a random order. */
function shuffledClone(value: Json, random: () => number): Json {
  if (Array.isArray(value)) return value.map((item) => shuffledClone(item, random));
  if (value === null || typeof value !== 'object') return value;
  const keys = Object.keys(value);
  for (let i = keys.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [keys[i], keys[j]] = [keys[j]!, keys[i]!];
  }
  const out: Record<string, Json> = {};
  for (const key of keys) put(out, key, shuffledClone(value[key]!, random));
  return out;
}

type Path = (string | number)[];

/** Every place a value can be changed: leaves, and empty containers (which have no leaves). */
function slots(value: Json, path: Path = []): Path[] {
  if (Array.isArray(value)) {
    return value.length === 0 ? [path] : value.flatMap((item, i) => slots(item, [...path, i]));
  }
  if (value !== null && typeof value === 'object') {
    const keys = Object.keys(value);
    return keys.length === 0 ? [path] : keys.flatMap((k) => slots(value[k]!, [...path, k]));
  }
  return [path];
}

function changed(leaf: Json): Json {
  if (leaf === null) return 0;
  if (typeof leaf === 'boolean') return !leaf;
  // Negation, not +1: adding 1 to 1e300 gives 1e300 again. 0 and -0 are one JSON number.
  if (typeof leaf === 'number') return leaf === 0 ? 1 : -leaf;
  if (typeof leaf === 'string') return `${leaf}x`;
  if (Array.isArray(leaf)) return [null];
  return { added: null };
}

function mutatedAt(value: Json, path: Path): Json {
  const [head, ...rest] = path;
  if (head === undefined) return changed(value);
  if (Array.isArray(value)) return value.map((item, i) => (i === head ? mutatedAt(item, rest) : item));
  const out: Record<string, Json> = {};
  for (const [k, v] of Object.entries(value as Record<string, Json>)) put(out, k, k === head ? mutatedAt(v, rest) : v);
  return out;
}

const jsonValues = fc.oneof(fc.jsonValue(), fc.jsonValue({ stringUnit: 'grapheme' })) as fc.Arbitrary<Json>;

describe('fingerprint', () => {
  it('is SHA-256 over the canonical JSON of { v: 1, toolName, args }', () => {
    const expected = sha256('{"args":{"amountCents":1500,"orderId":"A-1"},"toolName":"issue_refund","v":1}');
    expect(fingerprint('issue_refund', { orderId: 'A-1', amountCents: 1500 })).toBe(expected);
    expect(fingerprint('issue_refund', { orderId: 'A-1', amountCents: 1500 })).toMatch(/^[0-9a-f]{64}$/);
  });

  it('ignores key order at every depth', () => {
    const a = { order: { id: 'A-1', lines: [{ sku: 'x', qty: 2 }] }, amountCents: 1500, note: null };
    const b = { note: null, amountCents: 1500, order: { lines: [{ qty: 2, sku: 'x' }], id: 'A-1' } };
    expect(fingerprint('t', b)).toBe(fingerprint('t', a));
  });

  it('ignores how numbers were written', () => {
    const written = JSON.parse('{"a": 1.0, "b": 1e2, "c": 0.10, "d": -0}') as unknown;
    expect(fingerprint('t', written)).toBe(fingerprint('t', { a: 1, b: 100, c: 0.1, d: 0 }));
  });

  it('changes with any change of value', () => {
    const base = { orderId: 'A-1', amountCents: 1500, notify: true, tags: ['a', 'b'], meta: { by: 'U1' } };
    const fp = fingerprint('issue_refund', base);
    const variants: unknown[] = [
      { ...base, orderId: 'A-2' },
      { ...base, amountCents: 1501 },
      { ...base, amountCents: '1500' },
      { ...base, notify: false },
      { ...base, tags: ['b', 'a'] },
      { ...base, tags: ['a', 'b', 'c'] },
      { ...base, meta: { by: 'U2' } },
      { ...base, meta: { by: 'U1', extra: null } },
      { ...base, extra: 0 },
    ];
    const fps = variants.map((v) => fingerprint('issue_refund', v));
    expect(fps).not.toContain(fp);
    expect(new Set(fps).size).toBe(variants.length);
  });

  it('changes with the tool name', () => {
    expect(fingerprint('issue_refund', { a: 1 })).not.toBe(fingerprint('issue_credit', { a: 1 }));
  });

  it('hashes undefined args as null, which is not the same as an empty object', () => {
    expect(fingerprint('t', undefined)).toBe(fingerprint('t', null));
    expect(fingerprint('t', undefined)).toBe(sha256('{"args":null,"toolName":"t","v":1}'));
    expect(fingerprint('t', undefined)).not.toBe(fingerprint('t', {}));
  });

  it('agrees with a JSON round trip for what JSON keeps', () => {
    const args = { a: 1, skipped: undefined, list: [1, undefined, 3], at: new Date('2024-01-02T03:04:05Z') };
    expect(fingerprint('t', args)).toBe(fingerprint('t', JSON.parse(JSON.stringify(args))));
  });

  it('treats a "__proto__" key as data', () => {
    const withProto = JSON.parse('{"__proto__": {"admin": true}}') as unknown;
    expect(fingerprint('t', withProto)).not.toBe(fingerprint('t', {}));
    expect(fingerprint('t', withProto)).toBe(sha256('{"args":{"__proto__":{"admin":true}},"toolName":"t","v":1}'));
  });

  it('refuses values JSON would lose or mangle', () => {
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    class Refund {
      amount = 1;
    }
    for (const bad of [
      { f: () => 1 },
      { n: 1n },
      { s: Symbol('x') },
      { x: Number.NaN },
      { x: Number.POSITIVE_INFINITY },
      { m: new Map([['a', 1]]) },
      { r: new Refund() },
      circular,
    ]) {
      expect(() => fingerprint('t', bad)).toThrow(TypeError);
    }
    expect(() => fingerprint('t', { deep: [{ f: () => 1 }] })).toThrow(/args\.deep\[0\]\.f/);
  });

  it('property: a clone with shuffled keys has the same fingerprint', () => {
    fc.assert(
      fc.property(jsonValues, fc.integer(), (value, seed) => {
        const clone = shuffledClone(value, mulberry32(seed));
        expect(fingerprint('tool', clone)).toBe(fingerprint('tool', value));
      }),
      { numRuns: 300 },
    );
  });

  it('property: changing any one leaf changes the fingerprint', () => {
    fc.assert(
      fc.property(jsonValues, fc.nat(), (value, pick) => {
        const all = slots(value);
        const path = all[pick % all.length]!;
        expect(fingerprint('tool', mutatedAt(value, path))).not.toBe(fingerprint('tool', value));
      }),
      { numRuns: 300 },
    );
  });

  it('property: a different tool name changes the fingerprint', () => {
    fc.assert(
      fc.property(jsonValues, fc.string(), fc.string(), (value, a, b) => {
        fc.pre(a !== b);
        expect(fingerprint(a, value)).not.toBe(fingerprint(b, value));
      }),
      { numRuns: 200 },
    );
  });
});

describe('shortFingerprint', () => {
  it('keeps the first 12 hex characters', () => {
    const fp = fingerprint('t', { a: 1 });
    expect(shortFingerprint(fp)).toBe(fp.slice(0, 12));
    expect(shortFingerprint(fp)).toHaveLength(12);
  });
});
