import { isActionId } from '../../db/is-action-id.js';
import { escapeMrkdwn } from '../kit/mrkdwn/escape-mrkdwn.js';
import { truncate } from '../kit/limits.js';
import { findRequest, actorOf, type Person, type SlackContext } from '../context.js';
import type { BlockActionsBody } from '../kit/submitted-payloads.js';
import { affectedUsers } from '../card/inbox-refresh.js';
import { unreachable } from '../../unreachable.js';

/** What Revoke asks of the inbox: passed in (app.ts), as remembered/ imports no other feature. */
export interface RememberedDeps {
  /** The list modal a Revoke was clicked in, drawn again as the list is now. */
  redrawList(ctx: SlackContext, body: BlockActionsBody, listValue: string | undefined): Promise<void>;
}

/**
 * Revoke on a remembered approval in the Home tab: authorised by the Agent (creator, requester,
 * or anyone who may approve that tool now), recorded, and the Home of everyone who saw it in
 * their list republished; the clicker's at once, with what happened on top.
 */
export async function revokeRemembered(ctx: SlackContext, deps: RememberedDeps, who: Person, value: string | undefined): Promise<void> {
  const user = who.user;
  const id = parseRevokeValue(value);
  const tell = (text: string) => (ctx.home ? ctx.home.notice(user, text) : Promise.resolve());
  if (id === undefined) {
    ctx.logger.warn({ user, value }, 'revoke refused: the button names no remembered approval');
    return tell('That button does not name a remembered approval. Nothing was changed.');
  }
  const result = await ctx.agent.revokeRememberedGrant(id, actorOf(who));
  switch (result.outcome) {
    case 'revoked': {
      const grant = result.grant;
      ctx.logger.info({ user, rememberedGrantId: id }, 'remembered approval revoked from the Home tab');
      const users = new Set([grant.created_by, grant.requester]);
      let everyone = false;
      const source = await findRequest(ctx, grant.action_id).catch(() => undefined);
      if (source) {
        const affected = await affectedUsers(ctx, source).catch(() => ({ users: [], everyone: false }));
        for (const u of affected.users) users.add(u);
        everyone = affected.everyone;
      }
      users.delete(user);
      ctx.home?.refresh(users, everyone);
      return tell(`Revoked the remembered approval #${id} of *${escapeMrkdwn(truncate(grant.tool_name, 80))}*: its next call asks for approval again.`);
    }
    case 'already-ended':
      return tell(`The remembered approval #${id} was already revoked or has ended. Nothing was changed.`);
    // Someone who may not revoke it is told what an unknown id is told: nothing says it exists.
    case 'not-allowed':
    case 'not-found':
      ctx.logger.info({ user, rememberedGrantId: id, outcome: result.outcome }, 'revoke refused');
      return tell(`I could not find the remembered approval #${id}, or it is not one you may revoke. Nothing was changed.`);
    default:
      return unreachable(result, 'revoke outcome');
  }
}

/** The remembered grant a Revoke button names, or undefined for anything else. */
export function parseRevokeValue(value: string | undefined): number | undefined {
  const m = /^[1-9]\d{0,9}$/.exec(value ?? '');
  const id = Number(m?.[0]);
  return m && isActionId(id) ? id : undefined;
}
