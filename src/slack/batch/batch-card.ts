import type { Button, KnownBlock, ModalView } from '@slack/types';
import { escapeMrkdwn, inlineCode, slackDate } from '../kit/mrkdwn/escape-mrkdwn.js';
import { LIMITS, truncate, truncateMrkdwn, fitMessage, scaled, context, section, oneLine, plainText } from '../kit/limits.js';
import { highRiskConfirm, boundLine, unattendedText } from '../card/approval-card.js';
import { ACTION_IDS, batchBlockId, cardBlockId, CALLBACK_IDS, approvalButtonValue, FINGERPRINT_PREFIX_LENGTH } from '../kit/action-ids.js';
import type { ApprovalCardState, CardBound, CardUnattended } from '../card/card-types.js';
import { humanList, mention, whoDecides } from '../kit/mention.js';
import { unreachable } from '../../unreachable.js';
import type { Agent } from '../../agent/agent.js';
import type { Request } from '../../agent/request.js';
import { approvalState, type RenderedCard, describedCall, editShown, boundOf, unattendedOf, editFacts } from '../card/render-card.js';
import type { RequestView } from '../../agent/request-view.js';
import type { ViewStateValues } from '../kit/submitted-payloads.js';
import { DECLINE_REASON_ACTION_ID, DECLINE_REASON_BLOCK_ID, declineReasonInput } from '../kit/form-inputs.js';

/**
 * Most calls one message of a batch card shows: each takes two blocks (its section and its
 * buttons) and about 700 characters, so ten stay well inside 50 blocks and the message's size.
 */
export const BATCH_PART_SIZE = 10;

/** One parallel call on a batch card. */
export interface BatchMember {
  actionId: number;
  toolName: string;
  args: unknown;
  fingerprint: string;
  quorum: number;
  /** User ids who have approved so far. */
  approvals: string[];
  state: ApprovalCardState;
  /** The call described (as on a single card): its title and fields (values already mrkdwn), and its risk. */
  described?: { title: string; fields: ReadonlyArray<{ label: string; value: string }>; risk: 'low' | 'high' };
  /** Offer Edit beside its Approve and Decline, as a single card does (see ApprovalCardData.editable). */
  editable?: boolean;
  /** Set on a request an approver's edit created: what changed, by whom (already mrkdwn; see editDiffText). */
  editedLine?: string;
  /** What its approval is bound to and what holds it, told in a line (see boundLine). */
  bound?: CardBound;
}

export interface BatchCardData {
  /** How many calls the whole batch has (all parts). */
  total: number;
  /** This message's part (1-based) and how many parts the batch has. */
  part: number;
  parts: number;
  /** Where this part's first member is in the whole batch (0-based), for numbering. */
  offset: number;
  /** This part's calls, in order. */
  members: BatchMember[];
  /** Calls of the whole batch still undecided: what the run waits for. */
  waiting: number;
  requester?: string;
  /** Set when no person requested the run: what did. */
  unattended?: CardUnattended;
  /** User ids (U…/W…) and user group ids (S…) who may decide; empty means anyone. */
  approvers: string[];
  notify?: 'mentions' | 'none';
  /** When the first pending call expires. */
  expiresAt?: Date;
}

/** The batch's calls cut into the messages that show them, in order. */
export function batchParts<T>(members: readonly T[]): T[][] {
  const parts: T[][] = [];
  for (let i = 0; i < members.length; i += BATCH_PART_SIZE) parts.push(members.slice(i, i + BATCH_PART_SIZE));
  return parts;
}

/** The value of Approve all / Decline all: each pending call of the part, with its fingerprint prefix. */
function batchButtonValue(members: ReadonlyArray<{ actionId: number; fingerprint: string }>): string {
  return JSON.stringify({ m: members.map((m) => [m.actionId, m.fingerprint.slice(0, FINGERPRINT_PREFIX_LENGTH)]) });
}

/**
 * The card of a model step's parallel calls that need approval: one section per call with its
 * state (and what an edit changed) and, while it is pending, its own Approve, Edit where it may
 * be edited, and Decline (the same buttons, ids and values as a single card's, so each call is
 * decided, or edited, as its own request); Approve all / Decline all for
 * the part's pending calls; and what the run still waits for.
 */
