/**
 * The one Block Kit checker: structure and limits of blocks, message content and views, worded
 * as Slack words its `invalid_blocks` / `invalid_arguments` details (with a json-pointer). Every
 * message and view the simulator stores passes through here, so every test that posts through it
 * checks Slack's limits for free. Unknown block types are accepted (Slack adds new ones often).
 */
import { SlackApiError, invalidArguments } from './api-error.js';
import { isObj, textOf, type Obj } from './json.js';
import { SLACK_LIMITS as L } from './limits.js';
import { optString, type Args } from './wire-args.js';

/** What the checker found wrong with a list of blocks; empty when Slack would accept them. */
export function blockLimitErrors(blocks: unknown[], pointer = '/blocks'): string[] {
  const errors: string[] = [];
  const fail = (msg: string, p: string): void => {
    errors.push(`${msg} [json-pointer:${p}]`);
  };
  const maxLen = (v: unknown, max: number, p: string) => {
    if (typeof v === 'string' && v.length > max) fail(`must be less than ${max + 1} characters`, p);
  };
  const blockIds = new Set<string>();
  let markdownChars = 0;

  const checkOption = (opt: unknown, p: string) => {
    if (!isObj(opt)) return fail('must be an object', p);
    maxLen(textOf(opt.text), L.optionTextChars, `${p}/text/text`);
    maxLen(opt.value, L.optionValueChars, `${p}/value`);
    maxLen(textOf(opt.description), L.optionDescriptionChars, `${p}/description/text`);
  };

  const checkElement = (el: unknown, p: string, actionIds: Set<string>) => {
    if (!isObj(el) || typeof el.type !== 'string') return fail('must provide an element type', p);
    if (typeof el.action_id === 'string') {
      maxLen(el.action_id, L.actionIdChars, `${p}/action_id`);
      if (actionIds.has(el.action_id)) fail(`duplicate action_id ${el.action_id}`, `${p}/action_id`);
      actionIds.add(el.action_id);
    }
    switch (el.type) {
      case 'button':
        if (textOf(el.text) === undefined) fail('must provide text', `${p}/text`);
        maxLen(textOf(el.text), L.buttonTextChars, `${p}/text/text`);
        maxLen(el.value, L.buttonValueChars, `${p}/value`);
        maxLen(el.url, L.buttonUrlChars, `${p}/url`);
        break;
      case 'static_select':
      case 'multi_static_select':
      case 'overflow':
      case 'checkboxes':
      case 'radio_buttons': {
        const select = el.type === 'static_select' || el.type === 'multi_static_select';
        const max = select ? L.selectOptions : el.type === 'overflow' ? L.overflowOptions : L.choiceOptions;
        if (Array.isArray(el.options)) {
          if (el.options.length > max) fail(`must provide no more than ${max} items`, `${p}/options`);
          el.options.forEach((o, i) => checkOption(o, `${p}/options/${i}`));
        } else if (!Array.isArray(el.option_groups)) {
          fail('must provide options', `${p}/options`);
        }
        break;
      }
      case 'plain_text_input':
        maxLen(el.initial_value, L.plainTextInputChars, `${p}/initial_value`);
        break;
    }
  };

  blocks.forEach((block, i) => {
    const p = `${pointer}/${i}`;
    if (!isObj(block)) return fail('must be an object', p);
    if (typeof block.type !== 'string' || block.type === '') return fail('missing required field: type', p);
    if (block.block_id !== undefined) {
      if (typeof block.block_id !== 'string') fail('must be a string', `${p}/block_id`);
      else {
        maxLen(block.block_id, L.blockIdChars, `${p}/block_id`);
        if (blockIds.has(block.block_id)) fail(`duplicate block_id ${block.block_id}`, `${p}/block_id`);
        blockIds.add(block.block_id);
      }
    }
    const actionIds = new Set<string>();
    switch (block.type) {
      case 'section':
        if (block.text === undefined && block.fields === undefined) fail('must provide either text or fields', p);
        maxLen(textOf(block.text), L.sectionTextChars, `${p}/text/text`);
        if (Array.isArray(block.fields)) {
          if (block.fields.length > L.sectionFields) fail(`must provide no more than ${L.sectionFields} items`, `${p}/fields`);
          block.fields.forEach((f, j) => maxLen(textOf(f), L.sectionFieldChars, `${p}/fields/${j}/text`));
        }
        if (block.accessory !== undefined) checkElement(block.accessory, `${p}/accessory`, actionIds);
        break;
      case 'header':
        if (!isObj(block.text) || block.text.type !== 'plain_text') fail('must be a plain_text object', `${p}/text`);
        maxLen(textOf(block.text), L.headerTextChars, `${p}/text/text`);
        break;
      case 'actions':
        if (!Array.isArray(block.elements) || block.elements.length === 0) fail('must provide at least 1 item', `${p}/elements`);
        else {
          if (block.elements.length > L.actionsElements) fail(`must provide no more than ${L.actionsElements} items`, `${p}/elements`);
          block.elements.forEach((el, j) => checkElement(el, `${p}/elements/${j}`, actionIds));
        }
        break;
      case 'context':
        if (!Array.isArray(block.elements) || block.elements.length === 0) fail('must provide at least 1 item', `${p}/elements`);
        else if (block.elements.length > L.contextElements) fail(`must provide no more than ${L.contextElements} items`, `${p}/elements`);
        break;
      case 'input':
        if (block.element !== undefined) checkElement(block.element, `${p}/element`, actionIds);
        maxLen(textOf(block.label), L.inputLabelChars, `${p}/label/text`);
        break;
      case 'markdown':
        if (typeof block.text === 'string') markdownChars += block.text.length;
        break;
    }
  });
  if (markdownChars > L.markdownChars) fail(`markdown blocks must total no more than ${L.markdownChars} characters`, pointer);
  return errors;
}

