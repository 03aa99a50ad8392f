/** The zod schema a policy is validated and normalised with (see policy-types.ts for what it produces). */
import { z } from 'zod';
import { policyVersion } from './policy-version.js';
import { mcpServerNamePattern, parseMcpPattern } from './mcp-tool-name.js';
import type { ApprovalSettings, CumulativeLimit, Freeze, JsonValue, Policy, PolicyContent, PolicyRule, RuleCondition, ToolPolicy } from './policy-types.js';
import { cronProblem, timeZoneProblem } from './freeze-windows.js';

const BUILT_IN_DEFAULTS: ApprovalSettings = {
  requireApproval: false,
  approvers: [],
  allowSelfApproval: true,
  quorum: 1,
  expiresInMs: 24 * 60 * 60 * 1000,
};

// Missing required fields get their own wording; "must be a number" for an absent field misleads.
function problem(message: string) {
  return (issue: { input?: unknown }): string => (issue.input === undefined ? 'is required' : message);
}

const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
// The expiry is added to "now" and stored as a timestamp; a request meant to wait more than a
// year is almost certainly a typo (e.g. seconds written where minutes were meant).
const MAX_EXPIRY_MS = 365 * UNIT_MS.d;
const DURATION_PATTERN = /^(\d+)(s|m|h|d)$/;
const DURATION_HINT = 'a number of seconds or a duration like "90s", "15m", "24h" or "7d"';
// A remembered approval stands in for every identical call until it ends; past a week it is a
// standing permission, which belongs in the policy (requireApproval: false), not a click.
const MAX_REMEMBER_MS = 7 * UNIT_MS.d;
/** What the model and the card are told when a call is denied: a sentence or two, not a document. */
const MAX_DENY_REASON = 500;

const duration = z
  .union([z.number(), z.string()], { error: problem(`must be ${DURATION_HINT}`) })
  .transform((raw, ctx) => {
    let ms: number;
    if (typeof raw === 'number') {
      if (!Number.isInteger(raw) || raw <= 0) {
        ctx.addIssue({ code: 'custom', input: raw, message: `must be a positive whole number of seconds, got ${raw}` });
        return z.NEVER;
      }
      ms = raw * 1000;
    } else {
      const match = DURATION_PATTERN.exec(raw);
      const amount = match?.[1];
      const unit = match?.[2] as keyof typeof UNIT_MS | undefined;
      if (amount === undefined || unit === undefined) {
        ctx.addIssue({ code: 'custom', input: raw, message: `must be ${DURATION_HINT}, got "${raw}"` });
        return z.NEVER;
      }
      ms = Number(amount) * UNIT_MS[unit];
      if (ms <= 0) {
        ctx.addIssue({ code: 'custom', input: raw, message: `must be longer than zero, got "${raw}"` });
        return z.NEVER;
      }
    }
    if (ms > MAX_EXPIRY_MS) {
      ctx.addIssue({ code: 'custom', input: raw, message: 'must be at most 365 days' });
      return z.NEVER;
    }
    return ms;
  });

// Slack ids are upper-case; anything else (a name, "@alice", "<@U123>", a lower-case typo)
// would never match a real user, which would quietly make a tool unapprovable.
const approverId = z
  .string({ error: problem('must be a Slack id string') })
  .regex(/^[UWS][A-Z0-9]{2,}$/, {
    error: (issue) =>
      `must be a Slack user id (U…, W…) or user-group id (S…), got ${JSON.stringify(issue.input)}`,
  });

// A dot marks an MCP pattern (`github.*`, `github.create_issue`); anything else is a tool's name.
const toolKey = z
  .string()
  .min(1, { error: 'tool names must not be empty' })
  .refine((key) => !key.includes('.') || parseMcpPattern(key) !== undefined, {
    error: (issue) => `${JSON.stringify(issue.input)} must be a tool name, or an MCP server and tool as "server.tool" or "server.*"`,
  });