export function batchCard(data: BatchCardData): KnownBlock[] {
  return fitMessage((scale) => render(data, scale));
}

function render(d: BatchCardData, scale: number): KnownBlock[] {
  const title = `${d.total} actions need approval${d.parts > 1 ? ` (part ${d.part} of ${d.parts})` : ''}`;
  const blocks: KnownBlock[] = [{ type: 'header', text: plainText(oneLine(title), LIMITS.headerText) }];
  const facts: string[] = [];
  if (d.requester !== undefined) facts.push(`*Requested by:* ${mention(d.requester)}`);
  else if (d.unattended !== undefined) facts.push(`*Requested by:* ${unattendedText(d.unattended)}`);
  const approvers = d.approvers.length === 0 ? 'anyone' : whoDecides(d.approvers, d.notify ?? 'mentions', { maxChars: scaled(800, scale, 100) });
  facts.push(`*Approvers:* ${approvers}`);
  if (d.waiting > 0 && d.expiresAt !== undefined) facts.push(`*Expires:* ${slackDate(d.expiresAt)}`);
  blocks.push(section(facts.join('\n')));

  const pending: BatchMember[] = [];
  d.members.forEach((m, i) => {
    const n = d.offset + i + 1;
    const edited = m.editedLine !== undefined ? `\n${truncateMrkdwn(m.editedLine, scaled(500, scale, 80))}` : '';
    const bound = m.bound ? boundLine(m.bound, m.state.kind === 'pending', scaled(600, scale, 100)) : '';
    blocks.push(section(`*${n}.* ${memberLine(m, scale)}${edited}${bound ? `\n${bound}` : ''}\n${statusLine(m, scale)}`));
    if (m.state.kind !== 'pending') return;
    pending.push(m);
    const value = approvalButtonValue(m.actionId, m.fingerprint);
    const approve: Button = {
      type: 'button',
      action_id: ACTION_IDS.approve,
      text: plainText(`Approve #${n}`),
      style: 'primary',
      value,
      ...(m.described?.risk === 'high' ? { confirm: highRiskConfirm(m.described.title) } : {}),
    };
    const decline: Button = { type: 'button', action_id: ACTION_IDS.decline, text: plainText(`Decline #${n}`), style: 'danger', value };
    const edit: Button = { type: 'button', action_id: ACTION_IDS.edit, text: plainText(`Edit #${n}`), value };
    blocks.push({ type: 'actions', block_id: cardBlockId('approval', m.actionId), elements: [approve, ...(m.editable ? [edit] : []), decline] });
  });

  const first = d.members[0];
  const riskyTitles = pending.filter((m) => m.described?.risk === 'high').map((m) => m.described!.title);
  if (pending.length > 0 && first !== undefined) {
    const value = batchButtonValue(pending);
    blocks.push({
      type: 'actions',
      block_id: batchBlockId(first.actionId),
      elements: [
        {
          type: 'button',
          action_id: ACTION_IDS.batchApproveAll,
          text: plainText('Approve all'),
          style: 'primary',
          value,
          // Approving all approves the high-risk ones too: confirmed as each one's own Approve is.
          ...(riskyTitles.length > 0 ? { confirm: highRiskConfirm(riskyTitles.join('; ')) } : {}),
        },
        // Opens the reason modal, which is where it can still be cancelled.
        { type: 'button', action_id: ACTION_IDS.batchDeclineAll, text: plainText('Decline all'), style: 'danger', value },
      ],
    });
  }

  const waiting =
    d.waiting === 0 ? 'All decided: the run continues' : `Waiting for ${d.waiting} of ${d.total} ${d.total === 1 ? 'decision' : 'decisions'}`;
  const ids = d.members.map((m) => `#${m.actionId}`).join(', ');
  blocks.push(context(`${waiting}  ·  Requests ${truncate(ids, 200)}`));
  return blocks;
}

