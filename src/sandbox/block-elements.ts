/**
 * What the sandbox needs to know about Block Kit to act like Slack's client: where the interactive
 * elements are, what state each one reports in `state.values`, and how a choice made in the UI
 * becomes the exact option objects Slack echoes back (the bot may compare them with what it sent).
 * Anything unknown passes through untouched: the sandbox must never drop or choke on a block.
 */
import { interactiveElements, isObj, type Obj } from '../simulator/index.js';

// Where the elements are and the ids Slack fills in are the simulator's (block-ids.ts).
export { isObj, normalizeBlocks, type Obj } from '../simulator/index.js';

export type StateValues = Record<string, Record<string, Obj>>;

/** The key each stateful element reports its selection under, and the empty value. */
const STATE_KEY: Record<string, { key: string; empty: unknown }> = {
  static_select: { key: 'selected_option', empty: null },
  radio_buttons: { key: 'selected_option', empty: null },
  multi_static_select: { key: 'selected_options', empty: [] },
  checkboxes: { key: 'selected_options', empty: [] },
  datepicker: { key: 'selected_date', empty: null },
  timepicker: { key: 'selected_time', empty: null },
  users_select: { key: 'selected_user', empty: null },
  multi_users_select: { key: 'selected_users', empty: [] },
  conversations_select: { key: 'selected_conversation', empty: null },
  multi_conversations_select: { key: 'selected_conversations', empty: [] },
  channels_select: { key: 'selected_channel', empty: null },
  multi_channels_select: { key: 'selected_channels', empty: [] },
  plain_text_input: { key: 'value', empty: null },
  number_input: { key: 'value', empty: null },
  email_text_input: { key: 'value', empty: null },
  url_text_input: { key: 'value', empty: null },
};

/** Where Slack reads each element's starting value from. */
const INITIAL_KEY: Record<string, string> = {
  selected_option: 'initial_option',
  selected_options: 'initial_options',
  selected_date: 'initial_date',
  selected_time: 'initial_time',
  selected_user: 'initial_user',
  selected_users: 'initial_users',
  selected_conversation: 'initial_conversation',
  selected_conversations: 'initial_conversations',
  selected_channel: 'initial_channel',
  selected_channels: 'initial_channels',
  value: 'initial_value',
};

export function stateKeyOf(type: string): string | undefined {
  return STATE_KEY[type]?.key;
}

export function findElement(blocks: unknown, blockId: string, actionId: string): Obj | undefined {
  return interactiveElements(blocks).find((r) => r.blockId === blockId && r.element.action_id === actionId)?.element;
}

function initialState(element: Obj): Obj | undefined {
  const type = String(element.type);
  const spec = STATE_KEY[type];
  if (!spec) return undefined;
  const initialKey = INITIAL_KEY[spec.key]!;
  let initial = element[initialKey] ?? spec.empty;
  if (spec.key === 'value' && initial !== null) initial = String(initial);
  return { type, [spec.key]: structuredClone(initial) };
}

/**
 * `state.values` the way Slack reports it for a surface: every stateful element, with what the
 * person chose (`chosen`, keyed like state.values) or else its initial value.
 */
export function stateValues(blocks: unknown, chosen: StateValues = {}): StateValues {
  const values: StateValues = {};
  for (const { blockId, element } of interactiveElements(blocks)) {
    const actionId = String(element.action_id);
    const state = chosen[blockId]?.[actionId] ?? initialState(element);
    if (!state) continue;
    (values[blockId] ??= {})[actionId] = structuredClone(state);
  }
  return values;
}

/** Options of a select, flattened out of option_groups when it has them. */
function optionsOf(element: Obj): Obj[] {
  const direct = Array.isArray(element.options) ? element.options : [];
  const grouped = Array.isArray(element.option_groups)
    ? element.option_groups.flatMap((g) => (isObj(g) && Array.isArray(g.options) ? g.options : []))
    : [];
  return [...direct, ...grouped].filter(isObj);
}

type OptionChoice = string | { value?: unknown };

/** The option object (as the bot sent it) for a value the UI picked; undefined when it is not one. */
function resolveOption(element: Obj, choice: OptionChoice): Obj | undefined {
  const value = typeof choice === 'string' ? choice : isObj(choice) ? choice.value : undefined;
  if (typeof value !== 'string') return undefined;
  const option = optionsOf(element).find((o) => o.value === value);
  return option ? structuredClone(option) : undefined;
}