const settingsShape = {
  requireApproval: z.boolean({ error: 'must be true or false' }).optional(),
  approvers: z
    .array(approverId, { error: 'must be a list of Slack user ids (U…, W…) and user-group ids (S…)' })
    .optional(),
  allowSelfApproval: z.boolean({ error: 'must be true or false' }).optional(),
  quorum: z
    .number({ error: 'must be a whole number of at least 1' })
    .int({ error: 'must be a whole number of at least 1' })
    .min(1, { error: 'must be a whole number of at least 1' })
    .optional(),
  expiresIn: duration.optional(),
  notify: z.enum(['mentions', 'none'], { error: 'must be "mentions" or "none"' }).optional(),
  route: z
    .union(
      [
        z.enum(['thread', 'dm']),
        z.strictObject({
          channel: z.string().regex(/^[CG][A-Z0-9]{2,}$/, {
            error: (issue) => `must be a Slack channel id (C… or G…), got ${JSON.stringify(issue.input)}`,
          }),
        }),
      ],
      { error: 'must be "thread", "dm" or { channel: "C…" }' },
    )
    .optional(),
  dmLimit: z
    .number({ error: 'must be a whole number from 1 to 50' })
    .int({ error: 'must be a whole number from 1 to 50' })
    .min(1, { error: 'must be a whole number from 1 to 50' })
    .max(50, { error: 'must be a whole number from 1 to 50' })
    .optional(),
  remindAfter: duration.optional(),
  remindLimit: z
    .number({ error: 'must be a whole number from 1 to 20' })
    .int({ error: 'must be a whole number from 1 to 20' })
    .min(1, { error: 'must be a whole number from 1 to 20' })
    .max(20, { error: 'must be a whole number from 1 to 20' })
    .optional(),
  warnBefore: duration.optional(),
  escalateAfter: duration.optional(),
  escalateTo: z
    .array(approverId, { error: 'must be a list of Slack user ids (U…, W…) and user-group ids (S…)' })
    .min(1, { error: 'must name at least one user or user group' })
    .optional(),
  allowEdit: z.boolean({ error: 'must be true or false' }).optional(),
  keepApprovalsOnEdit: z.boolean({ error: 'must be true or false' }).optional(),
  risk: z.enum(['low', 'high'], { error: 'must be "low" or "high"' }).optional(),
  rememberFor: duration
    .refine((ms) => ms <= MAX_REMEMBER_MS, { error: 'must be at most 7 days' })
    .optional(),
  requireReason: z.boolean({ error: 'must be true or false' }).optional(),
  deny: z
    .string({ error: 'must be the reason the call is refused (text the model and the people in the thread are told)' })
    .trim()
    .min(1, { error: 'must be the reason the call is refused, not empty' })
    .max(MAX_DENY_REASON, { error: `must be a reason of at most ${MAX_DENY_REASON} characters` })
    .optional(),
};

const SETTING_NAMES = Object.keys(settingsShape).join(', ');

function isJsonValue(value: unknown, depth = 0): value is JsonValue {
  if (depth > 64) return false;
  if (value === null || typeof value === 'boolean' || typeof value === 'string') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (typeof value !== 'object') return false;
  if (Array.isArray(value)) return value.every((item) => isJsonValue(item, depth + 1));
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return false;
  return Object.values(value).every((item) => isJsonValue(item, depth + 1));
}

const jsonValue = z.custom<JsonValue>((v) => isJsonValue(v), {
  error: problem('must be a JSON value (string, number, boolean, null, list or map)'),
});

const ARG_PATH_HINT = 'must be a dot path into the tool arguments, e.g. "amountCents" or "refund.amountCents"';
const argPath = z.string({ error: problem(ARG_PATH_HINT) }).regex(/^[^.]+(\.[^.]+)*$/, { error: ARG_PATH_HINT });

const condition = z.discriminatedUnion(
  'op',
  [
    z.strictObject({
      arg: argPath,
      op: z.enum(['gt', 'gte', 'lt', 'lte']),
      value: z.number({ error: problem('must be a number when op is gt, gte, lt or lte') }),
    }),
    z.strictObject({ arg: argPath, op: z.enum(['eq', 'ne']), value: jsonValue }),
    z.strictObject({
      arg: argPath,
      op: z.literal('in'),
      value: z.array(jsonValue, { error: problem('must be a list of values when op is "in"') }),
    }),
  ],
  {
    error: (issue) => {
      if (issue.code === 'invalid_union') {
        // Zod reports an unknown discriminator at the `op` path, so this reads as "…op must be…".
        const op: unknown = (issue.input as { op?: unknown } | undefined)?.op;
        const got = op === undefined ? 'nothing' : JSON.stringify(op);
        return `must be one of gt, gte, lt, lte, eq, ne, in, got ${got}`;
      }
      return problem('must be a map with "arg", "op" and "value"')(issue);
    },
  },
);

