/**
 * views.open, views.push, views.update and views.publish (the Home tab, one per person). A modal opens on the screen of the person whose click
 * produced the trigger_id, as on Slack; that is how the sandbox knows whose modal it is.
 */
import { normalizeBlocks, stateValues, type Obj } from '../block-elements.js';
import { wireView } from '../interaction-payloads.js';
import { MAX_VIEW_STACK, viewContainer, type StoredView } from '../store.js';
import { APP_ID, BOT, TEAM, findUser } from '../workspace.js';
import { SlackApiError, checkedView, invalidArguments, optString, reqString, viewObject, type Args } from '../../simulator/index.js';
import type { ApiContext, ApiMethod } from './context.js';


export function parseView(args: Args): Obj {
  return checkedView(args, 'modal');
}

const OWNER = { teamId: TEAM.id, appId: APP_ID, botId: BOT.botId };

/** The simulator's view object; the sandbox keeps each person's choices apart, so state starts empty. */
export function buildView(view: Obj, id: string, previous: StoredView | undefined, previousViewId: string | null): StoredView {
  return { ...viewObject(view, id, previous, previousViewId, OWNER), blocks: normalizeBlocks(view.blocks as unknown[]), state: { values: {} } };
}

/** Whose screen the modal goes on: the person the trigger_id was issued to. */
function triggerUser(args: Args, ctx: ApiContext, method: string): string {
  const trigger = reqString(args, 'trigger_id', 'invalid_trigger_id');
  const check = ctx.store.useTrigger(trigger);
  if (!check.ok) throw new SlackApiError(check.error);
  if (check.ageMs > ctx.slackTriggerMs) {
    ctx.store.notice('warn', `${method} used a trigger_id ${check.ageMs} ms after the click; Slack refuses them after 3 s (expired_trigger_id).`);
  }
  return check.user;
}

function uniqueExternalId(ctx: ApiContext, view: Obj): void {
  const externalId = typeof view.external_id === 'string' ? view.external_id : '';
  if (externalId !== '' && ctx.store.findView((v) => v.external_id === externalId)) throw new SlackApiError('duplicate_external_id');
}

function answer(ctx: ApiContext, user: string, view: StoredView): Record<string, unknown> {
  return { ok: true, view: wireView(view, stateValues(view.blocks, ctx.store.chosen(user, viewContainer(view.id)))) };
}

export const viewMethods: Record<string, ApiMethod> = {
  'views.open': (args, ctx) => {
    const view = parseView(args);
    uniqueExternalId(ctx, view);
    const user = triggerUser(args, ctx, 'views.open');
    const stored = buildView(view, ctx.store.newViewId(), undefined, null);
    ctx.store.showView(user, stored, true);
    return answer(ctx, user, stored);
  },

  'views.push': (args, ctx) => {
    const view = parseView(args);
    uniqueExternalId(ctx, view);
    const user = triggerUser(args, ctx, 'views.push');
    const stack = ctx.store.views(user);
    if (stack.length >= MAX_VIEW_STACK) throw new SlackApiError('push_limit_reached');
    const top = stack.at(-1);
    const stored = buildView(view, ctx.store.newViewId(), top, top?.id ?? null);
    ctx.store.showView(user, stored, false);
    return answer(ctx, user, stored);
  },

  'views.publish': (args, ctx) => {
    const user = reqString(args, 'user_id');
    if (!findUser(user)) throw new SlackApiError('invalid_user');
    const view = checkedView(args, 'home');
    const existing = ctx.store.homeView(user);
    const hash = optString(args, 'hash');
    if (hash !== undefined && existing !== undefined && hash !== existing.hash) throw new SlackApiError('hash_conflict');
    const stored = buildView(view, existing?.id ?? ctx.store.newViewId(), existing, null);
    ctx.store.publishHome(user, stored);
    return answer(ctx, user, stored);
  },

  'views.update': (args, ctx) => {
    const view = parseView(args);
    const viewId = optString(args, 'view_id');
    const externalId = optString(args, 'external_id');
    if (viewId === undefined && externalId === undefined) throw invalidArguments('missing required field: view_id or external_id');
    const found = ctx.store.findView((v) => (viewId !== undefined ? v.id === viewId : v.external_id === externalId));
    if (!found) throw new SlackApiError('not_found');
    const hash = optString(args, 'hash');
    if (hash !== undefined && hash !== found.view.hash) throw new SlackApiError('hash_conflict');
    const stored = buildView(view, found.view.id, found.view, found.view.previous_view_id);
    ctx.store.replaceView(found.user, stored);
    return answer(ctx, found.user, stored);
  },
};
