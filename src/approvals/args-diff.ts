import canonicalize from 'canonicalize';

/** One argument an edit changed: absent on one side when the edit added or removed it. */
export interface ArgChange {
  key: string;
  before?: unknown;
  after?: unknown;
}

/**
 * The top-level arguments that differ between what was proposed and what was edited, in the
 * order the proposal has them (added ones last). Values are compared as canonical JSON, so key
 * order inside a nested value is no change.
 */
export function argsDiff(before: unknown, after: unknown): ArgChange[] {
  const a = asRecord(before);
  const b = asRecord(after);
  const keys = [...Object.keys(a), ...Object.keys(b).filter((k) => !Object.hasOwn(a, k))];
  const changes: ArgChange[] = [];
  for (const key of keys) {
    const had = Object.hasOwn(a, key);
    const has = Object.hasOwn(b, key);
    if (had && has && canonicalize(a[key]) === canonicalize(b[key])) continue;
    changes.push({ key, ...(had ? { before: a[key] } : {}), ...(has ? { after: b[key] } : {}) });
  }
  return changes;
}

function asRecord(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : { '': value };
}
