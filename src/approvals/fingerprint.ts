import canonicalize from 'canonicalize';
import { createHash } from 'node:crypto';

/**
 * Bump only together with a migration plan: every stored grant was computed with this value,
 * so changing it makes all outstanding approvals unusable.
 */
const FINGERPRINT_FORMAT = 1;

const SHORT_LENGTH = 12;

/**
 * Identifies one exact tool call: the grant a human approves is bound to this value, and the
 * runtime recomputes it right before `execute`, so the call that runs is provably the call
 * that was shown.
 *
 * Hashing RFC 8785 canonical JSON means the representation cannot change the result (key
 * order, `1` vs `1.0`, `1e2` vs `100`, escaping), while any change of value does.
 *
 * `args === undefined` is hashed as `null`, not as `{}`: the arguments travel through JSON
 * (the model's output, the pending-action row) before the second fingerprinting, and JSON has
 * no `undefined`, so `null` is what it becomes on the way. Left alone, canonicalize would drop
 * the `args` key altogether, and substituting `{}` would make "no arguments" indistinguishable
 * from a real call with an empty object.
 *
 * Throws a TypeError for values that JSON would silently lose or mangle (functions, bigints,
 * symbols, NaN, ±Infinity, Maps, class instances, cycles): hashing them would let two
 * different calls share one fingerprint.
 */
export function fingerprint(toolName: string, args: unknown): string {
  const payload = {
    v: FINGERPRINT_FORMAT,
    toolName,
    args: args === undefined ? null : toJsonValue(args, 'args', new Set()),
  };
  const canonical = canonicalize(payload);
  if (canonical === undefined) {
    // Unreachable for an object payload; guards the library's `string | undefined` type.
    throw new TypeError('fingerprint: arguments could not be serialised');
  }
  return createHash('sha256').update(canonical, 'utf8').digest('hex');
}

/** Enough to tell requests apart in a Slack message; never use it to match grants. */
export function shortFingerprint(fp: string): string {
  return fp.slice(0, SHORT_LENGTH);
}

type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/**
 * Copies `value` into plain JSON data, following JSON.stringify's rules where they are lossless
 * (`toJSON`, dropping `undefined` object members, `undefined` array slots → null) and refusing
 * where they are not. The copy uses null-prototype objects so a `__proto__` key stays data.
 */
function toJsonValue(value: unknown, path: string, ancestors: Set<object>): JsonValue {
  if (value === null || typeof value === 'boolean' || typeof value === 'string') return value;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) {
      throw new TypeError(`fingerprint: ${path} is ${String(value)}, which JSON cannot represent`);
    }
    return value;
  }
  if (typeof value !== 'object') {
    throw new TypeError(`fingerprint: ${path} is a ${typeof value}, which JSON cannot represent`);
  }
  if (ancestors.has(value)) {
    throw new TypeError(`fingerprint: ${path} is a circular reference`);
  }

  const withToJson = value as { toJSON?: unknown };
  if (typeof withToJson.toJSON === 'function') {
    ancestors.add(value);
    const converted = toJsonValue((withToJson.toJSON as () => unknown)(), path, ancestors);
    ancestors.delete(value);
    return converted;
  }

  ancestors.add(value);
  let result: JsonValue;
  if (Array.isArray(value)) {
    result = Array.from(value, (item: unknown, i) =>
      item === undefined ? null : toJsonValue(item, `${path}[${i}]`, ancestors),
    );
  } else {
    const proto: unknown = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) {
      const kind = (value as { constructor?: { name?: string } }).constructor?.name ?? 'object';
      throw new TypeError(`fingerprint: ${path} is a ${kind}, not a plain JSON object`);
    }
    const out = Object.create(null) as { [key: string]: JsonValue };
    for (const [key, member] of Object.entries(value)) {
      if (member === undefined) continue;
      out[key] = toJsonValue(member, `${path}.${key}`, ancestors);
    }
    result = out;
  }
  ancestors.delete(value);
  return result;
}