const rule = z.strictObject(
  {
    when: condition,
    then: z
      .strictObject(settingsShape, { error: problem(`must be a map setting some of ${SETTING_NAMES}`) })
      .refine((then) => Object.values(then).some((v) => v !== undefined), {
        error: `must set at least one of ${SETTING_NAMES}`,
      }),
  },
  { error: 'must be a map with "when" and "then"' },
);

const LIMIT_HINT = 'must be a map like { sum: "amountCents", by: "requester", over: "24h", above: 100000, then: { quorum: 2 } } or { count: true, over: "1h", above: 20, then: { … } }';
const cumulativeLimit = z
  .strictObject(
    {
      sum: argPath.optional(),
      count: z.literal(true, { error: 'must be true (count the calls), or leave it out and set "sum"' }).optional(),
      by: z.literal('requester', { error: 'must be "requester" (a total per requester), or left out (one total for everyone)' }).optional(),
      over: duration,
      above: z
        .number({ error: problem('must be a number of at least 0') })
        .min(0, { error: 'must be a number of at least 0' })
        .refine(Number.isFinite, { error: 'must be a finite number' }),
      then: rule.shape.then,
    },
    { error: LIMIT_HINT },
  )
  .superRefine((limit, ctx) => {
    if (limit.sum !== undefined && limit.count !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['count'], input: limit.count, message: 'cannot be set together with "sum": a limit either sums an argument or counts calls' });
    }
    if (limit.then.requireApproval === false) {
      ctx.addIssue({ code: 'custom', path: ['then', 'requireApproval'], input: false, message: 'cannot be false in a limit: a limit only tightens (a call over it always needs approval)' });
    }
    if (limit.sum === undefined && limit.count === undefined) {
      ctx.addIssue({ code: 'custom', path: ['sum'], input: undefined, message: 'or "count: true" is required (what the limit adds up)' });
    }
  });

const toolEntry = z.strictObject(
  {
    ...settingsShape,
    rules: z.array(rule, { error: 'must be a list of { when, then } rules' }).optional(),
    limits: z.array(cumulativeLimit, { error: 'must be a list of cumulative limits' }).optional(),
  },
  { error: 'must be a map of settings' },
);

type Overrides = z.output<z.ZodObject<typeof settingsShape>>;

function overridesOf(input: Overrides): Partial<ApprovalSettings> {
  const out: { -readonly [K in keyof ApprovalSettings]?: ApprovalSettings[K] } = {};
  if (input.requireApproval !== undefined) out.requireApproval = input.requireApproval;
  // Approvers are a set: order and repeats carry no meaning, so they must not change the version.
  if (input.approvers !== undefined) out.approvers = [...new Set(input.approvers)].sort();
  if (input.allowSelfApproval !== undefined) out.allowSelfApproval = input.allowSelfApproval;
  if (input.quorum !== undefined) out.quorum = input.quorum;
  if (input.expiresIn !== undefined) out.expiresInMs = input.expiresIn;
  if (input.notify !== undefined) out.notify = input.notify;
  if (input.route !== undefined) out.route = typeof input.route === 'string' ? input.route : { channel: input.route.channel };
  if (input.dmLimit !== undefined) out.dmLimit = input.dmLimit;
  if (input.remindAfter !== undefined) out.remindAfterMs = input.remindAfter;
  if (input.remindLimit !== undefined) out.remindLimit = input.remindLimit;
  if (input.warnBefore !== undefined) out.warnBeforeMs = input.warnBefore;
  if (input.escalateAfter !== undefined) out.escalateAfterMs = input.escalateAfter;
  if (input.escalateTo !== undefined) out.escalateTo = [...new Set(input.escalateTo)].sort();
  if (input.allowEdit !== undefined) out.allowEdit = input.allowEdit;
  if (input.keepApprovalsOnEdit !== undefined) out.keepApprovalsOnEdit = input.keepApprovalsOnEdit;
  if (input.risk !== undefined) out.risk = input.risk;
  if (input.rememberFor !== undefined) out.rememberFor = input.rememberFor;
  if (input.requireReason !== undefined) out.requireReason = input.requireReason;
  if (input.deny !== undefined) out.deny = input.deny;
  return out;
}

