// The sandbox UI: loads one person's view of the workspace, keeps it current from the server's
// event stream (no polling), and sends what the person does to /ui/*, which the server turns
// into the signed requests Slack would send the bot.

import { el } from './elements.js';
import { renderBlocks } from './blocks.js';
import { messageNode } from './message-view.js';
import { ModalView } from './modal.js';
import { setEmojiTable } from './mrkdwn.js';

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);

const state = {
  me: params.get('user') ?? localStorage.getItem('sandbox-user') ?? 'U0ALICE',
  channel: params.get('channel') ?? 'C0GENERAL',
  thread: params.get('thread') ?? undefined,
  /** 'home' while the bot's Home tab is shown instead of a channel. */
  tab: params.get('tab') === 'home' ? 'home' : undefined,
  /** The Home view the bot published for this person (views.publish), or null. */
  home: null,
  workspace: undefined,
  channels: [],
  /** channel → ts → message */
  messages: new Map(),
  /** ts → ephemeral (this person's only) */
  ephemerals: new Map(),
  views: [],
  chosen: {},
  examples: [],
  /** The last store change this screen reflects. */
  seq: 0,
};

const directory = {
  user: (id) => (id === state.workspace?.bot.id ? state.workspace.bot.name : state.workspace?.users.find((u) => u.id === id)?.name),
  realName: (id) => (id === state.workspace?.bot.id ? state.workspace.bot.realName : state.workspace?.users.find((u) => u.id === id)?.realName),
  usergroup: (id) => state.workspace?.usergroups.find((g) => g.id === id)?.handle,
  channel: (id) => state.workspace?.channels.find((c) => c.id === id)?.name,
  get users() {
    return state.workspace?.users ?? [];
  },
  get channels() {
    return state.channels;
  },
};

async function post(path, body) {
  try {
    const response = await fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const json = await response.json().catch(() => ({ ok: false, error: `HTTP ${response.status}` }));
    if (!response.ok && json.error) toast('error', `The sandbox refused that: ${json.error}`);
    return json;
  } catch (error) {
    toast('error', `The sandbox is not reachable (${error.message}).`);
    return { ok: false, error: 'unreachable' };
  }
}

// ----- what a person does -----

async function act(target, blockId, element, choice, control) {
  control?.classList.add('pending');
  try {
    await post('/ui/action', { user: state.me, ...target, blockId, actionId: element.action_id, ...choice });
  } finally {
    control?.classList.remove('pending');
  }
}

const ui = {
  get me() {
    return state.me;
  },
  get workspace() {
    return state.workspace;
  },
  directory,
  chosen: (container) => state.chosen[container] ?? {},
  act,
  openThread: (channel, ts) => {
    state.tab = undefined;
    state.channel = channel;
    state.thread = ts;
    syncUrl();
    render();
    $('thread-input').focus();
  },
  dismiss: (ts) => post('/ui/dismiss-ephemeral', { user: state.me, ts }),
};

const modal = new ModalView($('modal-root'), { directory, chosen: ui.chosen, act, post, me: () => state.me });

async function send(input, threadTs) {
  const text = input.value;
  if (text.trim() === '') return;
  input.value = '';
  // As in Slack, a message starting with "/" in the channel's composer is a slash command for the app.
  const result = !threadTs && text.trim().startsWith('/')
    ? await post('/ui/command', { user: state.me, channel: state.channel, text })
    : await post('/ui/message', { user: state.me, channel: state.channel, text, ...(threadTs ? { threadTs } : {}) });
  if (!result.ok) input.value = text;
}

function openHome() {
  state.tab = 'home';
  state.thread = undefined;
  syncUrl();
  render();
  // Slack tells the app the tab was opened; the app (re)publishes the view.
  void post('/ui/open-home', { user: state.me });
}

function composer(form, input, threadTs) {
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    void send(input, threadTs());
  });
  input.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      void send(input, threadTs());
    }
  });
}

// ----- rendering -----

function currentChannel() {
  return state.channels.find((c) => c.id === state.channel) ?? state.channels[0];
}

