import type { Button, HomeView, KnownBlock, ModalView } from '@slack/types';
import { highRiskConfirm, boundLine, unattendedText } from '../card/approval-card.js';
import type { Request } from '../../agent/request.js';
import { escapeMrkdwn, inlineCode, slackDate } from '../kit/mrkdwn/escape-mrkdwn.js';
import { ACTION_IDS, cardBlockId, approvalButtonValue } from '../kit/action-ids.js';
import { context, section, plainText, LIMITS, truncate, truncateMrkdwn } from '../kit/limits.js';
import { mention } from '../kit/mention.js';
import { callFieldsLine, type CallInWords } from '../kit/describe-args.js';
import type { CardBound, CardUnattended } from '../card/card-types.js';

const CHANNEL = /^[CDG][A-Z0-9]{1,40}$/;
const TS = /^\d{1,12}\.\d{1,9}$/;

/**
 * The web link to a card in its thread (what Slack's "Copy link" gives), from the workspace URL
 * auth.test returns; undefined when a part does not look like Slack's, so nothing odd lands in
 * an mrkdwn link.
 */
export function threadLink(teamUrl: string | undefined, card: { channel: string; ts: string; thread_ts: string | null }): string | undefined {
  if (!teamUrl || !/^https?:\/\/[^\s|<>]+\/$/.test(teamUrl)) return undefined;
  if (!CHANNEL.test(card.channel) || !TS.test(card.ts) || (card.thread_ts !== null && !TS.test(card.thread_ts))) return undefined;
  const message = `${teamUrl}archives/${card.channel}/p${card.ts.replace('.', '')}`;
  return card.thread_ts ? `${message}?thread_ts=${card.thread_ts}&cid=${card.channel}` : message;
}

/** One request as the inbox shows it. */
export interface InboxItem {
  action: Pick<
    Request,
    'id' | 'toolName' | 'args' | 'fingerprint' | 'status' | 'requester' | 'quorum' | 'approvals' | 'expiresAt' | 'decidedBy' | 'decidedAt' | 'createdAt'
  >;
  /** The call in words, as its card describes it (the tool's describe(), else its arguments as labelled fields). */
  call: CallInWords;
  /** The card's thread in Slack, or, for a request without a card (one run under a remembered approval), its run's thread. */
  link?: string;
  /** Set on a request an approver's edit created: who edited it, and what changed (mrkdwn, see editDiffText). */
  edited?: { editor: string; line: string };
  /** Set on a request closed by an edit: the request that took its place. */
  replacedBy?: number;
  /** A high-risk call (its title, for the confirm dialog): Approve asks to confirm, as on the card. */
  highRisk?: { title: string };
  /** Set when the request is one of a model step's parallel calls shown on one card: which of how many. */
  batch?: { position: number; size: number };
  /** What its approval is bound to and what holds it, as its card says (one line, see boundLine). */
  bound?: CardBound;
  /** Set when no person requested the run: what did (the agent, the run's caller label). */
  unattended?: CardUnattended;
}

export interface InboxData {
  /** One page of what waits for this person, oldest first. */
  waiting: InboxItem[];
  /** How many requests wait for this person in all, counted exactly. */
  waitingTotal: number;
  /** How many of them come before this page. */
  waitingBefore: number;
  requested: InboxItem[];
  requestedTotal: number;
  decided: InboxItem[];
  decidedTotal: number;
  /** Live remembered approvals the person may revoke; listed (Home tab) only when given. */
  remembered?: RememberedItem[];
  /**
   * Shown first, e.g. why a click from the inbox changed nothing: mrkdwn the caller built with
   * every model or user part escaped, like any text told to a clicker (tellUser).
   */
  notice?: string;
}

export interface InboxFit {
  /** The surface's block limit: 100 for a view, 50 for a message. */
  maxBlocks: number;
  /** Waiting requests read for one page (the page shows as many as fit). */
  waitingPage: number;
  /** At most this many of the person's own requests and of their decisions are listed. */
  maxListed: number;
}