/** What the UI can say about an element it acted on or filled in. */
export interface Choice {
  value?: string | number | null;
  selectedOption?: OptionChoice | null;
  selectedOptions?: OptionChoice[];
  selectedDate?: string | null;
  selectedTime?: string | null;
  selectedUser?: string | null;
  selectedUsers?: string[];
  selectedConversation?: string | null;
  selectedConversations?: string[];
}

export class ChoiceError extends Error {}

/** Turns a UI choice into the element's wire state; throws ChoiceError when it does not fit the element. */
export function stateFromChoice(element: Obj, choice: Choice): Obj {
  const type = String(element.type);
  const spec = STATE_KEY[type];
  if (!spec) throw new ChoiceError(`${type} has no state`);
  const state: Obj = { type };
  switch (spec.key) {
    case 'selected_option': {
      const picked = choice.selectedOption ?? (typeof choice.value === 'string' ? choice.value : null);
      const option = picked === null ? null : resolveOption(element, picked);
      if (option === undefined) throw new ChoiceError('that option is not in the element');
      state.selected_option = option;
      break;
    }
    case 'selected_options': {
      const options = (choice.selectedOptions ?? []).map((c) => resolveOption(element, c));
      if (options.some((o) => o === undefined)) throw new ChoiceError('an option is not in the element');
      state.selected_options = options;
      break;
    }
    case 'selected_date':
      if (choice.selectedDate != null && !/^\d{4}-\d{2}-\d{2}$/.test(choice.selectedDate)) throw new ChoiceError('dates are YYYY-MM-DD');
      state.selected_date = choice.selectedDate ?? null;
      break;
    case 'selected_time':
      if (choice.selectedTime != null && !/^\d{2}:\d{2}$/.test(choice.selectedTime)) throw new ChoiceError('times are HH:mm');
      state.selected_time = choice.selectedTime ?? null;
      break;
    case 'selected_user':
      state.selected_user = choice.selectedUser ?? null;
      break;
    case 'selected_users':
      state.selected_users = [...(choice.selectedUsers ?? [])];
      break;
    case 'selected_conversation':
    case 'selected_channel':
      state[spec.key] = choice.selectedConversation ?? null;
      break;
    case 'selected_conversations':
    case 'selected_channels':
      state[spec.key] = [...(choice.selectedConversations ?? [])];
      break;
    case 'value': {
      const raw = choice.value;
      const text = raw === undefined || raw === null ? '' : String(raw);
      if (type === 'number_input' && text !== '' && !Number.isFinite(Number(text))) throw new ChoiceError('not a number');
      state.value = text === '' ? null : text;
      break;
    }
  }
  return state;
}

function actionTs(now: number): string {
  return `${Math.floor(now / 1000)}.${String((now % 1000) * 1000).padStart(6, '0')}`;
}

/** The `actions[0]` entry of a block_actions payload for an element acted on. */
export function actionEntry(element: Obj, blockId: string, state: Obj | undefined, now = Date.now()): Obj {
  const type = String(element.type);
  const entry: Obj = { type, action_id: element.action_id, block_id: blockId };
  if (type === 'button') {
    entry.text = structuredClone(element.text);
    if (element.value !== undefined) entry.value = element.value;
    if (element.style !== undefined) entry.style = element.style;
    if (element.url !== undefined) entry.url = element.url;
  } else if (type === 'overflow' && state) {
    entry.selected_option = state.selected_option ?? null;
  } else if (state) {
    for (const [k, v] of Object.entries(state)) if (k !== 'type') entry[k] = v;
    for (const key of ['placeholder', 'initial_option', 'initial_date', 'initial_value']) {
      if (element[key] !== undefined) entry[key] = structuredClone(element[key]);
    }
  }
  entry.action_ts = actionTs(now);
  return entry;
}

/** An overflow menu reports its pick in the action only; it has no entry in state.values. */
export function overflowChoice(element: Obj, choice: Choice): Obj {
  const option = choice.selectedOption != null ? resolveOption(element, choice.selectedOption) : undefined;
  if (!option) throw new ChoiceError('that option is not in the menu');
  return { type: 'overflow', selected_option: option };
}
