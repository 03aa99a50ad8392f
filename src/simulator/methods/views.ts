/**
 * views.open, views.push and views.update (modals, each trigger_id once) and views.publish (a
 * Home tab per person). A modal opens on the screen of the person whose click produced the
 * trigger_id, as on Slack (store.ts keeps each screen's stack).
 */
import { SlackApiError, invalidArguments } from '../api-error.js';
import { checkedView, type ViewSurface } from '../block-limits.js';
import { clone, type Obj } from '../json.js';
import type { SlackArgs, StoredView } from '../types.js';
import type { Handler } from '../web-api-endpoint.js';
import { optString, reqString } from '../wire-args.js';
import type { MethodContext } from './method-context.js';

/** Slack's trigger lifetime; a store may allow more (the sandbox's does) and then says so. */
const SLACK_TRIGGER_MS = 3_000;

export function viewMethods(ctx: MethodContext): Record<string, Handler> {
  const { store, workspace } = ctx;
  const parse = (args: SlackArgs, surface: ViewSurface) => checkedView(args, surface, { checkBlocks: ctx.checkBlocks, fillBlockIds: ctx.fillBlockIds ?? false });

  /** Whose screen the modal goes on: the person the trigger_id was issued to (undefined: nobody the store knows). */
  function triggerUser(args: SlackArgs, method: string): string | undefined {
    const check = store.useTrigger(reqString(args, 'trigger_id'));
    if (!check.ok) throw new SlackApiError(check.error);
    if (check.ageMs > SLACK_TRIGGER_MS) ctx.warn?.(`${method} used a trigger_id ${check.ageMs} ms after the click; Slack refuses them after 3 s (expired_trigger_id).`);
    return check.user;
  }

  function uniqueExternalId(view: Obj): void {
    const externalId = typeof view.external_id === 'string' ? view.external_id : '';
    if (externalId !== '' && store.findView((v) => v.external_id === externalId)) throw new SlackApiError('duplicate_external_id');
  }

  const answer = (view: StoredView) => ({ ok: true, view: clone(view) });

  return {
    'views.open': (args) => {
      const view = parse(args, 'modal');
      uniqueExternalId(view);
      return answer(store.openView(triggerUser(args, 'views.open'), view));
    },

    'views.push': (args) => {
      const view = parse(args, 'modal');
      uniqueExternalId(view);
      return answer(store.pushView(triggerUser(args, 'views.push'), view));
    },

    'views.update': (args) => {
      const view = parse(args, 'modal');
      const viewId = optString(args, 'view_id');
      const externalId = optString(args, 'external_id');
      if (viewId === undefined && externalId === undefined) throw invalidArguments('missing required field: view_id or external_id');
      const found = store.findView((v) => (viewId !== undefined ? v.id === viewId : v.external_id === externalId));
      if (!found) throw new SlackApiError('not_found');
      const hash = optString(args, 'hash');
      if (hash !== undefined && hash !== found.view.hash) throw new SlackApiError('hash_conflict');
      return answer(store.updateView(found.screen, found.view, view));
    },

    'views.publish': (args) => {
      const user = reqString(args, 'user_id');
      if (!/^[UW][A-Z0-9]{2,}$/.test(user) || !workspace.user(user)) throw new SlackApiError('invalid_user');
      const view = parse(args, 'home');
      const hash = optString(args, 'hash');
      const existing = store.homeView(user);
      if (hash !== undefined && existing !== undefined && hash !== existing.hash) throw new SlackApiError('hash_conflict');
      return answer(store.publishHome(user, view));
    },
  };
}
