/** What a validated, normalised policy is: the types every decision reads. The zod schema that builds one from what users write is policy-schema.ts. */

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** Fully resolved approval settings: what applies to a tool call before rules are evaluated. */
export interface ApprovalSettings {
  readonly requireApproval: boolean;
  /** Sorted, de-duplicated Slack ids: users (U…, W…) and user groups (S…). Empty = anyone but the bot. */
  readonly approvers: readonly string[];
  readonly allowSelfApproval: boolean;
  readonly quorum: number;
  readonly expiresInMs: number;
  /**
   * Who hears about a request and when. Each is absent unless the policy sets it, so a policy
   * written before these existed keeps its version; reachOf (reach.ts) fills in the defaults.
   */
  readonly notify?: NotifyMode;
  readonly route?: Route;
  readonly dmLimit?: number;
  readonly remindAfterMs?: number;
  readonly remindLimit?: number;
  readonly warnBeforeMs?: number;
  readonly escalateAfterMs?: number;
  /** Sorted, de-duplicated Slack ids (users and user groups) added as approvers after escalateAfterMs. */
  readonly escalateTo?: readonly string[];
  /** `false` takes the Edit button off the card: approvers may only approve or decline as asked. Absent: editing allowed. */
  readonly allowEdit?: boolean;
  /** With a quorum above 1, approvals given before an edit still count for the edited arguments (if their givers may approve those). */
  readonly keepApprovalsOnEdit?: boolean;
  /** `high`: the card says so, Approve asks to confirm, and the call is never remembered. Absent unless set (default `low`). */
  readonly risk?: Risk;
  /** Approving needs a written reason, kept on the audit trail. Absent unless set (default false). */
  readonly requireReason?: boolean;
  /**
   * Milliseconds an approver may let identical later calls (same tool, arguments, requester and
   * policy version) run without asking again ("Approve and allow for 1 hour"). Absent: never offered.
   */
  readonly rememberFor?: number;
  /**
   * Refuses the call outright, with this reason (what the model is told): it never runs and never
   * asks, and nothing at run time overrides it (a remembered approval, a request's
   * requireToolApproval, a beforeToolCall hook, an edit, any number of approvals). Once set by
   * any layer (an entry, a matching rule, a limit gone over, a freeze in force) it stays set.
   * In `defaults` it applies to tools without an entry of their own only (an allow-list).
   */
  readonly deny?: string;
}

export type Risk = 'low' | 'high';

/** `mentions`: the card and its notices mention who can decide; `none`: nobody is pinged. */
export type NotifyMode = 'mentions' | 'none';
/** Where the card goes besides the thread: `dm` to each approver, or an approvals channel. */
export type Route = 'thread' | 'dm' | { readonly channel: string };

export type ComparisonOp = 'gt' | 'gte' | 'lt' | 'lte';

export type RuleCondition =
  | { readonly arg: string; readonly op: ComparisonOp; readonly value: number }
  | { readonly arg: string; readonly op: 'eq' | 'ne'; readonly value: JsonValue }
  | { readonly arg: string; readonly op: 'in'; readonly value: readonly JsonValue[] };

export interface PolicyRule {
  readonly when: RuleCondition;
  /** Only the settings the rule changes; a rule's `approvers` replace the list, they do not add to it. */
  readonly then: Readonly<Partial<ApprovalSettings>>;
}

export interface ToolPolicy extends ApprovalSettings {
  /** Applied in order, each matching rule on top of the previous result. */
  readonly rules: readonly PolicyRule[];
  /** Present only when the policy sets some, so entries without limits keep their versions (see apply-limits.ts). */
  readonly limits?: readonly CumulativeLimit[];
}

/**
 * A rule over a window of this tool's calls rather than over one call: when the window's total
 * (this call included) is above `above`, the call needs approval and `then` is overlaid after the
 * rules, only ever tightening (overlayLimitHits in apply-limits.ts). Exactly one of
 * `sum` (an argument path; a call without a number there adds 0) and `count` is set.
 */
export interface CumulativeLimit {
  readonly sum?: string;
  readonly count?: true;
  /** `requester`: each requester has a total of their own; absent: every call counts together. */
  readonly by?: 'requester';
  readonly overMs: number;
  readonly above: number;
  readonly then: Readonly<Partial<ApprovalSettings>>;
}

/** How tools of MCP servers without an entry of their own are treated. */
export interface McpPolicy {
  /**
   * Servers whose tools annotated `readOnlyHint: true` may run under `defaults` (usually without
   * approval); `true` for every server. Annotations come from the server and are only hints, so
   * this is off unless the policy turns it on: every other MCP tool without an entry asks for approval.
   */
  readonly trustReadOnlyHint: boolean | readonly string[];
}

/** The part of a policy that decides outcomes, and therefore the part its version is derived from. */
export interface PolicyContent {
  /** Built-in defaults overlaid with the policy's `defaults`; used for tools without an entry. */
  readonly defaults: ApprovalSettings;
  /**
   * Each entry already has the defaults merged in. Look entries up with `Object.hasOwn`. Keys with
   * a dot name MCP tools: `server.tool`, or `server.*` for every tool of a server.
   */
  readonly tools: Readonly<Record<string, ToolPolicy>>;
  /** Present only when the policy sets it, so policies without it keep their versions. */
  readonly mcp?: McpPolicy;
  /**
   * Teams (T…) or organisations (E…) other than the installing workspace whose members are
   * treated as members (a partner in a Slack Connect channel the team trusts). Sorted,
   * de-duplicated; present only when the policy sets it. Default: none.
   */
  readonly allowExternalTeams?: readonly string[];
  /** Change freezes, in the order written; present only when the policy sets some. */
  readonly freezes?: readonly Freeze[];
  /**
   * What a call of a run nobody requested (no `requester`: an API run, a scheduled job) does when
   * it would need approval: `require-approval` waits for a person, as any request does; `deny`
   * refuses it without asking. Present only when the policy sets it (default `require-approval`).
   */
  readonly unattended?: Unattended;
}

export type Unattended = 'require-approval' | 'deny';

/**
 * A change freeze: while one of its windows is in force, calls of its tools get `then` over what
 * the rules and limits left, and only ever tighter (as a limit's: approval is always asked,
 * quorum never lowered, self-approval never turned back on), or are denied. Requests and
 * approvals made before the window that have not run yet are held to it too (see freezesInForce).
 * Exactly one kind of window: `from`/`to`, or `every`/`forMs`/`timeZone`.
 */
export interface Freeze {
  /** Unique in the policy: what the card, the log and the model are told. */
  readonly name: string;
  /** One window: ISO instants (UTC), `from` included, `to` not. */
  readonly from?: string;
  readonly to?: string;
  /** Recurring windows: a cron expression for when each starts, read in `timeZone` (IANA), lasting `forMs`. */
  readonly every?: string;
  readonly forMs?: number;
  readonly timeZone?: string;
  /** Tool names and MCP patterns (`server.tool`, `server.*`) it covers, or `*` for every tool. Sorted, de-duplicated. */
  readonly tools: readonly string[];
  readonly then: Readonly<Partial<ApprovalSettings>>;
}

/** A validated, normalised, deeply frozen policy. Build one with `definePolicy` or `loadPolicyFile`. */
export interface Policy extends PolicyContent {
  /** `"<label>@<hash>"`, or just the hash without a label; a grant is only honoured under the same version. */
  readonly version: string;
  readonly label?: string;
}