export const HOME_FIT: InboxFit = { maxBlocks: LIMITS.modalBlocks, waitingPage: 35, maxListed: 10 };
/** A message also has a JSON size limit (messageBlocksJson), so the ephemeral list is shorter. */
export const MESSAGE_FIT: InboxFit = { maxBlocks: 24, waitingPage: 6, maxListed: 5 };

/** The fields line of a request or a remembered approval, and a request's edit line. */
const FIELDS_CHARS = 400;

/**
 * The approvals inbox: requests waiting for this person (oldest first, a page at a time, with
 * Approve and Decline that go through the card's own checks, and buttons to the next page and
 * back), their own requests with where each stands, and what they decided lately. The other
 * lists, longer than the surface allows, end in "and N more".
 */
export function inboxBlocks(data: InboxData, fit: InboxFit): KnownBlock[] {
  const head: KnownBlock[] = [{ type: 'header', text: plainText('Approvals', LIMITS.headerText) }];
  if (data.notice) head.push(section(`:warning: ${data.notice}`));

  const requested = listed('requested', 'Requested by you', data.requested, data.requestedTotal, fit.maxListed, requestedLine, 'You have not asked for anything that needs approval.');
  const decided = listed('decided', 'Your recent decisions', data.decided, data.decidedTotal, fit.maxListed, decidedLine, 'You have not decided any requests yet.');
  const remembered = data.remembered ? [{ type: 'divider' } as KnownBlock, ...rememberedBlocks(data.remembered, fit.maxListed, (hidden, total) => moreBlock('remembered', hidden, total))] : [];
  const tail = [...remembered, { type: 'divider' } as KnownBlock, ...requested, { type: 'divider' } as KnownBlock, ...decided];

  // The waiting list gets what is left: two blocks a request, and its heading, where the page stands and its buttons.
  const room = fit.maxBlocks - head.length - tail.length - 3;
  const shown = data.waiting.slice(0, Math.max(0, Math.floor(room / 2)));
  const waiting: KnownBlock[] = [section(`*Waiting for you* (${data.waitingTotal})`)];
  if (data.waitingTotal === 0) waiting.push(context('Nothing is waiting for your decision.'));
  for (const item of shown) waiting.push(section(waitingText(item)), decisionButtons(item));
  return [...head, ...waiting, ...pager(data, shown), ...tail];
}

/**
 * Where the page stands among everything waiting, and the buttons to the next page (after the
 * last request shown) and back to the oldest; nothing when one page holds it all.
 */
function pager(data: InboxData, shown: InboxItem[]): KnownBlock[] {
  const last = data.waitingBefore + shown.length;
  const after = data.waitingTotal - last;
  if (data.waitingBefore === 0 && after <= 0) return [];
  const where =
    shown.length > 0
      ? `Showing ${data.waitingBefore + 1}–${last} of ${data.waitingTotal}, oldest first${after > 0 ? `; ${after} more after these` : ''}.`
      : `Nothing waits for you after the requests before this page (${data.waitingTotal} in all).`;
  const buttons: Button[] = [];
  if (data.waitingBefore > 0) buttons.push(pageButton('← First page', undefined));
  if (after > 0 && shown.length > 0) buttons.push(pageButton('Next page →', shown.at(-1)!.action.id));
  return [context(where), ...(buttons.length > 0 ? [{ type: 'actions', block_id: INBOX_PAGE_BLOCK, elements: buttons } as KnownBlock] : [])];
}

const INBOX_PAGE_BLOCK = 'inbox:page';

function pageButton(text: string, after: number | undefined): Button {
  return {
    type: 'button',
    text: plainText(text, LIMITS.buttonText),
    action_id: after === undefined ? ACTION_IDS.inboxFirstPage : ACTION_IDS.inboxNextPage,
    value: after === undefined ? 'first' : `after:${after}`,
  };
}

/** The Home tab: the inbox as a view (views.publish). */
export function homeView(data: InboxData): HomeView {
  return { type: 'home', blocks: inboxBlocks(data, HOME_FIT) };
}

