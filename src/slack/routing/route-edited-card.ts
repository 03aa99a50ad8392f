import { approversAt } from '../../approvals/approvers-at.js';
import type { PendingAction } from '../../db/rows.js';
import type { SlackContext } from '../context.js';
import type { CardRow } from '../card/cards.js';
import { renderCard } from '../card/render-card.js';
import { dmRecipients, sendDmCopies } from './route-card.js';

/**
 * An edited request still waiting may need other approvers than the one it replaced (a bigger
 * amount for finance). Where the card reaches approvers by DM (the policy's `route: dm`, or the
 * DM fallback the first card took), those the edit newly requires get a copy of their own; the
 * ones already holding a copy see it redrawn with the card.
 */
export async function routeEditedCard(ctx: SlackContext, action: PendingAction, card: CardRow | undefined): Promise<void> {
  if (!card || action.status !== 'pending') return;
  const requirement = ctx.agent.requirementOf(action);
  const byDm = requirement.reach.route === 'dm' || (card.copies ?? []).some((c) => c.user !== undefined);
  if (!byDm) return;
  const approvers = approversAt(requirement, new Date(action.created_at), new Date());
  const holding = new Set((card.copies ?? []).flatMap((c) => (c.user ? [c.user] : [])));
  const voted = new Set(action.approvals.map((a) => a.userId));
  const people = (await dmRecipients(ctx, approvers, action, requirement.reach.dmLimit, requirement.allowSelfApproval)).filter((p) => !holding.has(p) && !voted.has(p));
  if (people.length === 0) return;
  await sendDmCopies(ctx, action.id, people, renderCard(ctx.agent, action, { blocked: false }));
}
