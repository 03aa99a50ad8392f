import canonicalize from 'canonicalize';
import { createHash } from 'node:crypto';

const HASH_LENGTH = 16;

/**
 * Derives the policy version from what the policy decides, not from how it was written, so
 * reformatting a file (key order, `'24h'` vs `86400`, approver order) keeps outstanding grants
 * valid while any change of meaning invalidates them.
 *
 * Only `defaults`, `tools`, `mcp`, `allowExternalTeams`, `freezes` and `unattended` are hashed, even when a full `Policy` is passed: the label is a
 * human convenience, and renaming it must not look like a change of rules.
 */
export function policyVersion(
  normalisedContent: { defaults: unknown; tools: unknown; mcp?: unknown; allowExternalTeams?: unknown; freezes?: unknown; unattended?: unknown },
  label?: string,
): string {
  const { defaults, tools, mcp, allowExternalTeams, freezes, unattended } = normalisedContent;
  // Each of these only when set: policies written before they existed keep their versions.
  const canonical = canonicalize({
    defaults,
    tools,
    ...(mcp === undefined ? {} : { mcp }),
    ...(allowExternalTeams === undefined ? {} : { allowExternalTeams }),
    ...(freezes === undefined ? {} : { freezes }),
    ...(unattended === undefined ? {} : { unattended }),
  });
  if (canonical === undefined) {
    throw new TypeError('policyVersion: policy content could not be serialised');
  }
  const hash = createHash('sha256').update(canonical, 'utf8').digest('hex').slice(0, HASH_LENGTH);
  return label === undefined || label === '' ? hash : `${label}@${hash}`;
}
