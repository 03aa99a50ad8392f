/**
 * The one Block Kit checker: structure and limits of blocks, message content and views, worded
 * as Slack words its `invalid_blocks` / `invalid_arguments` details (with a json-pointer). Every
 * message and view the simulator stores passes through here, so every test that posts through it
 * checks Slack's limits for free, and unit tests run builders' output through `blockLimitErrors` /
 * `viewLimitErrors`. Text objects and elements are checked in element-limits.ts. Unknown block
 * types are accepted (Slack adds new ones often).
 */
import { SlackApiError, invalidArguments } from './api-error.js';
import { normalizeBlocks } from './block-ids.js';
import { checkElement, checkText, maxChars, requiredText, type Fail } from './element-limits.js';
import { clone, isObj, textOf, type Obj } from './json.js';
import { SLACK_LIMITS as L } from './limits.js';
import { optString, type Args } from './wire-args.js';

/** Sums the text in a rich_text tree, which has no per-field limit of its own. */
function richTextChars(node: unknown): number {
  if (Array.isArray(node)) return node.reduce<number>((sum, child) => sum + richTextChars(child), 0);
  if (!isObj(node)) return 0;
  return (typeof node.text === 'string' ? node.text.length : 0) + richTextChars(node.elements);
}

/** Each block's structure and limits, without the block count and size limits of the surface. */
function eachBlockErrors(blocks: unknown[], pointer: string): string[] {
  const errors: string[] = [];
  const fail: Fail = (msg, p) => {
    errors.push(`${msg} [json-pointer:${p}]`);
  };
  const blockIds = new Set<string>();
  let markdownChars = 0;

  blocks.forEach((block, i) => {
    const p = `${pointer}/${i}`;
    if (!isObj(block)) return fail('must be an object', p);
    if (typeof block.type !== 'string' || block.type === '') return fail('missing required field: type', p);
    if (block.block_id !== undefined) {
      if (typeof block.block_id !== 'string') fail('must be a string', `${p}/block_id`);
      else {
        maxChars(fail, block.block_id, L.blockIdChars, `${p}/block_id`);
        if (blockIds.has(block.block_id)) fail(`duplicate block_id ${block.block_id}`, `${p}/block_id`);
        blockIds.add(block.block_id);
      }
    }
    const actionIds = new Set<string>();
    switch (block.type) {
      case 'section':
        if (block.text === undefined && block.fields === undefined) fail('must provide either text or fields', p);
        if (block.text !== undefined) checkText(fail, block.text, L.sectionTextChars, `${p}/text`);
        if (block.fields !== undefined) {
          if (!Array.isArray(block.fields)) fail('must provide an array', `${p}/fields`);
          else {
            if (block.fields.length > L.sectionFields) fail(`must provide no more than ${L.sectionFields} items`, `${p}/fields`);
            block.fields.forEach((f, j) => checkText(fail, f, L.sectionFieldChars, `${p}/fields/${j}`));
          }
        }
        if (block.accessory !== undefined) checkElement(fail, block.accessory, `${p}/accessory`, actionIds);
        break;
      case 'header':
        requiredText(fail, block, 'text', L.headerTextChars, p, true);
        break;
      case 'actions':
        if (!Array.isArray(block.elements) || block.elements.length === 0) fail('must provide at least 1 item', `${p}/elements`);
        else {
          if (block.elements.length > L.actionsElements) fail(`must provide no more than ${L.actionsElements} items`, `${p}/elements`);
          block.elements.forEach((el, j) => checkElement(fail, el, `${p}/elements/${j}`, actionIds));
        }
        break;
      case 'context':
        if (!Array.isArray(block.elements) || block.elements.length === 0) fail('must provide at least 1 item', `${p}/elements`);
        else {
          if (block.elements.length > L.contextElements) fail(`must provide no more than ${L.contextElements} items`, `${p}/elements`);
          block.elements.forEach((el, j) => {
            if (!isObj(el) || el.type !== 'image') checkText(fail, el, L.textObjectChars, `${p}/elements/${j}`);
          });
        }
        break;
      case 'input':
        requiredText(fail, block, 'label', L.inputLabelChars, p, true);
        if (block.hint !== undefined) checkText(fail, block.hint, L.inputHintChars, `${p}/hint`, true);
        if (block.element === undefined) fail('missing required field: element', `${p}/element`);
        else checkElement(fail, block.element, `${p}/element`, actionIds);
        break;
      case 'markdown':
        if (typeof block.text !== 'string') fail('missing required field: text', `${p}/text`);
        else if (block.text.length === 0) fail('must be more than 0 characters', `${p}/text`);
        else markdownChars += block.text.length;
        break;
      case 'rich_text': {
        const chars = richTextChars(block.elements);
        if (chars > L.richTextChars) fail(`rich_text must total no more than ${L.richTextChars} characters`, p);
        break;
      }
    }
  });
  if (markdownChars > L.markdownChars) fail(`markdown blocks must total no more than ${L.markdownChars} characters`, pointer);
  return errors;
}

function blockCountError(blocks: unknown[], max: number, pointer: string): string[] {
  return blocks.length > max ? [`must provide no more than ${max} items [json-pointer:${pointer}]`] : [];
}

function blocksJsonTooLong(blocks: unknown[]): boolean {
  return JSON.stringify(blocks).length > L.blocksJsonChars;
}

