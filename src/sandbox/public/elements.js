// Block Kit's interactive elements as form controls. In a message (or a modal's actions block)
// every change is sent at once, as a block_actions; inside a modal's input block the control only
// remembers its value until Submit collects it through the getter registered with the modal.

import { renderPlain, renderTextObject } from './mrkdwn.js';

export function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

export function rawJson(value, label) {
  const box = el('details', 'bk-unknown');
  box.open = true;
  box.append(el('summary', '', label), el('pre', '', JSON.stringify(value, null, 2)));
  return box;
}

function textOf(obj) {
  return obj && typeof obj === 'object' && typeof obj.text === 'string' ? obj.text : '';
}

function optionsOf(element) {
  const direct = Array.isArray(element.options) ? element.options : [];
  const grouped = Array.isArray(element.option_groups) ? element.option_groups.flatMap((g) => (Array.isArray(g?.options) ? g.options : [])) : [];
  return [...direct, ...grouped].filter((o) => o && typeof o === 'object');
}

/** The element's current value: what this person chose (or typed, in a modal), else its initial value. */
function currentValue(ctx, blockId, element) {
  const typed = ctx.modal?.previous?.[blockId]?.[element.action_id];
  if (typed !== undefined) return typed;
  const state = ctx.chosen?.[blockId]?.[element.action_id];
  const pick = (key, initialKey, map = (v) => v) => (state && key in state ? map(state[key]) : map(element[initialKey] ?? null));
  switch (element.type) {
    case 'static_select':
    case 'radio_buttons':
      return pick('selected_option', 'initial_option', (o) => o?.value ?? null);
    case 'multi_static_select':
    case 'checkboxes':
      return pick('selected_options', 'initial_options', (list) => (Array.isArray(list) ? list.map((o) => o?.value) : []));
    case 'datepicker':
      return pick('selected_date', 'initial_date');
    case 'timepicker':
      return pick('selected_time', 'initial_time');
    case 'users_select':
      return pick('selected_user', 'initial_user');
    case 'multi_users_select':
      return pick('selected_users', 'initial_users', (v) => v ?? []);
    case 'conversations_select':
      return pick('selected_conversation', 'initial_conversation');
    case 'channels_select':
      return pick('selected_channel', 'initial_channel');
    default:
      return pick('value', 'initial_value', (v) => (v === null || v === undefined ? '' : String(v)));
  }
}

/** Sends a change now (messages, actions blocks) or leaves it for Submit (modal inputs). */
function wire(ctx, blockId, element, node, getter, toChoice) {
  if (ctx.modal && ctx.inInput) {
    ctx.modal.register(blockId, element.action_id, getter);
    if (!ctx.dispatch) return;
  }
  node.addEventListener('change', () => ctx.act(blockId, element, toChoice(getter()), node));
}

function selectControl(ctx, blockId, element, entries, selected, placeholder) {
  const select = el('select', 'bk-select');
  select.dataset.actionId = element.action_id;
  const none = el('option', '', placeholder || 'Select an item');
  none.value = '';
  none.disabled = !ctx.inInput;
  select.append(none);
  for (const [value, label] of entries) {
    const option = el('option', '', label);
    option.value = value;
    select.append(option);
  }
  select.value = selected ?? '';
  if (select.value !== (selected ?? '')) select.value = '';
  return select;
}

function multiControl(ctx, blockId, element, entries, selected, toChoice) {
  const box = el('div', 'bk-multi');
  box.dataset.actionId = element.action_id;
  let values = [...selected];
  const labels = new Map(entries);
  const draw = () => {
    box.replaceChildren();
    for (const value of values) {
      const chip = el('span', 'bk-chip', labels.get(value) ?? value);
      const remove = el('button', 'bk-chip-remove', '×');
      remove.type = 'button';
      remove.title = 'Remove';
      remove.addEventListener('click', () => change(values.filter((v) => v !== value)));
      chip.append(remove);
      box.append(chip);
    }
    const rest = entries.filter(([v]) => !values.includes(v));
    const add = selectControl({ ...ctx, inInput: false }, blockId, element, rest, '', values.length ? 'Add another…' : textOf(element.placeholder) || 'Select items');
    add.classList.add('bk-multi-add');
    add.addEventListener('change', () => change([...values, add.value]));
    if (rest.length > 0) box.append(add);
  };
  const change = (next) => {
    values = next;
    draw();
    if (!(ctx.modal && ctx.inInput) || ctx.dispatch) ctx.act(blockId, element, toChoice(values), box);
  };
  if (ctx.modal && ctx.inInput) ctx.modal.register(blockId, element.action_id, () => values);
  draw();
  return box;
}

function choiceList(ctx, blockId, element, multiple) {
  const box = el('div', multiple ? 'bk-checkboxes' : 'bk-radios');
  box.dataset.actionId = element.action_id;
  const selected = currentValue(ctx, blockId, element);
  const name = `${ctx.containerKey}:${blockId}:${element.action_id}`;
  const inputs = [];
  for (const option of optionsOf(element)) {
    const label = el('label', 'bk-choice');
    const input = el('input');
    input.type = multiple ? 'checkbox' : 'radio';
    input.name = name;
    input.value = String(option.value ?? '');
    input.checked = multiple ? selected.includes(option.value) : selected === option.value;
    inputs.push(input);
    const text = el('span', 'bk-choice-text');
    text.append(renderTextObject(option.text, ctx.directory));
    if (option.description) {
      const description = el('span', 'bk-choice-description');
      description.append(renderTextObject(option.description, ctx.directory));
      text.append(description);
    }
    label.append(input, text);
    box.append(label);
  }
  const getter = () => (multiple ? inputs.filter((i) => i.checked).map((i) => i.value) : (inputs.find((i) => i.checked)?.value ?? null));
  wire(ctx, blockId, element, box, getter, (v) => (multiple ? { selectedOptions: v } : { selectedOption: v }));
  return box;
}

