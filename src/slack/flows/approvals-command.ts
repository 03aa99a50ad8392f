import type { KnownBlock } from '@slack/types';
import { isActionId } from '../../db/is-action-id.js';
import type { PendingAction } from '../../db/rows.js';
import { inboxBlocks, MESSAGE_FIT, requestBlocks } from '../blocks/inbox-blocks.js';
import { threadLink } from '../blocks/thread-link.js';
import { loadInbox } from '../home/load-inbox.js';
import { actorOf, type Person, type SlackContext } from '../slack-context.js';
import { outsideWorkspaceMessage } from '../../approvals/workspace.js';
import { findCard } from '../store/cards.js';
import { unreachable } from '../../unreachable.js';

export const APPROVALS_USAGE =
  'Usage: `/approvals` lists the requests waiting for you, yours and your recent decisions; `/approvals <id>` shows one request (for example `/approvals 42`).';

/** What `/approvals [text]` asks for. */
export type ApprovalsCommand = { kind: 'list' } | { kind: 'one'; actionId: number } | { kind: 'help' } | { kind: 'bad'; text: string };

export function parseApprovalsCommand(text: string | undefined): ApprovalsCommand {
  const t = (text ?? '').trim();
  if (t === '') return { kind: 'list' };
  if (/^(help|\?)$/i.test(t)) return { kind: 'help' };
  const m = /^#?(\d{1,10})$/.exec(t);
  const id = Number(m?.[1]);
  if (m && isActionId(id)) return { kind: 'one', actionId: id };
  return { kind: 'bad', text: t };
}

export interface CommandAnswer {
  text: string;
  blocks?: KnownBlock[];
}

/**
 * The answer to `/approvals` for `user`, shown to them alone: their inbox, one request (only to
 * its requester, someone who decided or voted on it, or someone who may decide it), or the usage.
 */
export async function answerApprovalsCommand(ctx: SlackContext, who: Person, text: string | undefined): Promise<CommandAnswer> {
  const command = parseApprovalsCommand(text);
  // Someone outside the workspace sees no request, no count and not whether an id exists.
  if (command.kind !== 'help' && ctx.agent.isOutsider(actorOf(who))) {
    ctx.logger.info({ user: who.user, teamId: who.teamId }, '/approvals refused: not a member of this workspace');
    return { text: outsideWorkspaceMessage };
  }
  const user = who.user;
  switch (command.kind) {
    case 'help':
      return { text: APPROVALS_USAGE };
    case 'bad':
      return { text: `I did not understand that. ${APPROVALS_USAGE}` };
    case 'list': {
      const inbox = await loadInbox(ctx, who, MESSAGE_FIT);
      return { text: `${inbox.waitingTotal} ${inbox.waitingTotal === 1 ? 'request is' : 'requests are'} waiting for you.`, blocks: inboxBlocks(inbox, MESSAGE_FIT) };
    }
    case 'one':
      return showOne(ctx, who, command.actionId);
    default:
      return unreachable(command, 'approvals command');
  }
}

async function showOne(ctx: SlackContext, who: Person, actionId: number): Promise<CommandAnswer> {
  const user = who.user;
  const row = await ctx.agent.findRequest(actionId);
  // A request of another agent sharing the database, or not an approval, is not this inbox's to show.
  if (!row || row.kind !== 'approval' || (Array.isArray(row.path) && row.path[0] !== ctx.agent.id)) {
    return { text: `There is no approval request #${actionId}. ${APPROVALS_USAGE}` };
  }
  const canDecide = row.status === 'pending' && (await ctx.agent.mayDecide(row, actorOf(who), 'approve')).allowed;
  if (!canDecide && !involved(row, user)) {
    ctx.logger.info({ actionId, user }, '/approvals refused: not the requester or an approver');
    return { text: `You can only see request #${actionId} if you asked for it or may decide it.` };
  }
  const card = await findCard(ctx.slackDb, actionId);
  const link = card ? threadLink(ctx.teamUrl, card) : undefined;
  return { text: `Request #${actionId}: ${row.tool_name} (${row.status === 'resumed' ? 'answered' : row.status})`, blocks: requestBlocks({ action: row, ...(link ? { link } : {}) }, canDecide) };
}

/**
 * Replaces the /approvals answer a decision was made from with the person's list as it is now,
 * through the click's response_url; a failure leaves the old answer (the card is the record).
 */
export async function redrawCommandAnswer(
  ctx: SlackContext,
  who: Person,
  respond: (message: { replace_original: true; response_type: 'ephemeral'; text: string; blocks?: KnownBlock[] }) => Promise<unknown>,
): Promise<void> {
  try {
    const answer = await answerApprovalsCommand(ctx, who, '');
    await respond({ replace_original: true, response_type: 'ephemeral', text: answer.text, ...(answer.blocks ? { blocks: answer.blocks } : {}) });
  } catch (error) {
    ctx.logger.warn({ err: error, user: who.user }, '/approvals answer could not be redrawn');
  }
}

function involved(row: PendingAction, user: string): boolean {
  if (row.requester === user || row.decided_by === user) return true;
  return Array.isArray(row.approvals) && row.approvals.some((v) => (v as { userId?: unknown } | null)?.userId === user);
}
