import type { Agent } from '../../agent/agent.js';
import type { PendingAction } from '../../db/rows.js';
import { batchCard } from './batch-card.js';
import { truncate } from '../kit/limits.js';
import { whoDecides } from '../kit/who-decides.js';
import { escapeMrkdwn } from '../kit/mrkdwn/escape-mrkdwn.js';
import { approvalState, type RenderedCard, describedCall, editShown, boundOf, unattendedOf } from '../card/render-card.js';
import { editFacts } from '../edit/edit-form.js';
import type { RequestView } from '../../agent/requests.js';

/** A member of a batch as drawn: its request row, and whether its approved call was blocked at the gate. */
export interface BatchMemberRow {
  action: PendingAction;
  blocked: boolean;
  /** Why, as its `blocked` audit event says (see blockedReasonText). */
  blockedReason?: string;
}

/**
 * Every message of a batch card, drawn from its members' rows (the truth every instance shares,
 * as for a single card), one per part in `parts` (see batchParts), and every part says how many
 * calls of the whole batch the run still waits for.
 */
export function renderBatchCard(agent: Agent, parts: ReadonlyArray<readonly BatchMemberRow[]>, at?: Date): RenderedCard[] {
  const now = at ?? new Date();
  const members = parts.flat();
  const states = members.map((m) => ({ row: m.action, state: approvalState(m.action, m.blocked, now, m.blockedReason) }));
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
    .filter((s) => s.state.kind === 'pending' && s.row.expires_at)
    .map((s) => new Date(s.row.expires_at!).getTime());
  const tools = escapeMrkdwn(truncate(members.map((m) => m.action.tool_name).join(', '), 200));
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
          const view = views.get(s.row.id)!;
          return {
            actionId: s.row.id,
            toolName: s.row.tool_name,
            args: s.row.args,
            fingerprint: s.row.fingerprint ?? '',
            quorum: s.row.quorum,
            approvals: s.row.approvals.map((a) => a.userId),
            state: s.state,
            described: describedCall(s.row.tool_name, s.row.args, view.description),
            ...editFacts(view, s.row, editShown(view.description.inputSchema, s.row.args)),
            ...boundOfRow(view),
          };
        }),
      }),
    };
  });
}