function renderSidebar() {
  const nav = $('sidebar');
  nav.replaceChildren(el('div', 'sidebar-title', state.workspace.team.name));
  const group = (title, list) => {
    nav.append(el('div', 'sidebar-section', title));
    for (const c of list) {
      const item = el('button', `sidebar-item${c.id === state.channel && state.tab !== 'home' ? ' active' : ''}`, c.type === 'im' ? `● ${state.workspace.bot.realName}` : `# ${c.name}`);
      item.type = 'button';
      item.dataset.channel = c.id;
      item.addEventListener('click', () => {
        state.tab = undefined;
        state.channel = c.id;
        state.thread = undefined;
        syncUrl();
        render();
      });
      nav.append(item);
    }
  };
  group('Channels', state.channels.filter((c) => c.type === 'channel'));
  group('Direct messages', state.channels.filter((c) => c.type === 'im'));
  nav.append(el('div', 'sidebar-section', 'Apps'));
  const home = el('button', `sidebar-item${state.tab === 'home' ? ' active' : ''}`, `⌂ ${state.workspace.bot.realName} · Home`);
  home.type = 'button';
  home.dataset.tab = 'home';
  home.addEventListener('click', openHome);
  nav.append(home);
}

let homeNode = { signature: undefined, node: undefined };

/** The bot's Home tab: its published view, whose buttons send block_actions from a view, as Slack's do. */
function renderHome() {
  $('channel-name').textContent = `${state.workspace.bot.realName} · Home`;
  $('channel-topic').textContent = 'Your approvals inbox: what waits for you, what you asked for, what you decided.';
  const view = state.home;
  const container = view ? `view:${view.id}` : 'none';
  const signature = JSON.stringify([view, state.chosen[container] ?? null, state.me]);
  if (homeNode.signature !== signature) {
    const node = el('div', 'home-view');
    if (!view) node.append(el('div', 'home-empty', 'Opening the Home tab…'));
    else
      node.append(
        renderBlocks(view.blocks, {
          directory,
          containerKey: `home:${container}`,
          chosen: state.chosen[container] ?? {},
          act: (blockId, element, choice, control) => act({ viewId: view.id }, blockId, element, choice, control),
        }),
      );
    homeNode = { signature, node };
  }
  reconcile($('messages'), [homeNode.node]);
}

const nodeCache = new Map();

/** Rebuilds a message's node only when what it shows changed, so open menus and focus survive other updates. */
function cachedNode(message, kind, where) {
  const container = `message:${message.channel}:${message.ts}`;
  const key = `${where}|${kind}|${container}`;
  const signature = JSON.stringify([message, state.chosen[container] ?? null, state.me]);
  const cached = nodeCache.get(key);
  if (cached && cached.signature === signature) return cached.node;
  const node = messageNode(message, kind, where, ui);
  nodeCache.set(key, { signature, node });
  return node;
}

function reconcile(list, nodes) {
  const stick = list.scrollHeight - list.scrollTop - list.clientHeight < 40;
  nodes.forEach((node, i) => {
    if (list.children[i] !== node) list.insertBefore(node, list.children[i] ?? null);
  });
  while (list.children.length > nodes.length) list.lastElementChild.remove();
  if (stick) list.scrollTop = list.scrollHeight;
}

function byTs(a, b) {
  return Number(a.ts) - Number(b.ts);
}

function renderChannel() {
  const channel = currentChannel();
  const isDm = channel.type === 'im';
  $('channel-name').textContent = isDm ? state.workspace.bot.realName : `# ${channel.name}`;
  $('channel-topic').textContent = isDm
    ? 'Your direct messages with the bot: no mention needed.'
    : `Mention @${state.workspace.bot.name} to start a run; its cards and answers appear in the thread.`;
  const messages = [...(state.messages.get(channel.id)?.values() ?? [])].filter(
    (m) => m.thread_ts === undefined || m.thread_ts === m.ts || m.subtype === 'thread_broadcast',
  );
  const ephemerals = [...state.ephemerals.values()].filter((e) => e.channel === channel.id && !e.thread_ts);
  const items = [...messages.map((m) => ['message', m]), ...ephemerals.map((e) => ['ephemeral', e])].sort((a, b) => byTs(a[1], b[1]));
  reconcile($('messages'), items.map(([kind, m]) => cachedNode(m, kind, 'channel')));
  $('message-input').placeholder = isDm ? `Message ${state.workspace.bot.realName}` : `Message #${channel.name} — try "@${state.workspace.bot.name} …"`;
  renderExamples(isDm);
}

