/**
 * Interactivity payloads as Slack posts them (`payload=<json>`): block_actions from messages,
 * ephemerals and modals, view_submission and view_closed. Only `user` is something Slack vouches
 * for; the rest (container, message, state) is what the bot uses to find its way back.
 */
import { wireMessage } from '../simulator/index.js';
import type { StateValues } from './block-elements.js';
import type { StoredEphemeral, StoredMessage, StoredView } from './store.js';
import { APP_ID, TEAM, findChannel, payloadUser } from './workspace.js';

type Obj = Record<string, unknown>;

const TOKEN = 'sandbox-verification-token';
const TEAM_OBJECT = { id: TEAM.id, domain: TEAM.domain };

export type ActionSource =
  | { kind: 'message'; message: StoredMessage }
  | { kind: 'ephemeral'; ephemeral: StoredEphemeral }
  | { kind: 'view'; view: StoredView };

function channelObject(channel: string): Obj {
  const known = findChannel(channel);
  return { id: channel, name: known?.type === 'im' ? 'directmessage' : (known?.name ?? channel.toLowerCase()) };
}

function wireView(view: StoredView, values: StateValues): StoredView {
  return { ...structuredClone(view), state: { values: structuredClone(values) } };
}

export function blockActionsPayload(o: {
  user: string;
  source: ActionSource;
  action: Obj;
  values: StateValues;
  triggerId: string;
  responseUrl?: string;
}): Obj {
  const base: Obj = { type: 'block_actions', user: payloadUser(o.user), api_app_id: APP_ID, token: TOKEN };
  if (o.source.kind === 'view') {
    const view = o.source.view;
    return {
      ...base,
      container: { type: 'view', view_id: view.id },
      trigger_id: o.triggerId,
      team: TEAM_OBJECT,
      enterprise: null,
      is_enterprise_install: false,
      view: wireView(view, o.values),
      actions: [o.action],
    };
  }
  const channel = o.source.kind === 'message' ? o.source.message.channel : o.source.ephemeral.channel;
  const ts = o.source.kind === 'message' ? o.source.message.ts : o.source.ephemeral.ts;
  const threadTs = o.source.kind === 'message' ? o.source.message.thread_ts : o.source.ephemeral.thread_ts;
  const container: Obj = { type: 'message', message_ts: ts, channel_id: channel, is_ephemeral: o.source.kind === 'ephemeral' };
  if (threadTs !== undefined) container.thread_ts = threadTs;
  const payload: Obj = {
    ...base,
    container,
    trigger_id: o.triggerId,
    team: TEAM_OBJECT,
    enterprise: null,
    is_enterprise_install: false,
    channel: channelObject(channel),
  };
  // Slack does not echo an ephemeral message back; only a real message comes with the payload.
  if (o.source.kind === 'message') payload.message = wireMessage(o.source.message);
  payload.state = { values: structuredClone(o.values) };
  if (o.responseUrl !== undefined) payload.response_url = o.responseUrl;
  payload.actions = [o.action];
  return payload;
}

export function viewSubmissionPayload(o: { user: string; view: StoredView; values: StateValues; triggerId: string }): Obj {
  return {
    type: 'view_submission',
    team: TEAM_OBJECT,
    user: payloadUser(o.user),
    api_app_id: APP_ID,
    token: TOKEN,
    trigger_id: o.triggerId,
    view: wireView(o.view, o.values),
    response_urls: [],
    is_enterprise_install: false,
    enterprise: null,
  };
}

export function viewClosedPayload(o: { user: string; view: StoredView; values: StateValues; isCleared: boolean }): Obj {
  return {
    type: 'view_closed',
    team: TEAM_OBJECT,
    user: payloadUser(o.user),
    api_app_id: APP_ID,
    token: TOKEN,
    view: wireView(o.view, o.values),
    is_cleared: o.isCleared,
    is_enterprise_install: false,
    enterprise: null,
  };
}
