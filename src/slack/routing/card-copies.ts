import { approversAt } from '../../approvals/approvers-at.js';
import type { Route } from '../../approvals/policy-types.js';
import type { Request } from '../../agent/request.js';
import { isUserGroupId, isUserId, whoDecides } from '../kit/mention.js';
import { truncate } from '../kit/limits.js';
import { escapeMrkdwn } from '../kit/mrkdwn/escape-mrkdwn.js';
import type { SlackContext, ThreadTarget } from '../context.js';
import { privateWithoutApprovers } from '../card/show-card.js';
import { addCardCopies, type CardCopy, type CardRow, cardMetadata } from '../card/cards.js';
import { type RenderedCard, renderCard } from '../card/render-card.js';
import { blocksAsJson } from '../transport/slack-web-client.js';

/**
 * Copies of a new approval card for the approvers, where the policy routes them (`dm`, or
 * `{ channel }`), and the thread told where they went. Copies are the same request: their
 * buttons carry the same action id and fingerprint, and every redraw updates them with the card.
 *
 * Fallback: in a DM with the bot only the requester sees the card, so when they may not approve
 * it themselves (no self-approval, or not an approver) it goes to the approvers' DMs instead of
 * waiting unseen until it expires. A DM is recognised by its id (Slack's `D…`, the `im` channel
 * type of the event that started the run), so no extra API call is made for it. A private channel
 * whose members include nobody else who may approve is the same case; telling one apart costs a
 * conversations.info (and, when private, a conversations.members), made only when the requester
 * may not approve and the policy names approvers; a public channel's answer is remembered for a
 * few minutes (an app_mention does not say whether its channel is private).
 */
export async function routeCard(ctx: SlackContext, action: Request, target: ThreadTarget, rendered: Pick<RenderedCard, 'blocks' | 'text'>): Promise<void> {
  const requirement = ctx.agent.requirementOf(action);
  const approvers = approversAt(requirement, action.createdAt, new Date());
  let route: Route = requirement.reach.route;
  let fallback = false;
  if (route === 'thread') {
    const dm = isDm(target.channel);
    // Outside a DM an empty list ("anyone but the requester") leaves nobody to send it to.
    if (!dm && approvers.length === 0) return;
    if (await requesterMayApprove(ctx, action)) return;
    if (dm && approvers.length === 0) return showNobodyElseSees(ctx, action, target);
    if (!dm && !(await privateWithoutApprovers(ctx, action, target.channel))) return;
    route = 'dm';
    fallback = true;
  }
  const log = ctx.logger.child({ actionId: action.id, route: typeof route === 'string' ? route : route.channel, fallback });
  const blocks = blocksAsJson(rendered.blocks);
  const copies: CardCopy[] = [];
  let where: string;
  if (typeof route === 'object') {
    const copy = await postCopy(ctx, action.id, route.channel, rendered.text, blocks);
    if (!copy) return;
    await addCardCopies(ctx.slackDb, action.id, [copy]);
    copies.push(copy);
    const link = await permalink(ctx, copy);
    where = `in <#${route.channel}>${link ? ` (<${link}|open the request>)` : ''}`;
  } else {
    const people = await dmRecipients(ctx, approvers, action, requirement.reach.dmLimit, requirement.allowSelfApproval);
    copies.push(...(await sendDmCopies(ctx, action.id, people, rendered)));
    where = 'by DM';
  }
  if (copies.length === 0) {
    log.warn('no copy of the card could be routed to the approvers');
    return;
  }
  const others = approvers.filter((id) => requirement.allowSelfApproval || id !== action.requester);
  const who = whoDecides(others, requirement.reach.notify, { maxChars: 1000 });
  const text = fallback
    ? `:outbox_tray: Nobody in this conversation can approve this, so I sent it to ${who} ${where}. I will post the outcome here.`
    : `:outbox_tray: Waiting for ${who} ${where}.`;
  try {
    await ctx.client.chat.postMessage({ channel: target.channel, ...(target.threadTs ? { thread_ts: target.threadTs } : {}), text });
  } catch (error) {
    log.warn({ err: error }, 'could not say in the thread where the request went');
  }
  log.info({ copies: copies.length }, 'card routed to the approvers');
}

/**
 * A copy of the card in each person's DM with the bot, each recorded as soon as it is posted (a
 * click on a copy is checked against the card's copies). Returns the copies posted.
 */
export async function sendDmCopies(ctx: SlackContext, actionId: number, people: readonly string[], rendered: Pick<RenderedCard, 'blocks' | 'text'>): Promise<CardCopy[]> {
  const blocks = blocksAsJson(rendered.blocks);
  const copies: CardCopy[] = [];
  for (const user of people) {
    try {
      const opened = await ctx.client.conversations.open({ users: user });
      const channel = opened.channel?.id;
      const copy = channel ? await postCopy(ctx, actionId, channel, rendered.text, blocks) : undefined;
      if (copy) {
        await addCardCopies(ctx.slackDb, actionId, [{ ...copy, user }]);
        copies.push({ ...copy, user });
      }
    } catch (error) {
      ctx.logger.warn({ err: error, actionId, user }, 'could not send an approver a copy by DM');
    }
  }
  return copies;
}