function renderThread() {
  const pane = $('thread');
  const root = state.thread ? state.messages.get(state.channel)?.get(state.thread) : undefined;
  pane.classList.toggle('hidden', !root);
  if (!root) return reconcile($('thread-messages'), []);
  const replies = [...state.messages.get(state.channel).values()].filter((m) => m.thread_ts === root.ts && m.ts !== root.ts);
  const ephemerals = [...state.ephemerals.values()].filter((e) => e.channel === root.channel && e.thread_ts === root.ts);
  const items = [...replies.map((m) => ['message', m]), ...ephemerals.map((e) => ['ephemeral', e])].sort((a, b) => byTs(a[1], b[1]));
  const divider = nodeCache.get('thread-divider')?.node ?? el('div', 'thread-divider');
  nodeCache.set('thread-divider', { node: divider });
  divider.textContent = `${replies.length} ${replies.length === 1 ? 'reply' : 'replies'}`;
  reconcile($('thread-messages'), [cachedNode(root, 'message', 'thread'), divider, ...items.map(([kind, m]) => cachedNode(m, kind, 'thread'))]);
}

function renderExamples(isDm) {
  const box = $('examples');
  const mention = `@${state.workspace.bot.name} `;
  box.replaceChildren(...(state.examples.length ? [el('span', 'examples-label', 'Try:')] : []));
  for (const example of state.examples) {
    const text = isDm ? example.replace(mention, '') : example;
    const chip = el('button', 'example', text);
    chip.type = 'button';
    chip.addEventListener('click', () => {
      $('message-input').value = text;
      $('message-input').focus();
    });
    box.append(chip);
  }
}

function renderUserSwitcher() {
  const select = $('user-switcher');
  select.replaceChildren(...state.workspace.users.map((u) => {
    const option = el('option', '', `${u.name}${u.note ? ` (${u.note})` : ''}`);
    option.value = u.id;
    return option;
  }));
  select.value = state.me;
}

let frame = 0;
function render() {
  if (frame) return;
  frame = requestAnimationFrame(() => {
    frame = 0;
    if (!state.workspace) return;
    renderSidebar();
    const home = state.tab === 'home';
    $('composer').classList.toggle('hidden', home);
    $('examples').classList.toggle('hidden', home);
    if (home) renderHome();
    else renderChannel();
    renderThread();
    modal.render(state.views);
  });
}

function syncUrl() {
  const url = new URL(location.href);
  url.searchParams.set('user', state.me);
  url.searchParams.set('channel', state.channel);
  if (state.thread) url.searchParams.set('thread', state.thread);
  else url.searchParams.delete('thread');
  if (state.tab === 'home') url.searchParams.set('tab', 'home');
  else url.searchParams.delete('tab');
  history.replaceState(null, '', url);
}

// ----- state from the server -----

function load(snapshot) {
  state.seq = snapshot.seq;
  state.me = snapshot.me;
  state.workspace = snapshot.workspace;
  state.channels = snapshot.channels;
  state.examples = snapshot.examples ?? [];
  state.messages = new Map();
  for (const m of snapshot.messages) upsert(m);
  state.ephemerals = new Map(snapshot.ephemerals.map((e) => [e.ts, e]));
  state.views = snapshot.views;
  state.home = snapshot.home ?? null;
  state.chosen = snapshot.chosen;
  if (!state.channels.some((c) => c.id === state.channel)) {
    state.channel = state.channels.find((c) => c.type === 'im')?.id ?? state.channels[0].id;
    state.thread = undefined;
  }
  $('model-banner').textContent = `Model: ${snapshot.modelLabel}`;
  setConnected(snapshot.botConnected);
  localStorage.setItem('sandbox-user', state.me);
  nodeCache.clear();
  homeNode = { signature: undefined, node: undefined };
  renderUserSwitcher();
  syncUrl();
  render();
}

function upsert(message) {
  if (!state.channels.some((c) => c.id === message.channel)) return;
  let list = state.messages.get(message.channel);
  if (!list) state.messages.set(message.channel, (list = new Map()));
  list.set(message.ts, message);
}

