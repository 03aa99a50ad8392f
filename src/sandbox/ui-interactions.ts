/**
 * What a person does with the bot's Block Kit in the sandbox UI, turned into the requests Slack
 * would send: a click or pick becomes a signed block_actions, a modal's Submit a view_submission
 * (after the checks Slack's own client makes, like required fields), closing a modal a
 * view_closed when the bot asked for one. The bot's answer to a submission (`response_action`)
 * is applied to the modal just as Slack applies it.
 */
import { ChoiceError, actionEntry, findElement, isObj, overflowChoice, stateFromChoice, stateKeyOf, stateValues, type Choice, type Obj, type StateValues } from './block-elements.js';
import type { BotLink } from './deliver-event.js';
import { blockActionsPayload, viewClosedPayload, viewSubmissionPayload, type ActionSource } from './interaction-payloads.js';
import { messageContainer, viewContainer, type SandboxStore, type StoredView } from './store.js';
import { SlackApiError, checkedView } from '../simulator/index.js';

export interface InteractionDeps {
  store: SandboxStore;
  bot: BotLink;
  /** http://host:port of the sandbox, for response URLs. */
  origin: string;
}

/** A refusal the UI shows; `status` is the HTTP status of the /ui answer. */
export class UiError extends Error {
  constructor(
    readonly code: string,
    readonly status = 400,
  ) {
    super(code);
  }
}

export interface ActionRequest extends Choice {
  user: string;
  /** For a click inside a modal: what its inputs hold right now, which Slack sends along in view.state. */
  viewValues?: InputValues;
  actionId: string;
  blockId: string;
  channel?: string;
  messageTs?: string;
  viewId?: string;
}

function findSource(deps: InteractionDeps, r: ActionRequest): { source: ActionSource; container: string; blocks: unknown[] } {
  const { store } = deps;
  if (r.viewId !== undefined) {
    const home = store.homeView(r.user);
    const view = store.views(r.user).find((v) => v.id === r.viewId) ?? (home?.id === r.viewId ? home : undefined);
    if (!view) throw new UiError('view_not_found', 404);
    return { source: { kind: 'view', view }, container: viewContainer(view.id), blocks: view.blocks };
  }
  if (r.messageTs === undefined) throw new UiError('messageTs or viewId is required');
  const ephemeral = store.ephemeral(r.messageTs);
  if (ephemeral && ephemeral.user === r.user) {
    return { source: { kind: 'ephemeral', ephemeral }, container: messageContainer(ephemeral.channel, ephemeral.ts), blocks: ephemeral.blocks ?? [] };
  }
  const message = r.channel !== undefined ? store.message(r.channel, r.messageTs) : store.allMessages().find((m) => m.ts === r.messageTs);
  if (!message) throw new UiError('message_not_found', 404);
  return { source: { kind: 'message', message }, container: messageContainer(message.channel, message.ts), blocks: message.blocks ?? [] };
}

export async function performAction(deps: InteractionDeps, r: ActionRequest): Promise<{ ok: boolean; status: number; values: StateValues }> {
  const { store } = deps;
  const { source, container, blocks } = findSource(deps, r);
  if (source.kind === 'view' && r.viewValues) recordInputs(store, r.user, source.view, r.viewValues);
  const element = findElement(blocks, r.blockId, r.actionId);
  if (!element) throw new UiError('element_not_found', 404);
  const type = String(element.type);
  let actionState: Obj | undefined;
  try {
    if (type === 'overflow') actionState = overflowChoice(element, r);
    else if (stateKeyOf(type) !== undefined) {
      actionState = stateFromChoice(element, r);
      store.choose(r.user, container, r.blockId, r.actionId, actionState);
    } else if (type !== 'button') throw new UiError('unsupported_element');
  } catch (error) {
    if (error instanceof ChoiceError) throw new UiError(`invalid_choice: ${error.message}`);
    throw error;
  }
  const values = stateValues(blocks, store.chosen(r.user, container));
  const payload = blockActionsPayload({
    user: r.user,
    source,
    action: actionEntry(element, r.blockId, actionState),
    values,
    triggerId: store.issueTrigger(r.user),
    ...(source.kind !== 'view' ? { responseUrl: responseUrlFor(deps, r.user, source) } : {}),
  });
  const delivery = await deps.bot.sendInteraction(payload);
  return { ok: delivery.ok, status: delivery.status, values };
}