/**
 * What the checker finds wrong with a list of blocks; empty when Slack would accept them.
 * `pointer` says where they sit, and with it their surface: a message's `/blocks` (at most 50
 * blocks and 13k characters of JSON, which Slack refuses as msg_blocks_too_long rather than
 * invalid_blocks) or a view's `/view/blocks` (at most 100).
 */
export function blockLimitErrors(blocks: unknown[], pointer = '/blocks'): string[] {
  const inView = pointer.startsWith('/view');
  const errors = blockCountError(blocks, inView ? L.blocksPerView : L.blocksPerMessage, pointer);
  if (!inView && blocksJsonTooLong(blocks)) {
    errors.push(`msg_blocks_too_long: must be no more than ${L.blocksJsonChars} characters of JSON [json-pointer:${pointer}]`);
  }
  return [...errors, ...eachBlockErrors(blocks, pointer)];
}

function invalidBlocks(errors: string[]): SlackApiError {
  return new SlackApiError('invalid_blocks', { errors, response_metadata: { messages: errors.map((e) => `[ERROR] ${e}`) } });
}

export interface MessageContent {
  text?: string;
  blocks?: unknown[];
  attachments?: unknown[];
}

interface ContentOptions {
  /** Refuse a message with neither text, blocks nor attachments (no_text), as posting methods do. */
  requireContent: boolean;
  /** Check each block's structure and limits; message-wide limits are always checked. Default true. */
  checkBlocks?: boolean;
  /** Fill in the block_ids and action_ids the sender left out, as Slack does (block-ids.ts). Default false. */
  fillBlockIds?: boolean;
}

/** The text/blocks/attachments of a chat.* or response_url call (copies), refused as a whole as Slack does. */
export function messageContent(args: Args, options: ContentOptions): MessageContent {
  const out: MessageContent = {};
  const text = optString(args, 'text');
  if (text !== undefined) {
    if (text.length > L.textChars) throw new SlackApiError('msg_too_long');
    out.text = text;
  }
  if (args.blocks !== undefined && args.blocks !== '' && args.blocks !== null) {
    if (!Array.isArray(args.blocks)) throw new SlackApiError('invalid_blocks_format');
    const tooMany = blockCountError(args.blocks, L.blocksPerMessage, '/blocks');
    if (tooMany.length > 0) throw invalidBlocks(tooMany);
    if (options.checkBlocks ?? true) {
      const errors = eachBlockErrors(args.blocks, '/blocks');
      if (errors.length > 0) throw invalidBlocks(errors);
    }
    if (blocksJsonTooLong(args.blocks)) throw new SlackApiError('msg_blocks_too_long');
    out.blocks = options.fillBlockIds ? normalizeBlocks(args.blocks) : clone(args.blocks);
  }
  if (args.attachments !== undefined && args.attachments !== '' && args.attachments !== null) {
    if (!Array.isArray(args.attachments)) throw new SlackApiError('invalid_attachments');
    out.attachments = clone(args.attachments);
  }
  const empty = out.text === undefined && (out.blocks === undefined || out.blocks.length === 0) && out.attachments === undefined;
  if (options.requireContent && empty) throw new SlackApiError('no_text');
  return out;
}

/** Which surface a view is for: views.open/push/update take modals, views.publish takes a Home tab. */
export type ViewSurface = 'modal' | 'home';

/** What the checker finds wrong with a view for `surface`; empty when Slack would accept it. */
export function viewLimitErrors(view: unknown, surface: ViewSurface, options: { checkBlocks?: boolean } = {}): string[] {
  if (!isObj(view)) return ['missing required field: view'];
  const errors: string[] = [];
  const fail: Fail = (msg, p) => {
    errors.push(`${msg} [json-pointer:${p}]`);
  };
  if (typeof view.type !== 'string') fail('missing required field: type', '/view/type');
  else if (view.type !== surface) fail(`must be ${surface}`, '/view/type');
  if (surface === 'modal') {
    requiredText(fail, view, 'title', L.viewTitleChars, '/view', true);
    if (view.submit !== undefined && view.submit !== null) checkText(fail, view.submit, L.viewButtonChars, '/view/submit', true);
    if (view.close !== undefined && view.close !== null) checkText(fail, view.close, L.viewButtonChars, '/view/close', true);
  }
  if (!Array.isArray(view.blocks)) fail('missing required field: blocks', '/view/blocks');
  else {
    errors.push(...blockCountError(view.blocks, L.blocksPerView, '/view/blocks'));
    if (options.checkBlocks ?? true) errors.push(...eachBlockErrors(view.blocks, '/view/blocks'));
    if (surface === 'modal' && view.blocks.some((b) => isObj(b) && b.type === 'input') && textOf(view.submit) === undefined) {
      fail('missing required field: submit (a view with input blocks needs one)', '/view/submit');
    }
  }
  maxChars(fail, view.private_metadata, L.privateMetadataChars, '/view/private_metadata');
  maxChars(fail, view.callback_id, L.callbackIdChars, '/view/callback_id');
  return errors;
}

/** The `view` argument of views.*, checked like Slack does; throws invalid_arguments listing every problem. */
export function checkedView(args: Args, surface: ViewSurface, options: Omit<ContentOptions, 'requireContent'> = {}): Obj {
  const view = args.view;
  if (!isObj(view)) throw invalidArguments('missing required field: view');
  const errors = viewLimitErrors(view, surface, options);
  if (errors.length > 0) throw invalidArguments(...errors);
  return options.fillBlockIds ? { ...view, blocks: normalizeBlocks(view.blocks as unknown[]) } : view;
}