/** A high-risk call is never remembered: saying both in one place is a mistake, reported where it is. */
function checkRemember(set: Overrides, path: (string | number)[], ctx: z.RefinementCtx): void {
  if (set.rememberFor !== undefined && set.risk === 'high') {
    ctx.addIssue({ code: 'custom', path: [...path, 'rememberFor'], input: set.rememberFor, message: 'cannot be set together with risk: "high" (a high-risk call is never remembered)' });
  }
}

/**
 * Times that can never come before the request expires would silently never fire, and an
 * escalation needs both a time and someone to escalate to; each is reported where it is set.
 */
function checkTimes(settings: ApprovalSettings, path: (string | number)[], ctx: z.RefinementCtx): void {
  const expires = settings.expiresInMs;
  const tooLate = (field: string, ms: number | undefined, what: string) => {
    if (ms !== undefined && ms >= expires) {
      ctx.addIssue({ code: 'custom', path: [...path, field], input: ms, message: `must be shorter than expiresIn (${expires / 1000}s), or ${what}` });
    }
  };
  tooLate('remindAfter', settings.remindAfterMs, 'no reminder is ever sent');
  tooLate('warnBefore', settings.warnBeforeMs, 'the warning would come before the request exists');
  tooLate('escalateAfter', settings.escalateAfterMs, 'the request expires before it escalates');
  if (settings.escalateAfterMs !== undefined && settings.escalateTo === undefined) {
    ctx.addIssue({ code: 'custom', path: [...path, 'escalateTo'], input: undefined, message: 'is required when escalateAfter is set (who to escalate to)' });
  }
  if (settings.escalateTo !== undefined && settings.escalateAfterMs === undefined) {
    ctx.addIssue({ code: 'custom', path: [...path, 'escalateAfter'], input: undefined, message: 'is required when escalateTo is set (when to escalate)' });
  }
  if (settings.remindLimit !== undefined && settings.remindAfterMs === undefined) {
    ctx.addIssue({ code: 'custom', path: [...path, 'remindAfter'], input: undefined, message: 'is required when remindLimit is set (when to remind)' });
  }
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const member of Object.values(value)) deepFreeze(member);
    Object.freeze(value);
  }
  return value;
}

/** An instant written with its offset (`2026-12-24T00:00:00Z`, `…+01:00`): a time without one means a different moment on every server. */
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,3})?)?(?:Z|[+-]\d{2}:\d{2})$/;
const instant = z
  .union([z.date(), z.string()], { error: problem('must be a date and time with its offset, e.g. "2026-12-24T00:00:00Z" or "2026-12-24T00:00:00+01:00"') })
  .transform((raw, ctx) => {
    const ms = raw instanceof Date ? raw.getTime() : INSTANT.test(raw) ? Date.parse(raw) : Number.NaN;
    if (Number.isNaN(ms)) {
      ctx.addIssue({ code: 'custom', input: raw, message: `must be a date and time with its offset, e.g. "2026-12-24T00:00:00Z" or "2026-12-24T00:00:00+01:00", got ${JSON.stringify(raw)}` });
      return z.NEVER;
    }
    return new Date(ms).toISOString();
  });

const FREEZE_HINT =
  'must be a map like { name: "holidays", from: "2026-12-20T00:00:00Z", to: "2027-01-05T00:00:00Z", tools: ["deploy"], then: { deny: "…" } } ' +
  'or { name: "weekend", every: "0 18 * * 5", for: "62h", timeZone: "Europe/Berlin", tools: ["*"], then: { quorum: 2 } }';