function responseUrlFor(deps: InteractionDeps, user: string, source: Exclude<ActionSource, { kind: 'view' }>): string {
  const m = source.kind === 'message' ? source.message : source.ephemeral;
  return deps.store.responseUrls.create(deps.origin, {
    channel: m.channel,
    user,
    messageTs: m.ts,
    isEphemeral: source.kind === 'ephemeral',
    ...(m.thread_ts !== undefined ? { threadTs: m.thread_ts } : {}),
  });
}

/** A shorthand value from the UI (a string, a list of strings) as a Choice for this element. */
function toChoice(element: Obj, raw: unknown): Choice {
  if (isObj(raw)) return raw as Choice;
  const key = stateKeyOf(String(element.type));
  if (Array.isArray(raw)) {
    const list = raw.map(String);
    if (key === 'selected_users') return { selectedUsers: list };
    if (key === 'selected_conversations' || key === 'selected_channels') return { selectedConversations: list };
    return { selectedOptions: list };
  }
  const text = raw === undefined || raw === null ? null : String(raw);
  switch (key) {
    case 'selected_option':
      return { selectedOption: text };
    case 'selected_date':
      return { selectedDate: text || null };
    case 'selected_time':
      return { selectedTime: text || null };
    case 'selected_user':
      return { selectedUser: text || null };
    case 'selected_conversation':
    case 'selected_channel':
      return { selectedConversation: text || null };
    default:
      return { value: text };
  }
}

/** Is the wire state empty (what Slack's client refuses for a required input)? */
function isEmpty(state: Obj): boolean {
  return Object.entries(state).every(([k, v]) => k === 'type' || v === null || (Array.isArray(v) && v.length === 0));
}

/** The checks Slack's client makes before a modal is submitted at all. */
function clientCheck(element: Obj, state: Obj, optional: boolean): string | undefined {
  if (isEmpty(state)) return optional ? undefined : 'Please complete this required field.';
  const value = typeof state.value === 'string' ? state.value : undefined;
  if (value === undefined) return undefined;
  if (typeof element.min_length === 'number' && value.length < element.min_length) return `Enter at least ${element.min_length} characters.`;
  if (typeof element.max_length === 'number' && value.length > element.max_length) return `Enter at most ${element.max_length} characters.`;
  if (element.type === 'number_input') {
    const n = Number(value);
    if (!element.is_decimal_allowed && !Number.isInteger(n)) return 'Enter a whole number.';
    if (element.min_value !== undefined && n < Number(element.min_value)) return `Enter a number of at least ${String(element.min_value)}.`;
    if (element.max_value !== undefined && n > Number(element.max_value)) return `Enter a number of at most ${String(element.max_value)}.`;
  }
  if (element.type === 'email_text_input' && !/^[^\s@]+@[^\s@]+$/.test(value)) return 'Enter an email address.';
  if (element.type === 'url_text_input' && !URL.canParse(value)) return 'Enter a URL.';
  return undefined;
}

interface SubmissionResult {
  ok: boolean;
  /** Field errors keyed by block id (from the client checks or the bot's `response_action: errors`). */
  errors?: Record<string, string>;
  /** What happened to the modal. */
  outcome?: 'closed' | 'updated' | 'pushed' | 'cleared' | 'kept';
  error?: string;
}

type InputValues = Record<string, Record<string, unknown>>;

/**
 * Records what the person entered in a modal's inputs as their state in that view, and returns
 * the problems Slack's client would point out (keyed by block id). Inputs not mentioned keep
 * what was recorded before.
 */