/**
 * "Anyone but you may approve" in a DM names nobody to send it to: the requester at least learns
 * that the card waits unseen, and what would change that.
 */
async function showNobodyElseSees(ctx: SlackContext, action: Request, target: ThreadTarget): Promise<void> {
  const text =
    `:warning: Only you can see this card here, and you may not approve \`${escapeMrkdwn(truncate(action.toolName, 100))}\` yourself. ` +
    'Ask for it in a channel where others can approve it, or give this tool `approvers` or a `route` in the approval policy.';
  try {
    await ctx.client.chat.postMessage({ channel: target.channel, ...(target.threadTs ? { thread_ts: target.threadTs } : {}), text });
  } catch (error) {
    ctx.logger.warn({ err: error, actionId: action.id }, 'could not tell the requester that nobody else sees the card');
  }
}

/** Slack's DM channel ids start with D. */
function isDm(channel: string): boolean {
  return channel.startsWith('D');
}

async function requesterMayApprove(ctx: SlackContext, action: Request): Promise<boolean> {
  if (!action.requester) return false;
  const verdict = await ctx.agent.mayDecide(action, { userId: action.requester }, 'approve');
  return verdict.allowed;
}

/** A copy carries the card's metadata, marked as a copy: a click on one whose location could not be stored is still recognised (see clickedCard). */
async function postCopy(ctx: SlackContext, actionId: number, channel: string, text: string, blocks: ReturnType<typeof blocksAsJson>): Promise<CardCopy | undefined> {
  try {
    const posted = await ctx.client.chat.postMessage({ channel, text, blocks, metadata: cardMetadata({ actionIds: [actionId], copy: true }) });
    return posted.ts ? { channel, ts: posted.ts } : undefined;
  } catch (error) {
    ctx.logger.warn({ err: error, channel }, 'a copy of the card could not be posted');
    return undefined;
  }
}

async function permalink(ctx: SlackContext, copy: CardCopy): Promise<string | undefined> {
  try {
    return (await ctx.client.chat.getPermalink({ channel: copy.channel, message_ts: copy.ts })).permalink;
  } catch {
    return undefined;
  }
}

/**
 * The people who get a DM copy: listed users, then members of listed groups, each once, up to
 * `dmLimit`; never the bot, nor the requester when they may not approve their own request.
 */
export async function dmRecipients(
  ctx: SlackContext,
  approvers: readonly string[],
  action: Request,
  limit: number,
  allowSelfApproval: boolean,
): Promise<string[]> {
  const skip = new Set<string>([...(ctx.botUserId ? [ctx.botUserId] : []), ...(!allowSelfApproval && action.requester ? [action.requester] : [])]);
  const people = new Set<string>();
  const add = (id: string) => {
    if (people.size < limit && isUserId(id) && !skip.has(id)) people.add(id);
  };
  approvers.filter(isUserId).forEach(add);
  // The same cached lookup that decides whether a member may approve, so the DMs go to exactly those people.
  const resolve = ctx.agent.groupResolver;
  for (const group of approvers.filter(isUserGroupId)) {
    if (people.size >= limit || !resolve) break;
    try {
      (await resolve(group)).forEach(add);
    } catch (error) {
      ctx.logger.warn({ err: error, group }, 'could not list a user group for DM copies');
    }
  }
  return [...people];
}

/**
 * An edited request still waiting may need other approvers than the one it replaced (a bigger
 * amount for finance). Where the card reaches approvers by DM (the policy's `route: dm`, or the
 * DM fallback the first card took), those the edit newly requires get a copy of their own; the
 * ones already holding a copy see it redrawn with the card.
 */
export async function routeEditedCard(ctx: SlackContext, action: Request, card: CardRow | undefined): Promise<void> {
  if (!card || action.status !== 'pending') return;
  const requirement = ctx.agent.requirementOf(action);
  const byDm = requirement.reach.route === 'dm' || (card.copies ?? []).some((c) => c.user !== undefined);
  if (!byDm) return;
  const approvers = approversAt(requirement, action.createdAt, new Date());
  const holding = new Set((card.copies ?? []).flatMap((c) => (c.user ? [c.user] : [])));
  const voted = new Set(action.approvals.map((a) => a.userId));
  const people = (await dmRecipients(ctx, approvers, action, requirement.reach.dmLimit, requirement.allowSelfApproval)).filter((p) => !holding.has(p) && !voted.has(p));
  if (people.length === 0) return;
  await sendDmCopies(ctx, action.id, people, renderCard(ctx.agent, action, { blocked: false }));
}
