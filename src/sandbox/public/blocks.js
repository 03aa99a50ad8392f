// Block Kit layout blocks as DOM: header, section (text, fields, accessory), context, divider,
// actions, image, markdown, rich_text and input. A block type the sandbox does not know is shown
// as its JSON, so nothing the bot sends silently disappears.

import { el, image, rawJson, renderElement } from './elements.js';
import { renderMarkdown } from './markdown.js';
import { emojiForName, formatSlackDate, renderPlain, renderTextObject } from './mrkdwn.js';

function textOf(obj) {
  return obj && typeof obj === 'object' && typeof obj.text === 'string' ? obj.text : '';
}

function withContent(node, content) {
  node.append(content);
  return node;
}

function section(block, ctx) {
  const node = el('div', 'bk-section');
  const body = el('div', 'bk-section-body');
  if (block.text) body.append(withContent(el('div', 'bk-section-text'), renderTextObject(block.text, ctx.directory)));
  if (Array.isArray(block.fields)) {
    const fields = el('div', 'bk-fields');
    for (const field of block.fields) fields.append(withContent(el('div', 'bk-field'), renderTextObject(field, ctx.directory)));
    body.append(fields);
  }
  node.append(body);
  if (block.accessory) {
    const accessory = block.accessory.type === 'image' ? image(block.accessory, 'bk-image-accessory') : renderElement(ctx, block.block_id, block.accessory);
    node.append(withContent(el('div', 'bk-accessory'), accessory));
  }
  return node;
}

function context(block, ctx) {
  const node = el('div', 'bk-context');
  for (const item of Array.isArray(block.elements) ? block.elements : []) {
    if (item?.type === 'image') node.append(image(item, 'bk-image-context'));
    else if (item?.type === 'mrkdwn' || item?.type === 'plain_text') node.append(withContent(el('span', 'bk-context-item'), renderTextObject(item, ctx.directory)));
    else node.append(rawJson(item, `Context element "${String(item?.type)}"`));
  }
  return node;
}

function input(block, ctx) {
  const node = el('div', 'bk-input');
  node.dataset.blockId = block.block_id;
  const label = el('label', 'bk-input-label');
  label.append(renderPlain(textOf(block.label), block.label?.emoji !== false));
  if (block.optional) label.append(el('span', 'bk-optional', ' (optional)'));
  node.append(label);
  const inner = { ...ctx, inInput: true, dispatch: block.dispatch_action === true };
  node.append(block.element ? renderElement(inner, block.block_id, block.element) : rawJson(block, 'Input without an element'));
  if (block.hint) node.append(el('div', 'bk-hint', textOf(block.hint)));
  const error = ctx.modal?.errors?.[block.block_id];
  if (error) {
    node.classList.add('bk-has-error');
    node.append(el('div', 'bk-error', error));
  }
  return node;
}

// ----- rich_text -----

function richLeaf(item, ctx) {
  const style = item.style ?? {};
  let node;
  switch (item.type) {
    case 'text':
      node = document.createTextNode(item.text ?? '');
      break;
    case 'link': {
      const safe = typeof item.url === 'string' && /^(https?:|mailto:)/i.test(item.url);
      node = el(safe ? 'a' : 'span', 'link', item.text || item.url || '');
      if (safe) Object.assign(node, { href: item.url, target: '_blank', rel: 'noopener noreferrer' });
      break;
    }
    case 'user':
      node = el('span', 'mention mention-user', `@${ctx.directory.user(item.user_id) ?? item.user_id}`);
      break;
    case 'usergroup':
      node = el('span', 'mention mention-usergroup', `@${ctx.directory.usergroup(item.usergroup_id) ?? item.usergroup_id}`);
      break;
    case 'channel':
      node = el('span', 'mention mention-channel', `#${ctx.directory.channel(item.channel_id) ?? item.channel_id}`);
      break;
    case 'broadcast':
      node = el('span', 'mention mention-broadcast', `@${item.range}`);
      break;
    case 'emoji':
      node = el('span', 'emoji', item.unicode ? String.fromCodePoint(...String(item.unicode).split('-').map((h) => parseInt(h, 16))) : (emojiForName(item.name, item.skin_tone) ?? `:${item.name}:`));
      break;
    case 'date':
      node = el('time', 'date', formatSlackDate(item.timestamp, item.format ?? '{date}') ?? item.fallback ?? '');
      break;
    case 'color':
      node = el('span', 'bk-color', item.value ?? '');
      break;
    default:
      return rawJson(item, `Rich text element "${String(item?.type)}"`);
  }
  for (const [flag, tag] of [['code', 'code'], ['strike', 's'], ['italic', 'em'], ['bold', 'strong']]) {
    if (style[flag]) {
      const wrap = el(tag, flag === 'code' ? 'mrkdwn-code' : '');
      wrap.append(node);
      node = wrap;
    }
  }
  return node;
}

