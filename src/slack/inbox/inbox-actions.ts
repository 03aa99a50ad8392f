import type { BlockAction, ButtonAction, RespondFn } from '@slack/bolt';
import { ACTION_IDS, parseButtonValue } from '../kit/action-ids.js';
import { tellClicker, placesStored, UNSEEN_REQUEST } from '../card/button-check.js';
import { showInboxPage, listClickOf, showInboxList } from './home-refresher.js';
import { findRequest, type Click, type SlackContext, teamOfClicker, actorOf, type Person, tellUser } from '../context.js';
import type { InteractionRoutes } from '../kit/action-ids.js';
import { recordThenAck } from '../ack.js';
import { findCard, findThread } from '../card/cards.js';
import { failureText } from '../kit/error-reference.js';
import type { KnownBlock } from '@slack/types';
import { isActionId } from '../../db/is-action-id.js';
import { requestBlocks } from './inbox-blocks.js';
import { approvalsList, inboxItems, type CommandAnswer } from './load-inbox.js';
import { outsideWorkspaceMessage } from '../../approvals/workspace.js';
import { unreachable } from '../../unreachable.js';

/**
 * Approve and Decline in the inbox work exactly like the card's (approval-actions.ts): the
 * click is routed to its request's card first (inboxClick), then Approve is recorded before
 * the ack and Decline asks for a reason in a modal. The page buttons show the next page of
 * what waits, or the first; "Show all" opens a list in full, in a modal it pages through.
 */
/**
 * What the card's own Approve and Decline do (approval/approval-actions.ts, approval/approval-flow.ts), passed in by the app:
 * a click in the inbox decides exactly as one on the card.
 */
export interface CardDecisions<Recorded extends { kind: string }> {
  recordApproval(ctx: SlackContext, click: Click, action: ButtonAction, startAfter: Promise<void>): Promise<Recorded>;
  showApproval(ctx: SlackContext, recorded: Recorded): Promise<void>;
  openDecline(ctx: SlackContext, click: Click, action: ButtonAction): Promise<void>;
}

export function registerInboxActions<Recorded extends { kind: string }>(routes: InteractionRoutes, ctx: SlackContext, decisions: CardDecisions<Recorded>): void {
  const { recordApproval, showApproval, openDecline } = decisions;
  routes.action<BlockAction<ButtonAction>>(ACTION_IDS.inboxApprove, async ({ ack, body, action, respond }) => {
    let click: Click | undefined;
    await recordThenAck(ctx, ack, {
      name: 'inbox approve',
      record: async (startAfter) => {
        click = await inboxClick(ctx, body, action);
        return click ? recordApproval(ctx, click, action, startAfter) : undefined;
      },
      show: async (recorded) => {
        if (!recorded) return;
        await showApproval(ctx, recorded);
        // The /approvals answer clicked on is redrawn as the list is now (a Home is republished on its own).
        if (recorded.kind === 'decided' && click && click.answerAt !== 'home') await showCommandAnswer(ctx, click, respond);
      },
      onError: (ref) => tellClicker(ctx, click)(ref),
    });
  });
  for (const page of [ACTION_IDS.inboxNextPage, ACTION_IDS.inboxFirstPage]) {
    routes.action<BlockAction<ButtonAction>>(page, async ({ ack, body, action, respond }) => {
      await ack();
      ctx.tasks.run('inbox page', () => showInboxPage(ctx, body, action, respond));
    });
  }
  for (const list of [ACTION_IDS.inboxList, ACTION_IDS.inboxListNewer]) {
    routes.action<BlockAction<ButtonAction>>(list, async ({ ack, body, action }) => {
      await ack();
      ctx.tasks.run('inbox list', () => showInboxList(ctx, listClickOf(body, action.value)));
    });
  }
  routes.action<BlockAction<ButtonAction>>(ACTION_IDS.inboxDecline, async ({ ack, body, action }) => {
    await ack();
    let click: Click | undefined;
    ctx.tasks.run(
      'inbox decline',
      async () => {
        click = await inboxClick(ctx, body, action);
        if (click) await openDecline(ctx, click, action);
      },
      (ref) => tellClicker(ctx, click)(ref),
    );
  });
}

/**
 * A click on Approve or Decline in the inbox (Home tab, or the /approvals list), as if it were
 * made on the request's card: it is routed to the card's message, so the card's own checks
 * (the button is that request's, the fingerprint matches, the clicker may decide) and its
 * decision path apply unchanged, and the run goes on in the card's thread. What the clicker is
 * told goes back where they clicked, and names the request only to someone who may see it
 * (refusalSeenBy). Undefined (the clicker told what an unknown id is told) when there is no card
 * to route to.
 */
async function inboxClick(ctx: SlackContext, body: BlockAction<ButtonAction>, action: ButtonAction): Promise<Click | undefined> {
  const user = body.user?.id;
  if (!user) return undefined;
  const container = body.container as { type?: unknown; channel_id?: unknown };
  const channel = body.channel?.id ?? (typeof container.channel_id === 'string' ? container.channel_id : undefined);
  const answerAt: Click['answerAt'] = container.type === 'view' || !channel ? 'home' : { channel };
  const actionId = parseButtonValue(action.value)?.actionId;
  if (actionId !== undefined) await placesStored(ctx, [actionId]);
  const card = actionId !== undefined ? await findCard(ctx.slackDb, actionId) : undefined;
  const base = { user, ...(body.trigger_id ? { triggerId: body.trigger_id } : {}), teamId: teamOfClicker(body), answerAt };
  // A run nobody requested (an API run, a scheduled job) has no thread and so no card: it is decided here.
  if (!card && actionId !== undefined && (await unattendedOutsideSlack(ctx, actionId))) return { ...base, channel: channel ?? user };
  if (!card) {
    ctx.logger.warn({ user, value: action.value }, 'inbox click for a request without a card');
    // Whether the id names a request at all is not for this reply to say (see UNSEEN_REQUEST in ../card/button-check.ts).
    await tellUser(ctx, { user, channel: channel ?? user, answerAt }, UNSEEN_REQUEST);
    return undefined;
  }
  return { ...base, channel: card.channel, messageTs: card.ts, ...(card.thread_ts ? { threadTs: card.thread_ts } : {}) };
}

/** Whether the request is of a run nobody requested, with no thread in Slack. */
async function unattendedOutsideSlack(ctx: SlackContext, actionId: number): Promise<boolean> {
  const request = await findRequest(ctx, actionId);
  return request !== undefined && request.kind === 'approval' && !request.requester && (await findThread(ctx.slackDb, request.rootRunId)) === undefined;
}

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
async function showCommandAnswer(
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