function recordInputs(store: SandboxStore, user: string, view: StoredView, values: InputValues | undefined): Record<string, string> {
  const container = viewContainer(view.id);
  const errors: Record<string, string> = {};
  for (const block of view.blocks) {
    if (!isObj(block) || block.type !== 'input' || !isObj(block.element) || typeof block.block_id !== 'string') continue;
    const { element, block_id: blockId } = block;
    const actionId = String(element.action_id);
    // An input element the sandbox does not know reports nothing, rather than something wrong.
    if (stateKeyOf(String(element.type)) === undefined) continue;
    const raw = values?.[blockId]?.[actionId];
    let state: Obj;
    try {
      state =
        raw === undefined
          ? (stateValues([block], store.chosen(user, container))[blockId]?.[actionId] ?? { type: element.type })
          : stateFromChoice(element, toChoice(element, raw));
    } catch (error) {
      errors[blockId] = error instanceof ChoiceError ? `Not a valid answer: ${error.message}.` : 'Not a valid answer.';
      continue;
    }
    store.choose(user, container, blockId, actionId, state);
    const problem = clientCheck(element, state, block.optional === true);
    if (problem) errors[blockId] = problem;
  }
  return errors;
}

export async function submitView(deps: InteractionDeps, r: { user: string; viewId: string; values?: InputValues }): Promise<SubmissionResult> {
  const { store } = deps;
  const view = store.views(r.user).find((v) => v.id === r.viewId);
  if (!view) throw new UiError('view_not_found', 404);
  const errors = recordInputs(store, r.user, view, r.values);
  if (Object.keys(errors).length > 0) return { ok: false, errors, outcome: 'kept' };

  const values = stateValues(view.blocks, store.chosen(r.user, viewContainer(view.id)));
  const delivery = await deps.bot.sendInteraction(viewSubmissionPayload({ user: r.user, view, values, triggerId: store.issueTrigger(r.user) }));
  if (!delivery.ok) return { ok: false, error: 'We had some trouble connecting to the bot. Try again?', outcome: 'kept' };
  return applyResponseAction(deps, r.user, view, delivery.json);
}

/** Slack's handling of the bot's answer to a submission: errors, update, push, clear, or close. */
function applyResponseAction(deps: InteractionDeps, user: string, view: StoredView, answer: unknown): SubmissionResult {
  const { store } = deps;
  const action = isObj(answer) ? answer.response_action : undefined;
  try {
    switch (action) {
      case 'errors': {
        const errors = isObj(answer) && isObj(answer.errors) ? answer.errors : {};
        return { ok: false, errors: Object.fromEntries(Object.entries(errors).map(([k, v]) => [k, String(v)])), outcome: 'kept' };
      }
      case 'update':
        store.updateView(user, view, responseView(answer as Obj));
        return { ok: true, outcome: 'updated' };
      case 'push':
        store.pushView(user, responseView(answer as Obj));
        return { ok: true, outcome: 'pushed' };
      case 'clear':
        store.closeView(user, view.id, true);
        return { ok: true, outcome: 'cleared' };
      default:
        store.closeView(user, view.id);
        return { ok: true, outcome: 'closed' };
    }
  } catch (error) {
    const code = error instanceof SlackApiError ? error.code : String(error);
    store.notice('error', `The bot answered the submission with response_action "${String(action)}" that Slack would refuse: ${code}`);
    return { ok: false, error: 'The bot sent back a modal Slack would refuse; see the notices.', outcome: 'kept' };
  }
}

/** The modal a response_action brings, checked as views.update and views.push check theirs. */
function responseView(answer: Obj): Obj {
  return checkedView({ view: answer.view }, 'modal', { fillBlockIds: true });
}

export async function closeView(deps: InteractionDeps, r: { user: string; viewId: string }): Promise<{ ok: true }> {
  const { store } = deps;
  const stack = store.views(r.user);
  const view = stack.find((v) => v.id === r.viewId);
  if (!view) throw new UiError('view_not_found', 404);
  const values = stateValues(view.blocks, store.chosen(r.user, viewContainer(view.id)));
  const notify = view.notify_on_close === true;
  store.closeView(r.user, view.id);
  if (notify) await deps.bot.sendInteraction(viewClosedPayload({ user: r.user, view, values, isCleared: false }));
  return { ok: true };
}
