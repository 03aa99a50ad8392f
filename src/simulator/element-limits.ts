/**
 * The parts of Block Kit below a block that Slack checks the same way wherever they appear: text
 * objects, interactive elements, their options and confirm dialogs. block-limits.ts walks the
 * blocks and views and calls these; the wording is Slack's `invalid_blocks` wording.
 */
import { isObj } from './json.js';
import { SLACK_LIMITS as L } from './limits.js';

/** Records one problem at a json-pointer. */
export type Fail = (message: string, pointer: string) => void;

/**
 * A text object at `p`: `{ type: 'plain_text' | 'mrkdwn', text }` with text that is not blank and
 * at most `max` characters. Buttons, headers, labels, placeholders, titles and dialog buttons take
 * `plain_text` only (`plainOnly`).
 */
export function checkText(fail: Fail, value: unknown, max: number, p: string, plainOnly = false): void {
  if (!isObj(value) || typeof value.text !== 'string') return fail('must be a text object', p);
  if (value.type !== 'plain_text' && value.type !== 'mrkdwn') fail('must be a valid enum value', `${p}/type`);
  else if (plainOnly && value.type !== 'plain_text') fail('must be a plain_text object', p);
  // Slack counts a text of only spaces as empty too.
  if (value.text.trim().length === 0) fail('must be more than 0 characters', `${p}/text`);
  else if (value.text.length > max) fail(`must be less than ${max + 1} characters`, `${p}/text`);
}

/** A required text object: missing is its own error, as Slack reports it. */
export function requiredText(fail: Fail, parent: Record<string, unknown>, field: string, max: number, p: string, plainOnly = false): void {
  if (parent[field] === undefined || parent[field] === null) return fail(`missing required field: ${field}`, `${p}/${field}`);
  checkText(fail, parent[field], max, `${p}/${field}`, plainOnly);
}

/** A string field of at most `max` characters, when present. */
export function maxChars(fail: Fail, value: unknown, max: number, p: string): void {
  if (typeof value === 'string' && value.length > max) fail(`must be less than ${max + 1} characters`, p);
}

function checkOption(fail: Fail, option: unknown, p: string, plainOnly: boolean): void {
  if (!isObj(option)) return fail('must be an object', p);
  requiredText(fail, option, 'text', L.optionTextChars, p, plainOnly);
  if (option.description !== undefined) checkText(fail, option.description, L.optionDescriptionChars, `${p}/description`);
  maxChars(fail, option.value, L.optionValueChars, `${p}/value`);
}

function checkOptions(fail: Fail, el: Record<string, unknown>, p: string, max: number, plainOnly: boolean): void {
  if (!Array.isArray(el.options)) {
    if (!Array.isArray(el.option_groups)) fail('must provide options', `${p}/options`);
    return;
  }
  if (el.options.length === 0) fail('must provide at least 1 item', `${p}/options`);
  if (el.options.length > max) fail(`must provide no more than ${max} items`, `${p}/options`);
  el.options.forEach((o, i) => checkOption(fail, o, `${p}/options/${i}`, plainOnly));
}

function checkConfirm(fail: Fail, confirm: unknown, p: string): void {
  if (!isObj(confirm)) return fail('must be an object', p);
  requiredText(fail, confirm, 'title', L.confirmTitleChars, p, true);
  requiredText(fail, confirm, 'text', L.confirmTextChars, p);
  requiredText(fail, confirm, 'confirm', L.confirmButtonChars, p, true);
  requiredText(fail, confirm, 'deny', L.confirmButtonChars, p, true);
}

/**
 * An interactive element (a button, select, input…) at `p`. `actionIds` collects the action_ids of
 * the enclosing block, which must differ.
 */
export function checkElement(fail: Fail, el: unknown, p: string, actionIds: Set<string>): void {
  if (!isObj(el) || typeof el.type !== 'string') return fail('must provide an element type', p);
  if (typeof el.action_id === 'string') {
    maxChars(fail, el.action_id, L.actionIdChars, `${p}/action_id`);
    if (actionIds.has(el.action_id)) fail(`duplicate action_id ${el.action_id}`, `${p}/action_id`);
    actionIds.add(el.action_id);
  }
  if (el.placeholder !== undefined) checkText(fail, el.placeholder, L.placeholderChars, `${p}/placeholder`, true);
  if (el.confirm !== undefined) checkConfirm(fail, el.confirm, `${p}/confirm`);
  switch (el.type) {
    case 'button':
      requiredText(fail, el, 'text', L.buttonTextChars, p, true);
      maxChars(fail, el.value, L.buttonValueChars, `${p}/value`);
      maxChars(fail, el.url, L.buttonUrlChars, `${p}/url`);
      break;
    case 'static_select':
    case 'multi_static_select':
      checkOptions(fail, el, p, L.selectOptions, true);
      break;
    case 'overflow':
      checkOptions(fail, el, p, L.overflowOptions, true);
      break;
    case 'checkboxes':
    case 'radio_buttons':
      checkOptions(fail, el, p, L.choiceOptions, false);
      break;
    case 'plain_text_input':
      maxChars(fail, el.initial_value, L.plainTextInputChars, `${p}/initial_value`);
      if (typeof el.max_length === 'number' && el.max_length > L.plainTextInputMaxLength) {
        fail(`must be no more than ${L.plainTextInputMaxLength}`, `${p}/max_length`);
      }
      break;
  }
}
