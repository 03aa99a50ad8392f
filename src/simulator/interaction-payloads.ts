/**
 * Interactivity payloads as Slack posts them (`payload=<json>`): block_actions and
 * view_submission. Only `user` is something Slack vouches for; the rest (container, message,
 * state) is what the bot uses to find its way back.
 */
import { SLACK_IDS, VERIFICATION_TOKEN } from './ids.js';
import type { JsonObject } from './json.js';
import { newTriggerId, randomId } from './random-ids.js';
import { nowSeconds } from './sign.js';

interface OptionObject extends JsonObject {
  text: { type: 'plain_text' | 'mrkdwn'; text: string; emoji?: boolean; verbatim?: boolean };
  value: string;
}

/** A bare string stands for an option whose label is its value. */
type OptionInput = string | OptionObject;

function option(o: OptionInput): OptionObject {
  return typeof o === 'string' ? { text: { type: 'plain_text', text: o, emoji: true }, value: o } : o;
}

interface BlockActionsState {
  values: Record<string, Record<string, JsonObject>>;
}

export interface SlackUserRef {
  id: string;
  /** Defaults to a name derived from the id. */
  name?: string;
  /**
   * The person's own team, `user.team_id` (default: the simulated workspace's). Another team's id
   * is a Slack Connect partner clicking in a shared channel: `team` stays the app's workspace.
   */
  teamId?: string;
}

function userObject(user: string | SlackUserRef): JsonObject {
  const id = typeof user === 'string' ? user : user.id;
  const name = (typeof user === 'string' ? undefined : user.name) ?? id.toLowerCase();
  return { id, username: name, name, team_id: (typeof user === 'string' ? undefined : user.teamId) ?? SLACK_IDS.teamId };
}

const TEAM: JsonObject = { id: SLACK_IDS.teamId, domain: SLACK_IDS.teamDomain };

type ActionType = 'button' | 'static_select' | 'multi_static_select' | 'checkboxes' | 'radio_buttons' | 'overflow';

export interface BlockActionsOptions {
  user: string | SlackUserRef;
  channel: string;
  /** The message holding the clicked element. */
  messageTs: string;
  threadTs?: string;
  actionId: string;
  value?: string;
  blockId?: string;
  selectedOption?: OptionInput;
  selectedOptions?: OptionInput[];
  /** Inferred: selectedOptions → multi_static_select, selectedOption → static_select, else button. */
  actionType?: ActionType;
  /** Button label; Slack echoes it in `actions[0].text`. */
  buttonText?: string;
  style?: 'primary' | 'danger';
  /** Wire shape `{ values: { [blockId]: { [actionId]: {...} } } }`; defaults to the acted-on element's state. */
  state?: BlockActionsState;
  triggerId?: string;
  /**
   * Defaults to a real-looking hooks.slack.com URL; pass `simulator.responseUrl(...)` if the code under
   * test calls `respond()`, so nothing leaves loopback.
   */
  responseUrl?: string;
  /** Fields of the message as Slack echoes it (e.g. blocks/text of the stored message). */
  message?: JsonObject;
  isEphemeral?: boolean;
  channelName?: string;
  actionTs?: string;
}

function defaultResponseUrl(): string {
  return `https://hooks.slack.com/actions/${SLACK_IDS.teamId}/${randomId('', 13, '0123456789')}/${randomId('', 24)}`;
}

function actionTsNow(): string {
  const ms = Date.now();
  return `${Math.floor(ms / 1000)}.${String((ms % 1000) * 1000).padStart(6, '0')}`;
}