function richLeaves(elements, ctx, parent) {
  for (const item of Array.isArray(elements) ? elements : []) parent.append(richLeaf(item ?? {}, ctx));
  return parent;
}

function richElement(item, ctx) {
  switch (item?.type) {
    case 'rich_text_section':
      return richLeaves(item.elements, ctx, el('div', 'rt-section'));
    case 'rich_text_preformatted':
      return richLeaves(item.elements, ctx, el('pre', 'mrkdwn-pre'));
    case 'rich_text_quote':
      return richLeaves(item.elements, ctx, el('blockquote', 'mrkdwn-quote'));
    case 'rich_text_list': {
      const list = el(item.style === 'ordered' ? 'ol' : 'ul', `rt-list rt-indent-${Number(item.indent) || 0}`);
      for (const entry of Array.isArray(item.elements) ? item.elements : []) list.append(withContent(el('li'), richElement(entry, ctx)));
      return list;
    }
    default:
      return rawJson(item, `Rich text part "${String(item?.type)}"`);
  }
}

function richText(block, ctx) {
  const node = el('div', 'bk-rich-text');
  for (const item of Array.isArray(block.elements) ? block.elements : []) node.append(richElement(item, ctx));
  return node;
}

// ----- blocks -----

function renderBlock(block, ctx) {
  if (!block || typeof block !== 'object') return rawJson(block, 'Block that is not an object');
  switch (block.type) {
    case 'header': {
      const node = el('div', 'bk-header');
      node.append(renderPlain(textOf(block.text), block.text?.emoji !== false));
      return node;
    }
    case 'section':
      return section(block, ctx);
    case 'context':
      return context(block, ctx);
    case 'divider':
      return el('hr', 'bk-divider');
    case 'actions': {
      const node = el('div', 'bk-actions');
      for (const element of Array.isArray(block.elements) ? block.elements : []) node.append(renderElement(ctx, block.block_id, element));
      return node;
    }
    case 'image': {
      const node = el('figure', 'bk-image-block');
      if (block.title) node.append(el('figcaption', '', textOf(block.title)));
      node.append(image(block, 'bk-image'));
      return node;
    }
    case 'markdown':
      return renderMarkdown(block.text);
    case 'rich_text':
      return richText(block, ctx);
    case 'input':
      return input(block, ctx);
    default:
      return rawJson(block, `Block "${String(block.type)}" (not rendered by the sandbox)`);
  }
}

/**
 * Blocks as DOM. `ctx`: { directory, containerKey, chosen, act(blockId, element, choice, node), modal? }.
 * One broken block never takes the others down with it.
 */
export function renderBlocks(blocks, ctx) {
  const root = el('div', 'bk-blocks');
  for (const block of Array.isArray(blocks) ? blocks : []) {
    let node;
    try {
      node = renderBlock(block, ctx);
    } catch (error) {
      node = rawJson(block, `Block the sandbox could not draw (${error instanceof Error ? error.message : String(error)})`);
    }
    if (block && typeof block === 'object' && typeof block.block_id === 'string' && node instanceof Element) node.dataset.blockId = block.block_id;
    root.append(node);
  }
  return root;
}