const freeze = z
  .strictObject(
    {
      name: z.string({ error: problem('must be the freeze\'s name') }).trim().min(1, { error: 'must not be empty' }).max(80, { error: 'must be at most 80 characters' }),
      from: instant.optional(),
      to: instant.optional(),
      every: z.string({ error: 'must be a cron expression like "0 18 * * 5"' }).trim().min(1, { error: 'must be a cron expression like "0 18 * * 5"' }).optional(),
      for: duration.optional(),
      timeZone: z
        .string({ error: 'must be an IANA time zone such as "UTC" or "Europe/Berlin"' })
        .superRefine((tz, ctx) => {
          const problem = timeZoneProblem(tz);
          if (problem) ctx.addIssue({ code: 'custom', input: tz, message: problem });
        })
        .optional(),
      tools: z
        .array(z.union([z.literal('*'), toolKey], { error: 'must be a tool name, an MCP pattern ("server.tool", "server.*") or "*"' }), {
          error: problem('must be a list of the tools it covers: tool names, MCP patterns ("server.*") or "*" for every tool'),
        })
        .min(1, { error: 'must name at least one tool (or "*" for every tool)' }),
      then: rule.shape.then,
    },
    { error: FREEZE_HINT },
  )
  .superRefine((f, ctx) => {
    const absolute = f.from !== undefined || f.to !== undefined;
    const recurring = f.every !== undefined || f.for !== undefined || f.timeZone !== undefined;
    if (absolute && recurring) {
      ctx.addIssue({ code: 'custom', path: [], input: f, message: 'sets both "from"/"to" and "every"/"for"/"timeZone": a freeze is one window (from, to) or recurring windows (every, for, timeZone)' });
    } else if (!absolute && !recurring) {
      ctx.addIssue({ code: 'custom', path: ['from'], input: undefined, message: 'and "to" (one window), or "every" and "for" (recurring windows), are required' });
    } else if (absolute) {
      if (f.from === undefined) ctx.addIssue({ code: 'custom', path: ['from'], input: undefined, message: 'is required with "to"' });
      if (f.to === undefined) ctx.addIssue({ code: 'custom', path: ['to'], input: undefined, message: 'is required with "from"' });
      if (f.from !== undefined && f.to !== undefined && Date.parse(f.to) <= Date.parse(f.from)) {
        ctx.addIssue({ code: 'custom', path: ['to'], input: f.to, message: 'must be later than "from"' });
      }
    } else {
      if (f.every === undefined) ctx.addIssue({ code: 'custom', path: ['every'], input: undefined, message: 'is required with "for" (when each window starts, as a cron expression)' });
      if (f.for === undefined) ctx.addIssue({ code: 'custom', path: ['for'], input: undefined, message: 'is required with "every" (how long each window lasts, e.g. "62h")' });
      if (f.every !== undefined) {
        const problem = cronProblem(f.every, f.timeZone ?? 'UTC');
        if (problem) ctx.addIssue({ code: 'custom', path: ['every'], input: f.every, message: problem });
      }
    }
    if (f.then.requireApproval === false) {
      ctx.addIssue({ code: 'custom', path: ['then', 'requireApproval'], input: false, message: 'cannot be false in a freeze: a freeze only tightens (a call during it always needs approval, or is denied)' });
    }
  });

