/** Returns the Slack user ids in a user group (S…). */
export type GroupResolver = (groupId: string) => Promise<string[]>;

export interface CachedGroupResolverOptions {
  /** How long a group's member list is trusted; membership changes take at most this long to apply. */
  ttlMs?: number;
  now?: () => number;
}

/**
 * Wraps a member lookup (e.g. Slack's `usergroups.users.list`) so that a burst of clicks does
 * not turn into a burst of API calls and rate limits.
 *
 * Concurrent lookups of one group share a single request. Failures are not cached: a transient
 * API error should cost one refused click, not a minute of them. Each caller gets its own copy
 * of the member list, so a caller mutating it cannot corrupt the cache.
 */
export function cachedGroupResolver(
  fetchMembers: GroupResolver,
  { ttlMs = 60_000, now = Date.now }: CachedGroupResolverOptions = {},
): GroupResolver {
  if (!Number.isFinite(ttlMs) || ttlMs < 0) {
    throw new RangeError(`cachedGroupResolver: ttlMs must be a non-negative number, got ${ttlMs}`);
  }
  const cache = new Map<string, { members: readonly string[]; expiresAt: number }>();
  const inFlight = new Map<string, Promise<readonly string[]>>();

  const load = (groupId: string): Promise<readonly string[]> => {
    const pending = inFlight.get(groupId);
    if (pending) return pending;
    // Started from a resolved promise so that even a synchronous throw in fetchMembers settles
    // after the entry is registered, and the cleanup below always finds it.
    const request = Promise.resolve()
      .then(() => fetchMembers(groupId))
      .then((members) => {
        const frozen = Object.freeze([...members]);
        // The TTL runs from when the answer arrived, not from when it was asked for.
        cache.set(groupId, { members: frozen, expiresAt: now() + ttlMs });
        return frozen;
      })
      .finally(() => inFlight.delete(groupId));
    inFlight.set(groupId, request);
    return request;
  };

  return async (groupId) => {
    const hit = cache.get(groupId);
    if (hit && now() < hit.expiresAt) return [...hit.members];
    if (hit) cache.delete(groupId);
    return [...(await load(groupId))];
  };
}