export function blockActionsPayload(o: BlockActionsOptions): JsonObject {
  const blockId = o.blockId ?? 'actions';
  const type: ActionType =
    o.actionType ?? (o.selectedOptions ? 'multi_static_select' : o.selectedOption !== undefined ? 'static_select' : 'button');

  const action: JsonObject = {};
  let elementState: JsonObject | undefined;
  if (type === 'button') {
    action.action_id = o.actionId;
    action.block_id = blockId;
    action.text = { type: 'plain_text', text: o.buttonText ?? o.actionId, emoji: true };
    if (o.value !== undefined) action.value = o.value;
    if (o.style !== undefined) action.style = o.style;
    action.type = 'button';
  } else {
    action.type = type;
    action.action_id = o.actionId;
    action.block_id = blockId;
    if (type === 'multi_static_select' || type === 'checkboxes') {
      const selected = (o.selectedOptions ?? []).map(option);
      action.selected_options = selected;
      elementState = { type, selected_options: selected };
    } else {
      const selected = o.selectedOption !== undefined ? option(o.selectedOption) : null;
      action.selected_option = selected;
      elementState = { type, selected_option: selected };
    }
  }
  action.action_ts = o.actionTs ?? actionTsNow();

  const container: JsonObject = {
    type: 'message',
    message_ts: o.messageTs,
    channel_id: o.channel,
    is_ephemeral: o.isEphemeral ?? false,
  };
  if (o.threadTs !== undefined) container.thread_ts = o.threadTs;

  const message: JsonObject = {
    user: SLACK_IDS.botUserId,
    type: 'message',
    ts: o.messageTs,
    bot_id: SLACK_IDS.botId,
    app_id: SLACK_IDS.appId,
    text: '',
    team: SLACK_IDS.teamId,
  };
  if (o.threadTs !== undefined) message.thread_ts = o.threadTs;
  message.blocks = [];
  Object.assign(message, o.message ?? {});

  const state: BlockActionsState =
    o.state ?? { values: elementState ? { [blockId]: { [o.actionId]: elementState } } : {} };

  const payload: JsonObject = {
    type: 'block_actions',
    user: userObject(o.user),
    api_app_id: SLACK_IDS.appId,
    token: VERIFICATION_TOKEN,
    container,
    trigger_id: o.triggerId ?? newTriggerId(),
    team: TEAM,
    enterprise: null,
    is_enterprise_install: false,
    channel: { id: o.channel, name: o.channelName ?? o.channel.toLowerCase() },
  };
  // Ephemeral messages are not echoed back: Slack omits `message` for them.
  if (!o.isEphemeral) payload.message = message;
  payload.state = state as unknown as JsonObject;
  payload.response_url = o.responseUrl ?? defaultResponseUrl();
  payload.actions = [action];
  return payload;
}

/** A string is shorthand for a plain_text_input's value. */
type ViewStateInput = string | JsonObject;

interface ViewSubmissionOptions {
  user: string | SlackUserRef;
  callbackId: string;
  privateMetadata: string;
  /** `{ [blockId]: { [actionId]: value } }`, each value in wire shape or a string for text inputs. */
  stateValues: Record<string, Record<string, ViewStateInput>>;
  viewId?: string;
  triggerId?: string;
  blocks?: JsonObject[];
  title?: string;
  submitText?: string;
  hash?: string;
  externalId?: string;
  /** Present only when the modal has input blocks with `response_url_enabled`. */
  responseUrls?: JsonObject[];
}

export function viewSubmissionPayload(o: ViewSubmissionOptions): JsonObject {
  const values: Record<string, Record<string, JsonObject>> = {};
  for (const [blockId, actions] of Object.entries(o.stateValues)) {
    const block: Record<string, JsonObject> = {};
    for (const [actionId, v] of Object.entries(actions)) {
      block[actionId] = typeof v === 'string' ? { type: 'plain_text_input', value: v } : v;
    }
    values[blockId] = block;
  }
  const viewId = o.viewId ?? randomId('V0', 9);
  return {
    type: 'view_submission',
    team: TEAM,
    user: userObject(o.user),
    api_app_id: SLACK_IDS.appId,
    token: VERIFICATION_TOKEN,
    trigger_id: o.triggerId ?? newTriggerId(),
    view: {
      id: viewId,
      team_id: SLACK_IDS.teamId,
      type: 'modal',
      blocks: o.blocks ?? [],
      private_metadata: o.privateMetadata,
      callback_id: o.callbackId,
      state: { values } as unknown as JsonObject,
      hash: o.hash ?? `${nowSeconds()}.${randomId('', 8)}`,
      title: { type: 'plain_text', text: o.title ?? 'Approval', emoji: true },
      clear_on_close: false,
      notify_on_close: false,
      close: { type: 'plain_text', text: 'Cancel', emoji: true },
      submit: { type: 'plain_text', text: o.submitText ?? 'Submit', emoji: true },
      previous_view_id: null,
      root_view_id: viewId,
      app_id: SLACK_IDS.appId,
      external_id: o.externalId ?? '',
      app_installed_team_id: SLACK_IDS.teamId,
      bot_id: SLACK_IDS.botId,
    },
    response_urls: o.responseUrls ?? [],
    is_enterprise_install: false,
    enterprise: null,
  };
}