function setConnected(connected) {
  $('bot-status').textContent = connected ? 'bot connected' : 'bot not connected';
  $('bot-status').className = connected ? 'status ok' : 'status off';
}

function toast(level, text) {
  const item = el('div', `toast toast-${level}`, text);
  item.title = 'Click to dismiss';
  item.addEventListener('click', () => item.remove());
  $('notices').append(item);
  if (level !== 'error') setTimeout(() => item.remove(), 8000);
  while ($('notices').children.length > 5) $('notices').firstElementChild.remove();
}

/** Changes that arrive while a snapshot is being fetched wait here, then apply if they are newer. */
let buffered;

// Shortcodes are drawn from the sandbox's emoji table; the first snapshot waits for it, so no
// message is first drawn with `:white_check_mark:` as text. Without it they stay text.
const emojiLoaded = fetch('/emoji.json')
  .then((response) => (response.ok ? response.json() : undefined))
  .then((table) => table && setEmojiTable(table))
  .catch(() => undefined);

async function refresh() {
  buffered ??= [];
  try {
    await emojiLoaded;
    const response = await fetch(`/ui/state?user=${encodeURIComponent(state.me)}`);
    const snapshot = await response.json();
    if (snapshot.ok) load(snapshot);
  } finally {
    const pending = buffered;
    buffered = undefined;
    for (const [handle, change] of pending) apply(handle, change);
    render();
  }
}

function apply(handle, change) {
  if (change.seq <= state.seq) return;
  state.seq = change.seq;
  handle(change);
}

function listen() {
  const stream = new EventSource('/events/stream');
  const on = (kind, handle) =>
    stream.addEventListener(kind, (e) => {
      const change = JSON.parse(e.data);
      if (buffered) return void buffered.push([handle, change]);
      apply(handle, change);
      render();
    });
  // Every (re)connect starts from a fresh snapshot, so nothing missed while disconnected is lost.
  stream.addEventListener('hello', () => void refresh().then(() => $('stream-status').classList.add('hidden')));
  stream.addEventListener('error', () => $('stream-status').classList.remove('hidden'));
  on('message', (c) => upsert(c.message));
  on('message_deleted', (c) => state.messages.get(c.channel)?.delete(c.ts));
  on('ephemeral', (c) => c.ephemeral.user === state.me && state.ephemerals.set(c.ephemeral.ts, c.ephemeral));
  on('ephemeral_deleted', (c) => state.ephemerals.delete(c.ts));
  on('views', (c) => c.user === state.me && (state.views = c.views));
  on('home', (c) => c.user === state.me && (state.home = c.view));
  on('chosen', (c) => c.user === state.me && (state.chosen[c.container] = c.values));
  on('notice', (c) => {
    toast(c.notice.level, c.notice.text);
    if (c.notice.text === 'The bot is connected.') setConnected(true);
  });
  on('reset', () => void refresh());
}

$('user-switcher').addEventListener('change', async (e) => {
  const result = await post('/ui/switch-user', { user: e.target.value });
  if (!result.ok) return;
  if (currentChannel()?.type === 'im') state.channel = result.channels.find((c) => c.type === 'im')?.id ?? 'C0GENERAL';
  load(result);
  if (state.tab === 'home') void post('/ui/open-home', { user: state.me });
});
$('thread-close').addEventListener('click', () => {
  state.thread = undefined;
  syncUrl();
  render();
});
// A link to a thread in this workspace (the Home tab's "open thread") opens it here, as Slack's client does.
document.addEventListener('click', (e) => {
  const a = e.target instanceof Element ? e.target.closest('a[href]') : null;
  if (!a) return;
  const url = new URL(a.href, location.href);
  const m = /^\/archives\/([A-Z0-9]+)\/p(\d+)(\d{6})$/.exec(url.pathname);
  if (url.origin !== location.origin || !m) return;
  e.preventDefault();
  const ts = `${m[2]}.${m[3]}`;
  ui.openThread(m[1], url.searchParams.get('thread_ts') ?? ts);
});
composer($('composer'), $('message-input'), () => undefined);
composer($('thread-composer'), $('thread-input'), () => state.thread);
listen();
if (state.tab === 'home') void post('/ui/open-home', { user: state.me });
