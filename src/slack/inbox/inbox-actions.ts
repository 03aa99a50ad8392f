import type { BlockAction, ButtonAction } from '@slack/bolt';
import { ACTION_IDS } from '../kit/action-ids.js';
import { tellClicker } from '../card/clicked-card.js';
import { inboxClick } from './inbox-click.js';
import { showInboxPage } from './show-home.js';
import { listClickOf, showInboxList } from './inbox-list.js';
import { redrawCommandAnswer } from './approvals-command.js';
import type { Click, SlackContext } from '../context.js';
import type { InteractionRoutes } from '../kit/interaction-routes.js';
import { recordThenAck } from '../ack.js';

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
        if (recorded.kind === 'decided' && click && click.answerAt !== 'home') await redrawCommandAnswer(ctx, click, respond);
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
