/**
 * Plain data the card builders render. Nothing here knows about the database or Bolt, so the
 * builders stay pure and the listeners decide where the data comes from.
 */

export type ApprovalCardState =
  | { kind: 'pending' }
  /** `reasons`: what approvers said, by user id (a policy may require one). */
  | { kind: 'approved'; by: string[]; at: Date; reasons?: Record<string, string> }
  | { kind: 'declined'; by: string; reason?: string; at: Date }
  | { kind: 'expired' }
  /**
   * The approved call was stopped right before it ran: by default because the arguments no longer
   * match the approved fingerprint; `reason` (plain text) when something else stopped it.
   */
  | { kind: 'blocked'; reason?: string }
  /** The approval policy changed before a decision; the request was asked again under the new one. */
  | { kind: 'superseded' }
  | { kind: 'cancelled'; by?: string }
  /** An approver edited the arguments: the request that replaced it is drawn in its place. */
  | { kind: 'edited'; by: string };

export interface ApprovalCardData {
  actionId: number;
  runId: string;
  toolCallId: string;
  toolName: string;
  args: unknown;
  /** The call in words (plain text); the tool's name in words when absent. */
  title?: string;
  /** Label (plain) and value (mrkdwn, already escaped) pairs describing the arguments. */
  fields?: Array<{ label: string; value: string }>;
  /** `high`: the card says so and Approve asks to confirm. */
  risk?: 'low' | 'high';
  /** Approve opens a modal asking for a reason. */
  requireReason?: boolean;
  /** Delegation path of agents, outermost first, e.g. ['ops', 'billing']. */
  path: readonly string[];
  /** Slack user id of whoever started the run. */
  requester?: string;
  /** User ids (U…/W…) and user group ids (S…); empty means anyone may approve. */
  approvers: string[];
  quorum: number;
  /** User ids who have approved so far. */
  approvals: string[];
  expiresAt: Date;
  fingerprint: string;
  policyVersion?: string;
  /** Set for a tool of an MCP server: which server and which of its tools. */
  mcp?: { server: string; tool: string; readOnlyHint?: boolean };
  /**
   * Set when fewer people may approve than the quorum asks for (the policy lists too few, or its
   * groups are too small now): the request can never be approved, and the card says so.
   */
  unreachableQuorum?: { eligible: number };
  /** `none`: approvers are shown without mentioning (notifying) them. Default `mentions`. */
  notify?: 'mentions' | 'none';
  /** Where copies of the card went besides the thread, said on the card (already mrkdwn). */
  routedTo?: string;
  /** Set when the approval may be remembered for this long (ms): a third button offers it. */
  rememberFor?: number;
  /** The cumulative limits the request went over: why it asks more than usual (limit-reason.ts). */
  overLimit?: OverLimit[];
  /** A remembered approval matched the call but did not cover it: the card says why (rememberedUnusedText in approval-card.ts). */
  rememberedUnused?: RememberedUnusedNote;
  /** Offer Edit beside Approve and Decline (the tool's input schema fits a modal and the policy allows it). */
  editable?: boolean;
  /** Set on a request an approver's edit created: what changed, by whom (already mrkdwn; see editDiffText). */
  editedLine?: string;
  /** What the approval is bound to besides the arguments, and what holds the request (bound-blocks.ts). */
  bound?: CardBound;
  /** Set when no person requested the run (requester absent): what did (see CardUnattended). */
  unattended?: CardUnattended;
  state: ApprovalCardState;
}

/**
 * What a request's approval is bound to besides its arguments, and what holds it, as a card shows
 * it (see agent/request-binding.ts, approvals/freeze-windows.ts). Plain text: the builders escape.
 */
export interface CardBound {
  /** The model's own words for why it makes the call: shown as the agent's, never as a fact. */
  statedReason?: string;
  /** The tool's preview of what the call acts on, or why it failed (the tool chose a card without it). */
  preview?: CardPreview;
  /** Set on a request that replaces an approved one whose call did not run: why. */
  askedAgain?: { fromActionId: number; why: CardAskedAgainWhy; changes?: CardToolChange[] };
  /** The tool's MCP server changed its definition while the request waits: approving it asks again. */
  toolChanged?: CardToolChange[];
  /** Change freezes in force for the call, and until when (absent: no end in sight). */
  freezes?: Array<{ name: string; until?: Date }>;
  /** The policy as it stands now denies the call (it changed, or a freeze that denies began): its reason. */
  deniedNow?: string;
}

export type CardAskedAgainWhy = 'state-changed' | 'preview-failed' | 'not-previewed' | 'tool-changed' | 'freeze' | 'policy-changed';

export type CardPreview =
  | { fields?: Array<{ label: string; value: string }>; diff?: Array<{ label: string; before?: string; after?: string }> }
  | { failed: string };

/** One part of an MCP tool's definition that changed (description, input schema, …), as text. */
export interface CardToolChange {
  part: string;
  before?: string;
  after?: string;
}

/** A run nobody requested (an API run, a scheduled job): the agent that made the call, and its caller's label. */
export interface CardUnattended {
  agent: string;
  caller?: string;
}

/** A remembered approval that matched a call but does not cover what it asks now. */
export interface RememberedUnusedNote {
  rememberedGrantId: number;
  allowedBy: string;
  /** How many approvals it stands for. */
  approvals: number;
  expiresAt: Date;
  /** What the call asks beyond it (see db/remembered-grants.ts UnusedWhy). */
  why: ReadonlyArray<'risk' | 'quorum' | 'approvers' | 'self-approval' | 'reason' | 'limits'>;
}

/** One cumulative limit a request went over, as stored with it. */
export interface OverLimit {
  /** The argument summed; absent for a count of calls. */
  sum?: string;
  /** Whose total (`by: requester`); absent when everyone's calls count together. */
  requester?: string;
  total: number;
  above: number;
  overMs: number;
}

export interface DeclineModalData {
  actionId: number;
  fingerprint: string;
  toolName: string;
}

export interface QuestionOption {
  label: string;
  description?: string;
}

export type QuestionCardState =
  | { kind: 'pending' }
  | { kind: 'answered'; by: string; answer: string | string[] }
  | { kind: 'cancelled' };

export interface QuestionCardData {
  actionId: number;
  question: string;
  options?: QuestionOption[];
  /** Defaults to single_select when options are given. */
  selectionMode?: 'single_select' | 'multi_select';
  /** Slack user id the question is addressed to. */
  askedOf?: string;
  state: QuestionCardState;
}

/**
 * What an answer said, ready to show: one value (a bare answer, or a yes/no confirmation),
 * label/value pairs for structured answers, or nothing readable. Plain text: the builder escapes.
 */
export type AnswerSummary =
  | { kind: 'value'; text: string }
  | { kind: 'pairs'; pairs: Array<{ label: string; value: string }> }
  | { kind: 'none' };

export type SuspensionCardState = { kind: 'pending' } | { kind: 'answered'; by: string; answer: AnswerSummary } | { kind: 'cancelled' };

export interface SuspensionCardData {
  actionId: number;
  toolName: string;
  path: readonly string[];
  payload: unknown;
  /** Whether a Respond modal can be built from the tool's resume schema. */
  respondable: boolean;
  /** A yes/no resume schema: Yes / No buttons answer at once, no form. */
  confirmation?: boolean;
  /** Whether the next thread reply resumes the tool. */
  autoResume: boolean;
  state: SuspensionCardState;
}