/** One request in full, for `/approvals <id>`; buttons only when `canDecide`. */
export function requestBlocks(item: InboxItem, canDecide: boolean): KnownBlock[] {
  const blocks: KnownBlock[] = [section(fullText(item, facts(item.action, item.unattended), `${title(item)} — ${statusOf(item)}`))];
  if (canDecide && item.action.status === 'pending') blocks.push(decisionButtons(item));
  return blocks;
}

function listed(
  list: InboxList,
  heading: string,
  items: InboxItem[],
  total: number,
  max: number,
  line: (item: InboxItem) => string,
  empty: string,
): KnownBlock[] {
  const blocks: KnownBlock[] = [section(`*${heading}*`)];
  if (items.length === 0) return [...blocks, context(empty)];
  const shown = items.slice(0, max);
  blocks.push(section(shown.map(line).join('\n')));
  if (total > shown.length) blocks.push(moreBlock(list, total - shown.length, total));
  return blocks;
}

function title(item: InboxItem, short = false): string {
  const of = item.batch ? ` (call ${item.batch.position} of ${item.batch.size} on one card)` : '';
  // A one-line title whose words are only the tool's name says its arguments too, briefly.
  const args = short && !item.call.own && item.call.fields.length > 0 ? ` (${truncateMrkdwn(callFieldsLine(item.call.fields), 160)})` : '';
  const name = `*${escapeMrkdwn(truncate(item.call.title, 150))}*${args} #${item.action.id}${of}`;
  return item.link ? `${name} · <${item.link}|open thread>` : name;
}

/** Title, who asked and when, the call's fields and, for an edited request, what the edit changed. */
function fullText(item: InboxItem, shown: string[], head = title(item)): string {
  const lines = [head, shown.join(' · ')];
  if (item.call.fields.length > 0) lines.push(truncateMrkdwn(callFieldsLine(item.call.fields), FIELDS_CHARS));
  if (item.edited) lines.push(truncateMrkdwn(item.edited.line, FIELDS_CHARS));
  if (item.bound) {
    const bound = boundLine(item.bound, item.action.status === 'pending', FIELDS_CHARS);
    if (bound) lines.push(bound);
  }
  return lines.join('\n');
}

function waitingText(item: InboxItem): string {
  const a = item.action;
  const shown = facts(a, item.unattended);
  if (a.quorum > 1) shown.push(`${votes(a)} of ${a.quorum} approvals`);
  return fullText(item, shown);
}

/** Who asked (no person: what did), when, and (while it waits) until when. */
function facts(a: InboxItem['action'], unattended: CardUnattended | undefined): string[] {
  const by = a.requester ? mention(a.requester) : unattended ? unattendedText(unattended) : 'no person';
  const shown = [inlineCode(truncate(a.toolName, 80)), `requested by ${by}`, slackDate(a.createdAt)];
  if (a.expiresAt && a.status === 'pending') shown.push(`expires ${slackDate(a.expiresAt)}`);
  return shown;
}

function requestedLine(item: InboxItem): string {
  return `${title(item, true)} — ${statusOf(item)}`;
}

function decidedLine(item: InboxItem): string {
  const a = item.action;
  const by = a.requester ? ` (requested by ${mention(a.requester)})` : '';
  return `${title(item, true)} — ${statusOf(item)}${by}`;
}

/** Where the request stands; one an edit replaced says which request took its place, one an edit made says so. */
function statusOf(item: InboxItem): string {
  const a = item.action;
  if (a.status === 'edited') {
    const by = a.decidedBy ? ` by ${mention(a.decidedBy)}` : '';
    const at = a.decidedAt ? ` ${slackDate(a.decidedAt)}` : '';
    return `:pencil2: edited${by}${at}${item.replacedBy !== undefined ? `; it goes on as #${item.replacedBy}` : ''}`;
  }
  const edited = item.edited ? ` (edited by ${mention(item.edited.editor)})` : '';
  return `${statusText(a)}${edited}`;
}

