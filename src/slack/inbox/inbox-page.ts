import type { BlockAction, ButtonAction, RespondFn } from '@slack/bolt';
import { parseInboxPage } from './inbox-blocks.js';
import { personOf, type SlackContext } from '../context.js';
import { setHomePage } from './home-viewers.js';
import { approvalsList } from './approvals-command.js';

/**
 * "Next page" or "First page" in the inbox: on the Home tab the page is kept for the person (every
 * instance draws it from then on, until they open the Home again) and the Home republished; in
 * an /approvals answer the answer is replaced by that page. The button only names where the page
 * starts; what is on it is read for the clicker as any inbox is.
 */
export async function showInboxPage(ctx: SlackContext, body: BlockAction<ButtonAction>, action: ButtonAction, respond: RespondFn): Promise<void> {
  const user = body.user?.id;
  const page = parseInboxPage(action.value);
  if (!user || !page) return void ctx.logger.warn({ user, value: action.value }, 'inbox page click that names no page');
  if ((body.container as { type?: unknown }).type === 'view') {
    await setHomePage(ctx.slackDb, user, page.after);
    await ctx.home?.republish(user);
    return;
  }
  const answer = await approvalsList(ctx, personOf(body), page.after);
  await respond({ replace_original: true, response_type: 'ephemeral', text: answer.text, ...(answer.blocks ? { blocks: answer.blocks } : {}) });
}
