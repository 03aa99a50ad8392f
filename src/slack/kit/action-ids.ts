import { isActionId } from '../../db/is-action-id.js';
import type { AllMiddlewareArgs, BlockAction, Middleware, SlackAction, SlackActionMiddlewareArgs, SlackViewMiddlewareArgs } from '@slack/bolt';
import type { SubmittedView, ViewSubmission } from './submitted-payloads.js';

/**
 * The identifiers the builders put on interactive elements and views; the listeners match on
 * the same constants, so a rename cannot silently disconnect a button from its handler.
 */
export const ACTION_IDS = {
  approve: 'approval.approve',
  decline: 'approval.decline',
  /** Edit the arguments, then approve: opens a modal built from the tool's input schema. */
  edit: 'approval.edit',
  /** "Approve and allow for …": approve, and remember the approval (policy rememberFor). */
  approveRemember: 'approval.approve_remember',
  /** Approve on a card whose policy wants a reason: opens the reason modal. */
  approveWithReason: 'approval.approve_with_reason',
  /** Opens a read-only modal with the exact pending arguments. */
  showArguments: 'approval.show_arguments',
  questionAnswer: 'question.answer',
  questionSubmit: 'question.submit',
  suspensionRespond: 'suspension.respond',
  /** Yes / No on a suspension whose resume schema is one boolean: answers without a form. */
  suspensionYes: 'suspension.yes',
  suspensionNo: 'suspension.no',
  /** An MCP server's question (elicitation): the one inline field, the form behind a button, decline, done, the link. */
  elicitationValue: 'elicitation.value',
  elicitationSubmit: 'elicitation.submit',
  elicitationAnswer: 'elicitation.answer',
  elicitationDecline: 'elicitation.decline',
  elicitationDone: 'elicitation.done',
  elicitationOpenUrl: 'elicitation.open_url',
  /** Approve and Decline in the approvals inbox (Home tab, /approvals): routed to the card's own flow. */
  inboxApprove: 'inbox.approve',
  inboxDecline: 'inbox.decline',
  /** The next page of requests waiting in the inbox, and back to the first (Home tab, /approvals). */
  inboxNextPage: 'inbox.next_page',
  inboxFirstPage: 'inbox.first_page',
  /** "Show all" under a list of the inbox, and Older in its modal; Newer goes back (two ids: one block holds both). */
  inboxList: 'inbox.list',
  inboxListNewer: 'inbox.list_newer',
  /** Revoke a remembered approval listed in the Home tab. */
  revokeRemembered: 'remembered.revoke',
  /** Approve all and Decline all on a batch card (the parallel calls of one model step). */
  batchApproveAll: 'batch.approve_all',
  batchDeclineAll: 'batch.decline_all',
} as const;

export const CALLBACK_IDS = {
  declineModal: 'approval.decline_modal',
  editModal: 'approval.edit_modal',
  approveReasonModal: 'approval.approve_reason_modal',
  argumentsModal: 'approval.arguments_modal',
  respondModal: 'suspension.respond_modal',
  elicitationModal: 'elicitation.modal',
  /** Decline all's reason modal (a batch card). */
  batchDeclineModal: 'batch.decline_modal',
} as const;

export type CardKind = 'approval' | 'question' | 'suspension';

/** The block id of a card's actions block: it tells a listener which pending action a click is for. */
export function cardBlockId(kind: CardKind, actionId: number): string {
  return `${kind}:${actionId}`;
}

/** The block id of a batch card part's Approve all / Decline all block, named after the part's first member. */
export function batchBlockId(firstActionId: number): string {
  return `batch:${firstActionId}`;
}

export function parseCardBlockId(blockId: string | undefined): { kind: CardKind; actionId: number } | undefined {
  const m = /^(approval|question|suspension):([1-9]\d{0,9})$/.exec(blockId ?? '');
  const actionId = Number(m?.[2]);
  if (!m || !isActionId(actionId)) return undefined;
  return { kind: m[1] as CardKind, actionId };
}

/** The block of an elicitation card's one inline field: its id names the request, as a card's actions block does. */
export function elicitationFieldBlockId(actionId: number): string {
  return `elicitation-field:${actionId}`;
}

export function parseElicitationFieldBlockId(blockId: string | undefined): number | undefined {
  const m = /^elicitation-field:([1-9]\d{0,9})$/.exec(blockId ?? '');
  const actionId = Number(m?.[1]);
  return m && isActionId(actionId) ? actionId : undefined;
}

/**
 * Button values: the pending action id, plus a fingerprint prefix on approval buttons so a click
 * on a stale card (arguments since changed) can be recognised and refused.
 */
export const FINGERPRINT_PREFIX_LENGTH = 16;
const FINGERPRINT_PREFIX = new RegExp(`^[0-9a-f]{${FINGERPRINT_PREFIX_LENGTH}}$`);

export function approvalButtonValue(actionId: number, fingerprint: string): string {
  return JSON.stringify({ a: actionId, f: fingerprint.slice(0, FINGERPRINT_PREFIX_LENGTH) });
}

export function actionButtonValue(actionId: number): string {
  return JSON.stringify({ a: actionId });
}

export interface ButtonValue {
  actionId: number;
  fingerprintPrefix?: string;
}

/** Parses a button value (or a modal's private_metadata); undefined for anything malformed. */
export function parseButtonValue(value: string | undefined | null): ButtonValue | undefined {
  if (typeof value !== 'string') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const { a, f } = parsed as { a?: unknown; f?: unknown };
  if (!isActionId(a)) return undefined;
  // Every approval button carries exactly this much of a SHA-256 hex digest; an empty or short
  // prefix would match any request's fingerprint.
  if (f !== undefined && (typeof f !== 'string' || !FINGERPRINT_PREFIX.test(f))) return undefined;
  return f === undefined ? { actionId: a } : { actionId: a, fingerprintPrefix: f };
}

export type ActionListener = Middleware<SlackActionMiddlewareArgs>;
type ActionId = (typeof ACTION_IDS)[keyof typeof ACTION_IDS];
type CallbackId = (typeof CALLBACK_IDS)[keyof typeof CALLBACK_IDS];

/** What a modal's listener gets: Bolt's arguments, with the submission as parsed (submitted-payloads.ts). */
type ViewListenerArgs = Omit<SlackViewMiddlewareArgs & AllMiddlewareArgs, 'payload' | 'view' | 'body'> & { body: ViewSubmission; view: SubmittedView };
export type ViewListener = (args: ViewListenerArgs) => Promise<void>;

/**
 * Where each feature's buttons and modals register, by the ids its block builders use. A type
 * of its own (listeners.ts implements it) so a feature names it without importing the file that
 * imports every feature.
 */
export interface InteractionRoutes {
  action<A extends SlackAction = BlockAction>(actionId: ActionId, listener: Middleware<SlackActionMiddlewareArgs<A>>): void;
  view(callbackId: CallbackId, listener: ViewListener): void;
}

/** What takes the interactions no route takes: unknown ids, and payloads that do not parse (each must still ack). */
export interface InteractionFallbacks {
  unknownAction: ActionListener;
  unknownView: Middleware<SlackViewMiddlewareArgs>;
  malformedAction: (args: SlackActionMiddlewareArgs & AllMiddlewareArgs, issues: string[]) => Promise<void>;
  malformedView: (args: SlackViewMiddlewareArgs & AllMiddlewareArgs, issues: string[]) => Promise<void>;
}