export const policySchema = z
  .strictObject(
    {
      version: z
        .string({ error: 'must be a text label' })
        .regex(/^[^@\s](?:[^@]*[^@\s])?$/, {
          error: 'must be a non-empty label without "@" or surrounding spaces ("@<hash>" is appended to it)',
        })
        .optional(),
      defaults: z.strictObject(settingsShape, { error: 'must be a map of settings' }).optional(),
      tools: z
        .record(toolKey, toolEntry, {
          error: 'must be a map from tool name to settings',
        })
        .optional(),
      mcp: z
        .strictObject(
          {
            trustReadOnlyHint: z.union([z.boolean(), z.array(z.string().regex(mcpServerNamePattern))], {
              error: 'must be true, false or a list of MCP server names',
            }),
          },
          { error: 'must be a map with "trustReadOnlyHint"' },
        )
        .optional(),
      allowExternalTeams: z
        .array(z.string().regex(/^[TE][A-Z0-9]{2,}$/, { error: 'must be a Slack team id (T…) or organisation id (E…)' }), {
          error: 'must be a list of Slack team ids (T…) or organisation ids (E…)',
        })
        .optional(),
      freezes: z.array(freeze, { error: 'must be a list of freezes' }).optional(),
      unattended: z.enum(['require-approval', 'deny'], { error: 'must be "require-approval" (a person must approve) or "deny"' }).optional(),
    },
    { error: 'must be a map with optional "version", "defaults", "tools", "mcp", "allowExternalTeams", "freezes" and "unattended"' },
  )
  .transform((input, ctx): Policy => {
    const defaults: ApprovalSettings = { ...BUILT_IN_DEFAULTS, ...overridesOf(input.defaults ?? {}) };
    checkTimes(defaults, ['defaults'], ctx);
    checkRemember(input.defaults ?? {}, ['defaults'], ctx);

    // The defaults' deny refuses tools without an entry (an allow-list); an entry is never denied by it.
    const { deny: _allowList, ...entryDefaults } = defaults;
    const tools: Record<string, ToolPolicy> = {};
    for (const [name, entry] of Object.entries(input.tools ?? {})) {
      const { rules = [], limits = [], ...settings } = entry;
      const base: ApprovalSettings = { ...entryDefaults, ...overridesOf(settings) };
      checkTimes(base, ['tools', name], ctx);
      checkRemember(settings, ['tools', name], ctx);

      const normalisedRules = rules.map((r, i): PolicyRule => {
        const then = overridesOf(r.then);
        checkTimes({ ...base, ...then }, ['tools', name, 'rules', i, 'then'], ctx);
        checkRemember(r.then, ['tools', name, 'rules', i, 'then'], ctx);
        // Cloned so that freezing the policy never freezes objects the caller still owns.
        return { when: structuredClone(r.when) as RuleCondition, then };
      });
      const normalisedLimits = limits.map((l, i): CumulativeLimit => {
        const then = overridesOf(l.then);
        checkTimes({ ...base, ...then }, ['tools', name, 'limits', i, 'then'], ctx);
        return {
          ...(l.sum !== undefined ? { sum: l.sum } : { count: true as const }),
          ...(l.by !== undefined ? { by: l.by } : {}),
          overMs: l.over,
          above: l.above,
          then,
        };
      });
      tools[name] = { ...base, rules: normalisedRules, ...(normalisedLimits.length > 0 ? { limits: normalisedLimits } : {}) };
    }

    const names = new Set<string>();
    const freezes = (input.freezes ?? []).map((f, i): Freeze => {
      if (names.has(f.name)) ctx.addIssue({ code: 'custom', path: ['freezes', i, 'name'], input: f.name, message: `must be unique: another freeze is called ${JSON.stringify(f.name)}` });
      names.add(f.name);
      return {
        name: f.name,
        ...(f.from !== undefined && f.to !== undefined ? { from: f.from, to: f.to } : {}),
        ...(f.every !== undefined ? { every: f.every, forMs: f.for!, timeZone: f.timeZone ?? 'UTC' } : {}),
        tools: [...new Set(f.tools)].sort(),
        then: overridesOf(f.then),
      };
    });

    const trust = input.mcp?.trustReadOnlyHint;
    const content: PolicyContent = {
      defaults,
      tools,
      ...(trust === undefined ? {} : { mcp: { trustReadOnlyHint: typeof trust === 'boolean' ? trust : [...new Set(trust)].sort() } }),
      ...(input.allowExternalTeams === undefined ? {} : { allowExternalTeams: [...new Set(input.allowExternalTeams)].sort() }),
      ...(freezes.length > 0 ? { freezes } : {}),
      ...(input.unattended === undefined ? {} : { unattended: input.unattended }),
    };
    const policy: Policy =
      input.version === undefined
        ? { version: policyVersion(content), ...content }
        : { version: policyVersion(content, input.version), label: input.version, ...content };
    return deepFreeze(policy);
  });

/** What users write, in TypeScript or in a policy file. */
export type PolicyInput = z.input<typeof policySchema>;