function statusLine(m: BatchMember, scale: number): string {
  const s = m.state;
  switch (s.kind) {
    case 'pending': {
      const quorum = Number.isFinite(m.quorum) ? Math.max(1, Math.floor(m.quorum)) : 1;
      if (quorum <= 1) return ':hourglass_flowing_sand: Pending';
      const who = m.approvals.length > 0 ? `: ${humanList(m.approvals.map(mention), { maxChars: scaled(400, scale, 60) })}` : '';
      return `:hourglass_flowing_sand: Pending, ${m.approvals.length} of ${quorum} approvals${who}`;
    }
    case 'approved':
      return `:white_check_mark: Approved by ${humanList(s.by.map(mention), { maxChars: scaled(400, scale, 60) })}`;
    case 'declined': {
      const reason = s.reason?.trim();
      return `:no_entry: Declined by ${mention(s.by)}${reason ? `: ${escapeMrkdwn(truncate(oneLine(reason), scaled(300, scale, 40)))}` : ''}`;
    }
    case 'expired':
      return ':hourglass: Expired: nobody decided in time';
    case 'blocked':
      return `:warning: Blocked: ${s.reason !== undefined ? `it did not run because ${escapeMrkdwn(truncate(oneLine(s.reason), scaled(300, scale, 60)))}` : 'arguments changed since it was approved'}`;
    case 'superseded':
      return ':arrows_counterclockwise: Superseded: the approval policy changed, so it was asked again';
    case 'cancelled':
      return `:heavy_multiplication_x: Cancelled${s.by !== undefined ? ` by ${mention(s.by)}` : ''}`;
    case 'edited':
      // An edit from Slack puts the new request in this one's place; this shows only where it could
      // not (an edit through the API, whose new request gets a card of its own).
      return `:pencil2: Edited by ${mention(s.by)}: asked again as a new request`;
    default:
      return unreachable(s, 'approval card state');
  }
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? 'undefined';
  } catch {
    return String(value);
  }
}

/** A call in words when it is described (title, fields), else its tool and arguments as JSON. */
function memberLine(m: BatchMember, scale: number): string {
  const tool = inlineCode(truncate(m.toolName, 100));
  if (!m.described) return `${tool} ${inlineCode(truncate(oneLine(safeJson(m.args)), scaled(300, scale, 40)))}`;
  const risk = m.described.risk === 'high' ? ' :warning: high-risk' : '';
  const fields = m.described.fields.map((f) => `${escapeMrkdwn(f.label)}: ${f.value.replace(/\n+/g, ' ')}`).join(' · ');
  const line = `*${escapeMrkdwn(truncate(oneLine(m.described.title), 150))}* (${tool})${risk}${fields ? `\n${fields}` : ''}`;
  return truncateMrkdwn(line, scaled(700, scale, 120));
}

/** A member of a batch as drawn: its request, and whether its approved call was blocked at the gate. */
interface BatchMemberRow {
  action: Request;
  blocked: boolean;
  /** Why, in words (see CardState.blockedReason). */
  blockedReason?: string;
}

/**
 * Every message of a batch card, drawn from its members' stored requests (the truth every
 * instance shares, as for a single card), one per part in `parts` (see batchParts), and every
 * part says how many calls of the whole batch the run still waits for.
 */
