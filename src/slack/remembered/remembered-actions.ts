import type { BlockAction, ButtonAction } from '@slack/bolt';
import { ACTION_IDS } from '../kit/action-ids.js';
import type { BlockActionsBody } from '../kit/submitted-payloads.js';
import { personOf, type SlackContext, findRequest, actorOf, type Person } from '../context.js';
import type { InteractionRoutes } from '../kit/action-ids.js';
import { isActionId } from '../../db/is-action-id.js';
import { escapeMrkdwn, slackDate } from '../kit/mrkdwn/escape-mrkdwn.js';
import { truncate, context } from '../kit/limits.js';
import { affectedUsers } from '../card/lifecycle.js';
import { unreachable } from '../../unreachable.js';
import type { Decision, RememberedCall } from '../../agent/api-types.js';
import { requestOf } from '../../agent/request.js';
import type { KnownBlock } from '@slack/types';
import { mention } from '../kit/mention.js';
import type { ThreadTarget } from '../context.js';

/**
 * Revoke in the Home tab's remembered approvals, or in their list's modal: acked first, then
 * revoked (see revokeRemembered); a modal it was clicked in is drawn again, as the list is now.
 */
export function registerRememberedActions(routes: InteractionRoutes, ctx: SlackContext, deps: RememberedDeps): void {
  routes.action<BlockAction<ButtonAction>>(ACTION_IDS.revokeRemembered, async ({ ack, body, action }) => {
    await ack();
    const user = body.user?.id;
    if (!user) return void ctx.logger.warn('revoke click without a user');
    const parsed = body as unknown as BlockActionsBody;
    ctx.tasks.run(
      'revoke remembered',
      async () => {
        await revokeRemembered(ctx, deps, personOf(body), action.value);
        if (parsed.view?.type === 'modal') await deps.redrawList(ctx, parsed, parsed.view.private_metadata);
      },
      async (ref) => {
        await ctx.home?.notice(user, `Revoking failed (reference ${ref}); nothing may have changed. Try again in a moment.`);
      },
    );
  });
}

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
async function revokeRemembered(ctx: SlackContext, deps: RememberedDeps, who: Person, value: string | undefined): Promise<void> {
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

/**
 * A call that ran under a remembered approval is said in its thread, so people there see that
 * it ran without a card and who allowed it. A failure to post is logged: the audit log has it.
 */
export async function showRememberedUse(ctx: SlackContext, target: ThreadTarget, call: RememberedCall): Promise<void> {
  const data = { toolName: call.toolName, actionId: call.actionId, allowedBy: call.allowedBy, rememberedGrantId: call.rememberedGrantId, expiresAt: new Date(call.expiresAt) };
  try {
    await ctx.client.chat.postMessage({
      channel: target.channel,
      ...(target.threadTs ? { thread_ts: target.threadTs } : {}),
      text: rememberedUseText(data),
      blocks: rememberedUseBlocks(data),
    });
  } catch (error) {
    ctx.logger.warn({ err: error, actionId: call.actionId }, 'remembered use could not be told in the thread');
  }
}

/** An approval that was remembered is said in the thread where the run goes on, once. */
export async function showRememberedCreated(ctx: SlackContext, target: ThreadTarget, decision: Decision): Promise<void> {
  if (decision.outcome !== 'approved' || !decision.remembered) return;
  const action = requestOf(decision.action);
  if (!action.requester || !action.decidedBy) return;
  const text = rememberedCreatedText({
    toolName: action.toolName,
    allowedBy: action.decidedBy,
    requester: action.requester,
    rememberedGrantId: decision.remembered.id,
    expiresAt: decision.remembered.expiresAt,
  });
  try {
    await ctx.client.chat.postMessage({ channel: target.channel, ...(target.threadTs ? { thread_ts: target.threadTs } : {}), text, blocks: [context(text)] });
  } catch (error) {
    ctx.logger.warn({ err: error, actionId: action.id }, 'remembered approval could not be told in the thread');
  }
}

interface RememberedUseData {
  toolName: string;
  actionId: number;
  allowedBy: string;
  rememberedGrantId: number;
  expiresAt: Date;
}

/** The thread is told an approval was remembered: who allowed what, for whom, until when, and where to revoke it. */
export function rememberedCreatedText(d: { toolName: string; allowedBy: string; requester: string; rememberedGrantId: number; expiresAt: Date }): string {
  return (
    `:repeat: ${mention(d.allowedBy)} allowed identical *${escapeMrkdwn(truncate(d.toolName, 80))}* calls by ${mention(d.requester)} ` +
    `until ${slackDate(d.expiresAt)} without asking again (remembered approval #${d.rememberedGrantId}; revocable in the Home tab)`
  );
}

/** The thread is told a call ran without a card, and whose remembered approval let it. */
export function rememberedUseBlocks(d: RememberedUseData): KnownBlock[] {
  return [context(rememberedUseText(d))];
}

function rememberedUseText(d: RememberedUseData): string {
  return (
    `:repeat: *${escapeMrkdwn(truncate(d.toolName, 80))}* ran under a remembered approval by ${mention(d.allowedBy)} ` +
    `(request #${d.actionId}; allowed until ${slackDate(d.expiresAt)}, revocable in the Home tab)`
  );
}
