import type { BlockAction, ButtonAction } from '@slack/bolt';
import { ACTION_IDS } from '../kit/action-ids.js';
import { tellClicker, placesStored } from '../card/button-check.js';
import { showInboxPage, listClickOf, showInboxList } from './show-home.js';
import { showCommandAnswer } from './approvals-command.js';
import { findRequest, type Click, type SlackContext, teamOfClicker } from '../context.js';
import type { InteractionRoutes } from '../kit/interaction-routes.js';
import { recordThenAck } from '../ack.js';
import { parseButtonValue } from '../kit/button-value.js';
import { findCard } from '../card/cards.js';
import { tellUser } from '../kit/tell-user.js';
import { UNSEEN_REQUEST } from '../card/unseen-request.js';
import { findThread } from '../card/threads.js';

/**
 * Approve and Decline in the inbox work exactly like the card's (approval-actions.ts): the
 * click is routed to its request's card first (inboxClick), then Approve is recorded before
 * the ack and Decline asks for a reason in a modal. The page buttons show the next page of
 * what waits, or the first; "Show all" opens a list in full, in a modal it pages through.
 */
/**
 * What the card's own Approve and Decline do (approval/approval-click.ts), passed in by the app:
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
    // Whether the id names a request at all is not for this reply to say (see unseen-request.ts).
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
