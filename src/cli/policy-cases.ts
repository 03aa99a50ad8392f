import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import type { CallToEvaluate } from '../approvals/evaluate-call.js';
import { errorMessage } from '../error-message.js';

/** What a case expects: it runs unasked, it asks (who and how many, as far as given), or it is denied (for this reason). */
export type Expectation =
  | { outcome: 'runs' }
  | { outcome: 'asks'; approvers?: string[]; quorum?: number; risk?: 'low' | 'high'; allowSelfApproval?: boolean; requireReason?: boolean }
  | { outcome: 'denied'; reason?: string };

export interface PolicyCase {
  name: string;
  call: CallToEvaluate;
  expect: Expectation;
}

interface PolicyCases {
  /** The cases file's `policy`, resolved against the file's folder. */
  policy?: string;
  cases: PolicyCase[];
}

/** A cases file that cannot be used: where, and what is wrong. */
class CasesError extends Error {
  readonly code = 'CASES_INVALID' as const;
}

const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
const ago = z.string().regex(/^\d+(s|m|h|d)$/, { error: 'must be a duration like "90s", "15m", "2h" or "3d"' });
const instant = z.string().refine((s) => /(Z|[+-]\d{2}:\d{2})$/.test(s) && !Number.isNaN(Date.parse(s)), {
  error: 'must be a date and time with its offset, e.g. "2026-12-24T10:00:00Z"',
});
const userId = z.string().regex(/^[UW][A-Z0-9]{2,}$/, { error: 'must be a Slack user id (U…, W…)' });
const mcp = z.strictObject({ server: z.string().min(1), tool: z.string().min(1), readOnlyHint: z.boolean().optional() });

const pastCall = z.strictObject({
  tool: z.string().min(1).optional(),
  args: z.unknown().optional(),
  /** Default: the case's requester; null for a call nobody requested. */
  requester: userId.nullable().optional(),
  at: instant.optional(),
  ago: ago.optional(),
  mcp: mcp.optional(),
});

const expectation = z.union(
  [
    z.literal('runs'),
    z.literal('asks'),
    z.literal('denied'),
    z.strictObject({ runs: z.literal(true) }),
    z.strictObject({
      asks: z.union([
        z.literal(true),
        z.strictObject({
          approvers: z.array(z.string()).optional(),
          quorum: z.number().int().min(1).optional(),
          risk: z.enum(['low', 'high']).optional(),
          allowSelfApproval: z.boolean().optional(),
          requireReason: z.boolean().optional(),
        }),
      ]),
    }),
    z.strictObject({ denied: z.union([z.literal(true), z.string().min(1)]) }),
  ],
  { error: 'must be runs, asks, denied, { asks: { approvers, quorum, risk } } or { denied: "<reason>" }' },
);

const caseSchema = z.strictObject({
  name: z.string().min(1),
  tool: z.string().min(1),
  args: z.unknown().optional(),
  /** Absent: a run nobody requested (unattended). */
  requester: userId.optional(),
  at: instant.optional(),
  mcp: mcp.optional(),
  /** What the tool's code asks (its own requireApproval): the policy file cannot know it. */
  toolRequiresApproval: z.boolean().optional(),
  history: z.array(pastCall).optional(),
  expect: expectation,
});

const fileSchema = z.strictObject({
  policy: z.string().min(1).optional(),
  at: instant.optional(),
  cases: z.array(caseSchema).min(1, { error: 'must list at least one case' }),
});

function expectationOf(raw: z.output<typeof expectation>): Expectation {
  if (raw === 'runs' || raw === 'asks' || raw === 'denied') return { outcome: raw };
  if ('runs' in raw) return { outcome: 'runs' };
  if ('asks' in raw) return raw.asks === true ? { outcome: 'asks' } : { outcome: 'asks', ...raw.asks };
  return raw.denied === true ? { outcome: 'denied' } : { outcome: 'denied', reason: raw.denied };
}

/**
 * Reads a cases file (YAML or JSON): each case a call (tool, arguments, requester, when, earlier
 * calls) and what the policy should do with it. `now` is the time of a case that names none.
 */
export function loadPolicyCases(path: string, now: Date): PolicyCases {
  let data: unknown;
  try {
    data = parseYaml(readFileSync(path, 'utf8'));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new CasesError(`${path}: ${code === 'ENOENT' ? 'file not found' : errorMessage(error)}`);
  }
  const parsed = fileSchema.safeParse(data);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.map(String).join('.') || '(file)'}: ${i.message}`);
    throw new CasesError(`${path}:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
  const file = parsed.data;
  const fileAt = file.at ? new Date(file.at) : now;
  const cases = file.cases.map((c): PolicyCase => {
    const at = c.at ? new Date(c.at) : fileAt;
    const history = (c.history ?? []).map((h) => ({
      toolName: h.tool ?? c.tool,
      args: h.args ?? {},
      requester: h.requester === undefined ? (c.requester ?? null) : h.requester,
      at: h.at ? new Date(h.at) : new Date(at.getTime() - (h.ago ? Number(h.ago.slice(0, -1)) * UNIT_MS[h.ago.slice(-1) as keyof typeof UNIT_MS] : 0)),
      ...(h.mcp ? { mcp: h.mcp } : h.tool === undefined && c.mcp ? { mcp: c.mcp } : {}),
    }));
    return {
      name: c.name,
      call: {
        toolName: c.tool,
        args: c.args ?? {},
        requester: c.requester ?? null,
        at,
        ...(c.mcp ? { mcp: c.mcp } : {}),
        ...(c.toolRequiresApproval !== undefined ? { toolRequiresApproval: c.toolRequiresApproval } : {}),
        history,
      },
      expect: expectationOf(c.expect),
    };
  });
  return { ...(file.policy ? { policy: resolve(dirname(path), file.policy) } : {}), cases };
}