function button(ctx, blockId, element) {
  const b = el('button', `bk-button${element.style ? ` bk-${element.style}` : ''}`);
  b.type = 'button';
  b.dataset.actionId = element.action_id;
  b.append(renderPlain(textOf(element.text), element.text?.emoji !== false));
  b.addEventListener('click', () => {
    const confirm = element.confirm;
    if (confirm && !window.confirm(`${textOf(confirm.title)}\n\n${textOf(confirm.text)}`)) return;
    if (typeof element.url === 'string' && /^https?:/i.test(element.url)) window.open(element.url, '_blank', 'noopener');
    ctx.act(blockId, element, {}, b);
  });
  return b;
}

function textInput(ctx, blockId, element) {
  const multiline = element.type === 'plain_text_input' && element.multiline;
  const input = el(multiline ? 'textarea' : 'input', 'bk-text-input');
  if (!multiline) input.type = { number_input: 'text', email_text_input: 'email', url_text_input: 'url' }[element.type] ?? 'text';
  if (element.type === 'number_input') input.inputMode = element.is_decimal_allowed ? 'decimal' : 'numeric';
  input.dataset.actionId = element.action_id;
  input.placeholder = textOf(element.placeholder);
  input.value = currentValue(ctx, blockId, element);
  if (typeof element.max_length === 'number') input.maxLength = element.max_length;
  if (ctx.modal && ctx.inInput) ctx.modal.register(blockId, element.action_id, () => input.value);
  if (!(ctx.modal && ctx.inInput) || ctx.dispatch) {
    input.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' && !e.shiftKey) {
        e.preventDefault();
        ctx.act(blockId, element, { value: input.value }, input);
      }
    });
  }
  return input;
}

/** One interactive element (or an image), ready to place in an actions block, accessory or input. */
export function renderElement(ctx, blockId, element) {
  if (!element || typeof element !== 'object') return rawJson(element, 'Element that is not an object');
  const directory = ctx.directory;
  switch (element.type) {
    case 'button':
      return button(ctx, blockId, element);
    case 'static_select':
    case 'overflow': {
      const entries = optionsOf(element).map((o) => [String(o.value ?? ''), textOf(o.text)]);
      const overflow = element.type === 'overflow';
      const select = selectControl(ctx, blockId, element, entries, overflow ? '' : currentValue(ctx, blockId, element), overflow ? '⋯' : textOf(element.placeholder));
      if (overflow) select.classList.add('bk-overflow');
      wire(ctx, blockId, element, select, () => select.value || null, (v) => ({ selectedOption: v }));
      if (overflow) select.addEventListener('change', () => (select.value = ''));
      return select;
    }
    case 'multi_static_select': {
      const entries = optionsOf(element).map((o) => [String(o.value ?? ''), textOf(o.text)]);
      return multiControl(ctx, blockId, element, entries, currentValue(ctx, blockId, element), (v) => ({ selectedOptions: v }));
    }
    case 'radio_buttons':
      return choiceList(ctx, blockId, element, false);
    case 'checkboxes':
      return choiceList(ctx, blockId, element, true);
    case 'users_select':
    case 'conversations_select':
    case 'channels_select': {
      const users = element.type === 'users_select';
      const entries = users ? directory.users.map((u) => [u.id, `@${u.name}`]) : directory.channels.map((c) => [c.id, c.type === 'im' ? `DM: ${c.name}` : `#${c.name}`]);
      const select = selectControl(ctx, blockId, element, entries, currentValue(ctx, blockId, element), textOf(element.placeholder));
      wire(ctx, blockId, element, select, () => select.value || null, (v) => (users ? { selectedUser: v } : { selectedConversation: v }));
      return select;
    }
    case 'multi_users_select': {
      const entries = directory.users.map((u) => [u.id, `@${u.name}`]);
      return multiControl(ctx, blockId, element, entries, currentValue(ctx, blockId, element), (v) => ({ selectedUsers: v }));
    }
    case 'datepicker':
    case 'timepicker': {
      const input = el('input', 'bk-text-input bk-picker');
      input.type = element.type === 'datepicker' ? 'date' : 'time';
      input.dataset.actionId = element.action_id;
      input.value = currentValue(ctx, blockId, element) ?? '';
      const date = element.type === 'datepicker';
      wire(ctx, blockId, element, input, () => input.value || null, (v) => (date ? { selectedDate: v } : { selectedTime: v }));
      return input;
    }
    case 'plain_text_input':
    case 'number_input':
    case 'email_text_input':
    case 'url_text_input':
      return textInput(ctx, blockId, element);
    case 'image':
      return image(element, 'bk-image-small');
    default:
      return rawJson(element, `Element "${String(element.type)}" (not rendered by the sandbox)`);
  }
}

export function image(element, className) {
  const url = element.image_url;
  if (typeof url !== 'string' || !/^https?:/i.test(url)) return el('span', 'bk-image-alt', `[${element.alt_text ?? 'image'}]`);
  const img = el('img', className);
  Object.assign(img, { src: url, alt: element.alt_text ?? '', referrerPolicy: 'no-referrer', loading: 'lazy' });
  return img;
}