/** Where a request stands, in words. */
function statusText(a: InboxItem['action']): string {
  const by = a.decidedBy ? ` by ${mention(a.decidedBy)}` : '';
  const at = a.decidedAt ? ` ${slackDate(a.decidedAt)}` : '';
  switch (a.status) {
    case 'pending':
      return a.quorum > 1 ? `:hourglass_flowing_sand: waiting (${votes(a)} of ${a.quorum} approvals)` : ':hourglass_flowing_sand: waiting';
    case 'approved':
      return `:white_check_mark: approved${by}${at}`;
    case 'declined':
      return `:x: declined${by}${at}`;
    case 'expired':
      return `:hourglass: expired${at}`;
    case 'cancelled':
      return `:no_entry_sign: cancelled${by}${at}`;
    case 'superseded':
      return ':arrows_counterclockwise: replaced by a new request';
    case 'edited':
      return `:pencil2: edited${by}${at}`;
    case 'resumed':
      return `:speech_balloon: answered${by}${at}`;
    default:
      return escapeMrkdwn(a.status);
  }
}

function votes(a: InboxItem['action']): number {
  return Array.isArray(a.approvals) ? a.approvals.length : 0;
}

/** The card's Approve and Decline, under the inbox's action ids and the card's block id and value. */
function decisionButtons(item: InboxItem): KnownBlock {
  const value = approvalButtonValue(item.action.id, item.action.fingerprint);
  const button = (text: string, actionId: string, style: 'primary' | 'danger'): Button => ({
    type: 'button',
    text: plainText(text, LIMITS.buttonText),
    action_id: actionId,
    value,
    style,
  });
  return {
    type: 'actions',
    block_id: cardBlockId('approval', item.action.id),
    elements: [
      { ...button('Approve', ACTION_IDS.inboxApprove, 'primary'), ...(item.highRisk ? { confirm: highRiskConfirm(item.highRisk.title) } : {}) },
      button('Decline', ACTION_IDS.inboxDecline, 'danger'),
    ],
  };
}

/** The lists of the inbox a person can open in full: their requests, their decisions, the remembered approvals they may revoke. */
export type InboxList = 'requested' | 'decided' | 'remembered';

/**
 * "…and N more", with a button that opens the whole list in a modal, a page at a time
 * (inboxListModal): the inbox itself shows only the newest few.
 */
export function moreBlock(list: InboxList, more: number, total: number): KnownBlock {
  return {
    type: 'section',
    block_id: `inbox:more:${list}`,
    text: { type: 'mrkdwn', text: `…and ${more} more.`, verbatim: true },
    accessory: {
      type: 'button',
      action_id: ACTION_IDS.inboxList,
      text: plainText(`Show all ${total}`, LIMITS.buttonText),
      value: inboxListValue(list, 0),
    },
  };
}

/** A list button's value: which list, from which position (newest first). */
export function inboxListValue(list: InboxList, offset: number): string {
  return `${list}:${offset}`;
}

/** The list and position a list button names; undefined when the value is not one of ours. */
export function parseInboxListValue(value: string | undefined): { list: InboxList; offset: number } | undefined {
  const m = /^(requested|decided|remembered):(0|[1-9]\d{0,5})$/.exec(value ?? '');
  return m ? { list: m[1] as InboxList, offset: Number(m[2]) } : undefined;
}

/** One remembered approval as the Home tab lists it. */
export interface RememberedItem {
  id: number;
  toolName: string;
  /** The calls it allows, in words, as the card of the request it came from described them. */
  call: CallInWords;
  requester: string;
  createdBy: string;
  expiresAt: Date;
}

/**
 * "Remembered approvals": each live one the viewer may revoke (the calls it allows in words, for
 * whom, who allowed it, until when) with its Revoke button; past `max`, the inbox's "and N more"
 * (`more`, drawn by the inbox, whose list it opens). Two blocks at least.
 */
export function rememberedBlocks(items: readonly RememberedItem[], max: number, more: (hidden: number, total: number) => KnownBlock): KnownBlock[] {
  const blocks: KnownBlock[] = [section(`*Remembered approvals* (${items.length})`)];
  if (items.length === 0) return [...blocks, context('No remembered approvals you can revoke.')];
  const shown = items.slice(0, Math.max(0, max));
  blocks.push(...shown.map(rememberedSection));
  if (items.length > shown.length) blocks.push(more(items.length - shown.length, items.length));
  return blocks;
}