export function invalidBlocks(errors: string[]): SlackApiError {
  return new SlackApiError('invalid_blocks', { errors, response_metadata: { messages: errors.map((e) => `[ERROR] ${e}`) } });
}

export interface MessageContent {
  text?: string;
  blocks?: unknown[];
  attachments?: unknown[];
}

export interface ContentOptions {
  /** Refuse a message with neither text, blocks nor attachments (no_text), as posting methods do. */
  requireContent: boolean;
  /** Check each block's structure and limits; message-wide limits are always checked. Default true. */
  checkBlocks?: boolean;
}

/** The text/blocks/attachments of a chat.* or response_url call, refused as a whole as Slack does. */
export function messageContent(args: Args, options: ContentOptions): MessageContent {
  const out: MessageContent = {};
  const text = optString(args, 'text');
  if (text !== undefined) {
    if (text.length > L.textChars) throw new SlackApiError('msg_too_long');
    out.text = text;
  }
  if (args.blocks !== undefined && args.blocks !== '' && args.blocks !== null) {
    if (!Array.isArray(args.blocks)) throw new SlackApiError('invalid_blocks_format');
    if (args.blocks.length > L.blocksPerMessage) {
      throw invalidBlocks([`must provide no more than ${L.blocksPerMessage} items [json-pointer:/blocks]`]);
    }
    if (options.checkBlocks ?? true) {
      const errors = blockLimitErrors(args.blocks);
      if (errors.length > 0) throw invalidBlocks(errors);
    }
    if (JSON.stringify(args.blocks).length > L.blocksJsonChars) throw new SlackApiError('msg_blocks_too_long');
    out.blocks = args.blocks;
  }
  if (args.attachments !== undefined && args.attachments !== '' && args.attachments !== null) {
    if (!Array.isArray(args.attachments)) throw new SlackApiError('invalid_attachments');
    out.attachments = args.attachments;
  }
  const empty = out.text === undefined && (out.blocks === undefined || out.blocks.length === 0) && out.attachments === undefined;
  if (options.requireContent && empty) throw new SlackApiError('no_text');
  return out;
}

/** Which surface a view is for: views.open/push/update take modals, views.publish takes a Home tab. */
export type ViewSurface = 'modal' | 'home';

/** The `view` argument of views.*, checked like Slack does; throws invalid_arguments listing every problem. */
export function checkedView(args: Args, surface: ViewSurface, options: { checkBlocks?: boolean } = {}): Obj {
  const view = args.view;
  if (!isObj(view)) throw invalidArguments('missing required field: view');
  const errors: string[] = [];
  const short = (field: string) => {
    const text = textOf(view[field]);
    if (view[field] !== undefined && view[field] !== null && text === undefined) errors.push(`must be a text object [json-pointer:/view/${field}]`);
    if (text !== undefined && text.length > L.viewTitleChars) errors.push(`must be less than ${L.viewTitleChars + 1} characters [json-pointer:/view/${field}/text]`);
  };
  if (typeof view.type !== 'string') errors.push('missing required field: type [json-pointer:/view/type]');
  else if (view.type !== surface) errors.push(`must be ${surface} [json-pointer:/view/type]`);
  if (surface === 'modal') {
    if (textOf(view.title) === undefined) errors.push('missing required field: title [json-pointer:/view/title]');
    short('title');
    short('submit');
    short('close');
  }
  if (!Array.isArray(view.blocks)) errors.push('missing required field: blocks [json-pointer:/view/blocks]');
  else {
    if (view.blocks.length > L.blocksPerView) errors.push(`must provide no more than ${L.blocksPerView} items [json-pointer:/view/blocks]`);
    if (options.checkBlocks ?? true) errors.push(...blockLimitErrors(view.blocks, '/view/blocks'));
    if (surface === 'modal' && view.blocks.some((b) => isObj(b) && b.type === 'input') && textOf(view.submit) === undefined) {
      errors.push('missing required field: submit (a view with input blocks needs one) [json-pointer:/view/submit]');
    }
  }
  if (typeof view.private_metadata === 'string' && view.private_metadata.length > L.privateMetadataChars) {
    errors.push(`must be less than ${L.privateMetadataChars + 1} characters [json-pointer:/view/private_metadata]`);
  }
  if (typeof view.callback_id === 'string' && view.callback_id.length > L.callbackIdChars) {
    errors.push(`must be less than ${L.callbackIdChars + 1} characters [json-pointer:/view/callback_id]`);
  }
  if (errors.length > 0) throw invalidArguments(...errors);
  return view;
}

