// One message (or ephemeral) as Slack draws it: avatar, name, time, body from blocks or text,
// attachments, reactions, and the thread summary. Pure DOM building: what to do on a click is
// passed in through `ui`.

import { renderBlocks } from './blocks.js';
import { el, rawJson } from './elements.js';
import { emojiForName, renderMrkdwn } from './mrkdwn.js';

const COLORS = ['#e01e5a', '#2eb67d', '#ecb22e', '#36c5f0', '#9b59b6', '#e67e22'];

function tsDate(ts) {
  return new Date(Number(String(ts).split('.')[0]) * 1000);
}

function timeOf(ts) {
  return tsDate(ts).toLocaleTimeString('en-US', { hour: 'numeric', minute: '2-digit' });
}

function avatar(ui, userId, isBot) {
  const name = isBot ? ui.workspace.bot.realName : (ui.directory.realName(userId) ?? userId);
  if (isBot) {
    const img = el('img', 'avatar avatar-bot');
    Object.assign(img, { src: '/bot.svg', alt: name });
    return img;
  }
  const node = el('div', 'avatar', name.slice(0, 1).toUpperCase());
  const index = ui.workspace.users.findIndex((u) => u.id === userId);
  node.style.background = COLORS[(index < 0 ? userId.length : index) % COLORS.length];
  return node;
}

function attachments(list, ctx) {
  const box = el('div', 'attachments');
  for (const a of list) {
    if (!a || typeof a !== 'object') {
      box.append(rawJson(a, 'Attachment'));
      continue;
    }
    const item = el('div', 'attachment');
    if (typeof a.color === 'string') item.style.borderLeftColor = /^#?[0-9a-f]{3,8}$/i.test(a.color) ? (a.color.startsWith('#') ? a.color : `#${a.color}`) : '';
    if (a.pretext) {
      const pretext = el('div', 'attachment-pretext');
      pretext.append(renderMrkdwn(a.pretext, ctx.directory));
      item.append(pretext);
    }
    if (a.title) item.append(el('div', 'attachment-title', a.title));
    if (a.text) item.append(renderMrkdwn(a.text, ctx.directory));
    if (Array.isArray(a.fields)) {
      for (const f of a.fields) item.append(el('div', 'attachment-field', `${f?.title ?? ''}: ${f?.value ?? ''}`));
    }
    if (Array.isArray(a.blocks)) item.append(renderBlocks(a.blocks, ctx));
    if (!a.text && !a.title && !a.blocks && !a.fields) item.append(rawJson(a, 'Attachment'));
    box.append(item);
  }
  return box;
}

function reactions(message, ui) {
  const box = el('div', 'reactions');
  for (const r of message.reactions ?? []) {
    const chip = el('span', `reaction${r.users?.includes(ui.me) ? ' reaction-mine' : ''}`);
    chip.title = (r.users ?? []).map((u) => `@${ui.directory.user(u) ?? u}`).join(', ');
    chip.dataset.reaction = r.name;
    chip.append(el('span', 'emoji', emojiForName(r.name) ?? `:${r.name}:`), el('span', 'reaction-count', String(r.count ?? r.users?.length ?? 0)));
    box.append(chip);
  }
  return box;
}

/**
 * `kind`: 'message' | 'ephemeral'; `where`: 'channel' | 'thread'.
 * `ui`: { me, workspace, directory, chosen(container), act(...), openThread(channel, ts), dismiss(ts) }.
 */
export function messageNode(message, kind, where, ui) {
  const isBot = Boolean(message.bot_id) || kind === 'ephemeral';
  const container = `message:${message.channel}:${message.ts}`;
  const node = el('div', `msg${kind === 'ephemeral' ? ' msg-ephemeral' : ''}${isBot ? ' msg-bot' : ''}`);
  node.dataset.ts = message.ts;
  node.dataset.channel = message.channel;
  const authorId = isBot ? ui.workspace.bot.id : message.user;
  node.append(avatar(ui, authorId, isBot));

  const main = el('div', 'msg-main');
  const head = el('div', 'msg-head');
  head.append(el('span', 'msg-author', isBot ? ui.workspace.bot.realName : (ui.directory.realName(message.user) ?? message.user ?? 'unknown')));
  if (isBot) head.append(el('span', 'app-badge', 'APP'));
  const time = el('time', 'msg-time', timeOf(message.ts));
  time.title = tsDate(message.ts).toLocaleString();
  head.append(time);
  if (message.edited) head.append(el('span', 'msg-edited', '(edited)'));
  if (kind === 'ephemeral') head.append(el('span', 'only-you', 'Only visible to you'));
  main.append(head);

  const ctx = {
    directory: ui.directory,
    containerKey: `${where}:${container}`,
    chosen: ui.chosen(container),
    act: (blockId, element, choice, control) =>
      ui.act({ channel: message.channel, messageTs: message.ts }, blockId, element, choice, control),
  };
  const body = el('div', 'msg-body');
  if (Array.isArray(message.blocks) && message.blocks.length > 0) body.append(renderBlocks(message.blocks, ctx));
  else body.append(renderMrkdwn(message.text ?? '', ui.directory));
  if (Array.isArray(message.attachments) && message.attachments.length > 0) body.append(attachments(message.attachments, ctx));
  main.append(body);
  if (message.reactions?.length) main.append(reactions(message, ui));

  if (kind === 'ephemeral') {
    const dismiss = el('button', 'link-button', 'Dismiss message');
    dismiss.type = 'button';
    dismiss.addEventListener('click', () => ui.dismiss(message.ts));
    main.append(dismiss);
  } else if (where === 'channel' && message.reply_count) {
    const link = el('button', 'thread-link', `${message.reply_count} ${message.reply_count === 1 ? 'reply' : 'replies'}`);
    link.type = 'button';
    link.addEventListener('click', () => ui.openThread(message.channel, message.ts));
    main.append(link);
  }
  node.append(main);

  if (kind === 'message' && where === 'channel') {
    const hover = el('div', 'msg-hover');
    const reply = el('button', 'reply-button', 'Reply in thread');
    reply.type = 'button';
    reply.addEventListener('click', () => ui.openThread(message.channel, message.thread_ts ?? message.ts));
    hover.append(reply);
    node.append(hover);
  }
  return node;
}