export function renderBatchCard(agent: Agent, parts: ReadonlyArray<readonly BatchMemberRow[]>, at?: Date): RenderedCard[] {
  const now = at ?? new Date();
  const members = parts.flat();
  const states = members.map((m) => ({ request: m.action, state: approvalState(m.action, m.blocked, now, m.blockedReason) }));
  const waiting = states.filter((s) => s.state.kind === 'pending').length;
  const first = members[0]?.action;
  const approvers = new Set<string>();
  let notify: 'mentions' | 'none' = 'mentions';
  // One view per member, one policy evaluation each: everything its line says comes from it.
  const views = new Map<number, RequestView>();
  for (const m of members) {
    // The policy at the runtime's clock (its freezes), unless the draw is for another moment.
    const view = agent.viewRequest(m.action, at ? { now: at } : {});
    views.set(m.action.id, view);
    for (const id of view.approvers) approvers.add(id);
    if (view.requirement.reach.notify === 'none') notify = 'none';
  }
  const pendingExpiries = states
    .filter((s) => s.state.kind === 'pending' && s.request.expiresAt)
    .map((s) => s.request.expiresAt!.getTime());
  const tools = escapeMrkdwn(truncate(members.map((m) => m.action.toolName).join(', '), 200));
  const who = [...approvers];
  const text =
    `${members.length} actions need approval: ${tools}` +
    (waiting > 0 && notify === 'mentions' && who.length > 0 ? ` for ${whoDecides(who, notify, { maxChars: 1500 })}` : '');
  const boundOfRow = (view: RequestView) => {
    const bound = boundOf(view.binding, view.requirement);
    return bound ? { bound } : {};
  };
  let offset = 0;
  return parts.map((memberRows, i): RenderedCard => {
    const part = states.slice(offset, offset + memberRows.length);
    offset += memberRows.length;
    return {
      kind: 'approval',
      text,
      blocks: batchCard({
        total: members.length,
        part: i + 1,
        parts: parts.length,
        offset: offset - part.length,
        waiting,
        ...(first?.requester ? { requester: first.requester } : {}),
        ...(first && !first.requester ? { unattended: unattendedOf(first, agent.id)! } : {}),
        approvers: who,
        notify,
        ...(pendingExpiries.length > 0 ? { expiresAt: new Date(Math.min(...pendingExpiries)) } : {}),
        members: part.map((s) => {
          const view = views.get(s.request.id)!;
          return {
            actionId: s.request.id,
            toolName: s.request.toolName,
            args: s.request.args,
            fingerprint: s.request.fingerprint,
            quorum: s.request.quorum,
            approvals: s.request.approvals.map((a) => a.userId),
            state: s.state,
            described: describedCall(s.request.toolName, s.request.args, view.description),
            ...editFacts(view, s.request, editShown(view.description.inputSchema, s.request.args)),
            ...boundOfRow(view),
          };
        }),
      }),
    };
  });
}

interface BatchDeclineModalData {
  /** The pending calls Decline all was clicked for, as its button named them. */
  members: ReadonlyArray<{ actionId: number; fingerprint: string; toolName: string }>;
  /** The batch message clicked: the submission is checked against it again. */
  channel: string;
  ts: string;
}

/**
 * The modal Decline all opens: one optional reason for every pending call of the part. Its
 * private_metadata carries what the button did (each call with its fingerprint prefix) and the
 * message it was on, so the submission is bound to the calls and arguments the decliner saw.
 */
export function batchDeclineModal(data: BatchDeclineModalData): ModalView {
  const n = data.members.length;
  const tools = humanList(
    [...new Set(data.members.map((m) => m.toolName))].map((t) => inlineCode(truncate(t, 100))),
    { maxChars: 1500 },
  );
  const metadata = { ...(JSON.parse(batchButtonValue(data.members)) as object), c: data.channel, t: data.ts };
  return {
    type: 'modal',
    callback_id: CALLBACK_IDS.batchDeclineModal,
    private_metadata: JSON.stringify(metadata),
    title: plainText('Decline all', LIMITS.modalTitle),
    submit: plainText('Decline all', LIMITS.modalButton),
    close: plainText('Cancel', LIMITS.modalButton),
    blocks: [
      section(
        `Decline the ${n} pending ${n === 1 ? 'call' : 'calls'} (${tools})? ` +
          'None of them runs; the agent is told each was declined, with your reason if you give one.',
      ),
      declineReasonInput(),
    ],
  };
}

/** The reason typed, if any. */
export function batchDeclineReason(stateValues: ViewStateValues): string | undefined {
  const reason = stateValues[DECLINE_REASON_BLOCK_ID]?.[DECLINE_REASON_ACTION_ID]?.value?.trim();
  return reason ? reason : undefined;
}

/** The message the modal's Decline all was clicked on, from its private_metadata; undefined if not ours. */
export function batchDeclineMessage(privateMetadata: string | undefined): { channel: string; ts: string } | undefined {
  try {
    const { c, t } = JSON.parse(privateMetadata ?? '') as { c?: unknown; t?: unknown };
    return typeof c === 'string' && typeof t === 'string' && c.length <= 40 && t.length <= 40 ? { channel: c, ts: t } : undefined;
  } catch {
    return undefined;
  }
}
