import type { RespondFn } from '@slack/bolt';
import type { KnownBlock } from '@slack/types';
import { isActionId } from '../../db/is-action-id.js';
import { inboxBlocks, MESSAGE_FIT, requestBlocks } from './inbox-blocks.js';
import { inboxItems, loadInbox } from './load-inbox.js';
import { findRequest, actorOf, type Person, type SlackContext } from '../context.js';
import { outsideWorkspaceMessage } from '../../approvals/workspace.js';
import { unreachable } from '../../unreachable.js';
import { failureText } from '../kit/error-reference.js';

export const APPROVALS_USAGE =
  'Usage: `/approvals` lists the requests waiting for you, yours and your recent decisions; `/approvals <id>` shows one request (for example `/approvals 42`).';

/** What `/approvals [text]` asks for. */
type ApprovalsCommand = { kind: 'list' } | { kind: 'one'; actionId: number } | { kind: 'help' } | { kind: 'bad'; text: string };

export function parseApprovalsCommand(text: string | undefined): ApprovalsCommand {
  const t = (text ?? '').trim();
  if (t === '') return { kind: 'list' };
  if (/^(help|\?)$/i.test(t)) return { kind: 'help' };
  const m = /^#?(\d{1,10})$/.exec(t);
  const id = Number(m?.[1]);
  if (m && isActionId(id)) return { kind: 'one', actionId: id };
  return { kind: 'bad', text: t };
}

interface CommandAnswer {
  text: string;
  blocks?: KnownBlock[];
}

/** Answers `/approvals` (acknowledged already) through its response_url: JSON, so blocks go as they are. */
export function showApprovalsAnswer(ctx: SlackContext, who: Person, text: string | undefined, respond: RespondFn): void {
  const log = ctx.logger.child({ user: who.user, command: '/approvals' });
  ctx.tasks.run(
    '/approvals',
    async () => {
      const answer = await answerApprovalsCommand(ctx, who, text);
      await respond({ response_type: 'ephemeral', text: answer.text, ...(answer.blocks ? { blocks: answer.blocks } : {}) });
      log.info('/approvals answered');
    },
    async (ref) => void (await respond({ response_type: 'ephemeral', text: failureText(ref) })),
  );
}

/**
 * The answer to `/approvals` for `user`, shown to them alone: their inbox, one request (only to
 * someone who may see it, Agent.maySee), or the usage.
 */
async function answerApprovalsCommand(ctx: SlackContext, who: Person, text: string | undefined): Promise<CommandAnswer> {
  const command = parseApprovalsCommand(text);
  // Someone outside the workspace sees no request, no count and not whether an id exists.
  if (command.kind !== 'help' && ctx.agent.isOutsider(actorOf(who))) {
    ctx.logger.info({ user: who.user, teamId: who.teamId }, '/approvals refused: not a member of this workspace');
    return { text: outsideWorkspaceMessage };
  }
  switch (command.kind) {
    case 'help':
      return { text: APPROVALS_USAGE };
    case 'bad':
      return { text: `I did not understand that. ${APPROVALS_USAGE}` };
    case 'list':
      return approvalsList(ctx, who);
    case 'one':
      return showOne(ctx, who, command.actionId);
    default:
      return unreachable(command, 'approvals command');
  }
}

/** The /approvals list: the person's inbox with the page of waiting requests after request `after` (undefined: the oldest). */
export async function approvalsList(ctx: SlackContext, who: Person, after?: number): Promise<CommandAnswer> {
  const inbox = await loadInbox(ctx, who, MESSAGE_FIT, after);
  return { text: `${inbox.waitingTotal} ${inbox.waitingTotal === 1 ? 'request is' : 'requests are'} waiting for you.`, blocks: inboxBlocks(inbox, MESSAGE_FIT) };
}

async function showOne(ctx: SlackContext, who: Person, actionId: number): Promise<CommandAnswer> {
  const user = who.user;
  const request = await findRequest(ctx, actionId);
  // An id that names nothing, another agent's request, something other than an approval and a
  // request this person may not see all get the same answer: none tells that the id exists.
  if (!request || request.kind !== 'approval' || !(await ctx.agent.maySee(request, actorOf(who)))) {
    ctx.logger.info({ actionId, user, exists: request !== undefined }, '/approvals <id>: nothing this person may see');
    return { text: `There is no approval request #${actionId} that you may see. ${APPROVALS_USAGE}` };
  }
  const canDecide = request.status === 'pending' && (await ctx.agent.mayDecide(request, actorOf(who), 'approve')).allowed;
  const item = (await inboxItems(ctx, [request])).get(request.id)!;
  return { text: `Request #${actionId}: ${item.call.title} (${request.status === 'resumed' ? 'answered' : request.status})`, blocks: requestBlocks(item, canDecide) };
}

/**
 * Replaces the /approvals answer a decision was made from with the person's list as it is now,
 * through the click's response_url; a failure leaves the old answer (the card is the record).
 */
export async function showCommandAnswer(
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
