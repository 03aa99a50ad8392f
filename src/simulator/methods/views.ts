/** views.open, views.push and views.update (modals, each trigger_id once) and views.publish (a Home tab per person). */
import { SlackApiError } from '../api-error.js';
import { checkedView } from '../block-limits.js';
import { clone } from '../json.js';
import type { SlackArgs } from '../types.js';
import { viewObject } from '../view-object.js';
import type { Handler } from '../web-api-endpoint.js';
import { optString, reqString } from '../wire-args.js';
import type { MethodContext } from './method-context.js';

const TRIGGER_ID = /^\d+\.\d+\.[0-9a-f]+$/;

export function viewMethods(ctx: MethodContext): Record<string, Handler> {
  const { store, checkBlocks } = ctx;

  /** A trigger_id works once, and not after it expired (setExpiredTriggerIds). */
  function consumeTrigger(args: SlackArgs): void {
    const trigger = reqString(args, 'trigger_id');
    if (!TRIGGER_ID.test(trigger)) throw new SlackApiError('invalid_trigger_id');
    if (store.expiredTriggers === 'all' || store.expiredTriggers.has(trigger)) throw new SlackApiError('expired_trigger_id');
    if (store.usedTriggers.has(trigger)) throw new SlackApiError('exchanged_trigger_id');
    store.usedTriggers.add(trigger);
  }

  return {
    'views.open': (args) => {
      const view = checkedView(args, 'modal', { checkBlocks });
      consumeTrigger(args);
      const stored = viewObject(view, store.newViewId(), undefined, null);
      store.views.set(stored.id, stored);
      return { ok: true, view: clone(stored) };
    },

    'views.push': (args) => {
      const view = checkedView(args, 'modal', { checkBlocks });
      consumeTrigger(args);
      const current = [...store.views.values()].filter((v) => v.type === 'modal').at(-1);
      const stored = viewObject(view, store.newViewId(), undefined, current?.id ?? null);
      if (current) stored.root_view_id = current.root_view_id;
      store.views.set(stored.id, stored);
      return { ok: true, view: clone(stored) };
    },

    'views.update': (args) => {
      const view = checkedView(args, 'modal', { checkBlocks });
      const viewId = optString(args, 'view_id');
      const externalId = optString(args, 'external_id');
      if (viewId === undefined && externalId === undefined) {
        throw new SlackApiError('invalid_arguments', { response_metadata: { messages: ['[ERROR] missing required field: view_id or external_id'] } });
      }
      const existing = viewId !== undefined ? store.views.get(viewId) : [...store.views.values()].find((v) => v.external_id === externalId);
      if (!existing) throw new SlackApiError('not_found');
      const hash = optString(args, 'hash');
      if (hash !== undefined && hash !== existing.hash) throw new SlackApiError('hash_conflict');
      const stored = viewObject(view, existing.id, existing, existing.previous_view_id);
      store.views.set(stored.id, stored);
      return { ok: true, view: clone(stored) };
    },

    'views.publish': (args) => {
      const user = reqString(args, 'user_id');
      if (!/^[UW][A-Z0-9]{2,}$/.test(user)) throw new SlackApiError('invalid_user');
      const view = checkedView(args, 'home', { checkBlocks });
      const existing = store.homeView(user);
      const hash = optString(args, 'hash');
      if (hash !== undefined && existing !== undefined && hash !== existing.hash) throw new SlackApiError('hash_conflict');
      const stored = viewObject(view, existing?.id ?? store.newViewId(), existing, null);
      store.views.set(stored.id, stored);
      store.homeViews.set(user, stored.id);
      return { ok: true, view: clone(stored) };
    },
  };
}