/** One remembered approval with its Revoke button. */
function rememberedSection(item: RememberedItem): KnownBlock {
  return {
    type: 'section',
    block_id: rememberedBlockId(item.id),
    text: { type: 'mrkdwn', text: rememberedText(item) },
    accessory: {
      type: 'button',
      action_id: ACTION_IDS.revokeRemembered,
      text: plainText('Revoke', LIMITS.buttonText),
      style: 'danger',
      value: String(item.id),
    },
  };
}

function rememberedText(item: RememberedItem): string {
  const facts = `${inlineCode(truncate(item.toolName, 80))} · for ${mention(item.requester)} · allowed by ${mention(item.createdBy)} · until ${slackDate(item.expiresAt)}`;
  const lines = [`*${escapeMrkdwn(truncate(item.call.title, 150))}* #${item.id}`, facts];
  if (item.call.fields.length > 0) lines.push(truncateMrkdwn(callFieldsLine(item.call.fields), FIELDS_CHARS));
  return lines.join('\n');
}

function rememberedBlockId(id: number): string {
  return `remembered:${id}`;
}

/** How many entries a page of the modal shows. */
export const LIST_PAGE = 25;
/** Lines of requests per section: each is at most a few hundred characters, a section holds 3,000. */
const LINES_PER_SECTION = 8;

/** One page of a list of the inbox: its entries from `offset` (newest first) and how many there are in all. */
export type InboxListPage =
  | { list: 'requested' | 'decided'; offset: number; total: number; items: InboxItem[] }
  | { list: 'remembered'; offset: number; total: number; items: RememberedItem[] };

const TITLES: Record<InboxList, string> = { requested: 'Requested by you', decided: 'Your decisions', remembered: 'Remembered approvals' };
const EMPTY: Record<InboxList, string> = {
  requested: 'You have not asked for anything that needs approval.',
  decided: 'You have not decided any requests yet.',
  remembered: 'No remembered approvals you can revoke.',
};

/**
 * A list of the inbox in full, a page at a time, in a modal: what the inbox's "…and N more"
 * opens. Requests read as in the inbox (in words, with a link to their thread); remembered
 * approvals keep their Revoke buttons. Newer and Older page through it in place. The modal's
 * private_metadata names the page, so a Revoke inside it can redraw it.
 */
export function inboxListModal(page: InboxListPage): ModalView {
  const { list, offset, total } = page;
  const blocks: KnownBlock[] = [];
  if (page.items.length === 0) blocks.push(context(total > 0 ? `Nothing after the first ${total}.` : EMPTY[list]));
  else {
    blocks.push(context(`${offset + 1}–${offset + page.items.length} of ${total}, newest first.`));
    if (page.list === 'remembered') blocks.push(...page.items.map(rememberedSection));
    else {
      const line = page.list === 'requested' ? requestedLine : decidedLine;
      for (let i = 0; i < page.items.length; i += LINES_PER_SECTION) blocks.push(section(page.items.slice(i, i + LINES_PER_SECTION).map(line).join('\n')));
    }
  }
  const buttons: Button[] = [];
  if (offset > 0) buttons.push(listPageButton('← Newer', ACTION_IDS.inboxListNewer, list, Math.max(0, offset - LIST_PAGE)));
  if (offset + page.items.length < total && page.items.length > 0) buttons.push(listPageButton('Older →', ACTION_IDS.inboxList, list, offset + page.items.length));
  if (buttons.length > 0) blocks.push({ type: 'actions', block_id: `inbox:list:${list}`, elements: buttons });
  return {
    type: 'modal',
    title: plainText(TITLES[list], LIMITS.modalTitle),
    close: plainText('Close', LIMITS.modalButton),
    private_metadata: inboxListValue(list, offset),
    blocks,
  };
}

function listPageButton(text: string, actionId: string, list: InboxList, offset: number): Button {
  return { type: 'button', text: plainText(text, LIMITS.buttonText), action_id: actionId, value: inboxListValue(list, offset) };
}
