/** The view object Slack keeps and returns for an opened, pushed, updated or published view. */
import { SLACK_IDS } from './ids.js';
import { clone, type Obj } from './json.js';
import { randomHex } from './random-ids.js';
import type { StoredView } from './types.js';
import { truthy } from './wire-args.js';

/** The app a view belongs to; the simulator's own by default, the sandbox passes its workspace's. */
export interface ViewOwner {
  teamId: string;
  appId: string;
  botId: string;
}

const SIMULATOR_OWNER: ViewOwner = { teamId: SLACK_IDS.teamId, appId: SLACK_IDS.appId, botId: SLACK_IDS.botId };

/**
 * `view` as the caller sent it (already checked), stored under `id`. An update keeps the root,
 * the external id and the state of the view it replaces; every version gets a new hash.
 */
export function viewObject(
  view: Obj,
  id: string,
  previous: Pick<StoredView, 'root_view_id' | 'external_id'> & { state?: unknown } | undefined,
  previousViewId: string | null,
  owner: ViewOwner = SIMULATOR_OWNER,
): StoredView {
  return {
    id,
    team_id: owner.teamId,
    type: String(view.type),
    blocks: clone(view.blocks as unknown[]),
    private_metadata: typeof view.private_metadata === 'string' ? view.private_metadata : '',
    callback_id: typeof view.callback_id === 'string' ? view.callback_id : '',
    state: (previous?.state as StoredView['state'] | undefined) ?? { values: {} },
    hash: `${Math.floor(Date.now() / 1000)}.${randomHex(4)}`,
    title: clone(view.title),
    clear_on_close: truthy(view.clear_on_close),
    notify_on_close: truthy(view.notify_on_close),
    close: view.close === undefined ? null : clone(view.close),
    submit: view.submit === undefined ? null : clone(view.submit),
    previous_view_id: previousViewId,
    root_view_id: previous?.root_view_id ?? id,
    app_id: owner.appId,
    external_id: typeof view.external_id === 'string' ? view.external_id : (previous?.external_id ?? ''),
    app_installed_team_id: owner.teamId,
    bot_id: owner.botId,
  };
}
