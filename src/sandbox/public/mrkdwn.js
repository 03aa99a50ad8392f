// Slack's mrkdwn, parsed into a small tree and then built as DOM nodes with textContent only.
// The bot sends text it has already escaped (&amp; &lt; &gt;); the parser decodes those entities
// into characters of text nodes, never into markup, so nothing the model wrote can become HTML.

const PLACEHOLDER = 0xe000;

// Shortcode → emoji, from the table the sandbox serves at /emoji.json (iamcal's emoji-data, the
// names Slack uses); empty until setEmojiTable is given it, so a shortcode shows as typed meanwhile.
let table = { emoji: {}, skins: {} };

export function setEmojiTable(next) {
  table = { emoji: next?.emoji ?? {}, skins: next?.skins ?? {} };
}

/** `thumbsup` → 👍; with a skin tone 2 … 6 (`:thumbsup::skin-tone-3:`) the toned variant where there is one. */
export function emojiFor(name, skinTone) {
  if (!Object.hasOwn(table.emoji, name)) return undefined;
  const toned = skinTone >= 2 && skinTone <= 6 && Object.hasOwn(table.skins, name) ? table.skins[name][skinTone - 2] : undefined;
  return toned ?? table.emoji[name];
}

/** A reaction's or emoji element's name as Slack writes it: `thumbsup::skin-tone-2`. */
export function emojiForName(fullName, skinTone) {
  const m = /^(.+?)::skin-tone-([2-6])$/.exec(fullName);
  return m ? emojiFor(m[1], Number(m[2])) : emojiFor(fullName, skinTone);
}

function decodeEntities(text) {
  return text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}

/** One `<…>` token: a mention, a link, a date or a special command. */
function parseAngle(inner) {
  const bar = inner.indexOf('|');
  const target = bar < 0 ? inner : inner.slice(0, bar);
  const label = bar < 0 ? undefined : decodeEntities(inner.slice(bar + 1));
  if (target.startsWith('@')) return { type: 'user', id: target.slice(1), label };
  if (target.startsWith('#')) return { type: 'channel', id: target.slice(1), label };
  if (target.startsWith('!subteam^')) return { type: 'usergroup', id: target.slice(9), label };
  if (target.startsWith('!date^')) {
    const [, ts, format = '{date}', link] = target.split('^');
    return { type: 'date', ts: Number(ts), format, link, fallback: label ?? '' };
  }
  if (target.startsWith('!')) return { type: 'broadcast', range: target.slice(1), label };
  return { type: 'link', url: decodeEntities(target), label };
}

const INLINE = [
  { type: 'code', re: /`([^`\n]+)`/ },
  { type: 'bold', re: /(^|[^\w*])\*(?=\S)([^*\n]*?\S)\*(?![\w*])/ },
  { type: 'italic', re: /(^|[^\w_])_(?=\S)([^_\n]*?\S)_(?![\w_])/ },
  { type: 'strike', re: /(^|[^\w~])~(?=\S)([^~\n]*?\S)~(?![\w~])/ },
];

/** `:name:`, optionally followed by Slack's skin tone, `:name::skin-tone-2:`. */
const SHORTCODE = /:([a-z0-9_+-]+):(?::skin-tone-([2-6]):)?/g;

/** Text with placeholders back to angle tokens, entities decoded and :emoji: found. */
function textNodes(text, angles) {
  const out = [];
  const push = (s) => {
    if (s === '') return;
    const decoded = decodeEntities(s);
    let at = 0;
    for (const m of decoded.matchAll(SHORTCODE)) {
      if (emojiFor(m[1]) === undefined) continue;
      if (m.index > at) out.push({ type: 'text', text: decoded.slice(at, m.index) });
      out.push(m[2] ? { type: 'emoji', name: m[1], skinTone: Number(m[2]) } : { type: 'emoji', name: m[1] });
      at = m.index + m[0].length;
    }
    if (at < decoded.length) out.push({ type: 'text', text: decoded.slice(at) });
  };
  let last = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i) - PLACEHOLDER;
    if (code >= 0 && code < angles.length) {
      push(text.slice(last, i));
      out.push(angles[code]);
      last = i + 1;
    }
  }
  push(text.slice(last));
  return out;
}

function parseInline(text, angles) {
  const out = [];
  let rest = text;
  while (rest !== '') {
    let best;
    for (const { type, re } of INLINE) {
      const m = re.exec(rest);
      if (!m) continue;
      const lead = type === 'code' ? 0 : m[1].length;
      const start = m.index + lead;
      if (!best || start < best.start) best = { type, m, start, lead };
    }
    if (!best) break;
    out.push(...textNodes(rest.slice(0, best.start), angles));
    const { type, m } = best;
    if (type === 'code') out.push({ type: 'code', children: textNodes(m[1], angles) });
    else out.push({ type, children: parseInline(m[2], angles) });
    rest = rest.slice(m.index + m[0].length);
  }
  out.push(...textNodes(rest, angles));
  return out;
}

/** Lines (with `>` quotes) of a stretch of text outside code blocks. */
function parseLines(text, angles) {
  const out = [];
  const lines = text.split('\n');
  lines.forEach((line, i) => {
    const quote = /^(?:>|&gt;) ?/.exec(line);
    if (quote) out.push({ type: 'quote', children: parseInline(line.slice(quote[0].length), angles) });
    else {
      out.push(...parseInline(line, angles));
      if (i < lines.length - 1) out.push({ type: 'br' });
    }
  });
  return out;
}

/** mrkdwn text → nodes: text, br, bold, italic, strike, code, pre, quote, link, user, channel, usergroup, broadcast, date, emoji. */
export function parseMrkdwn(input) {
  const angles = [];
  const text = String(input ?? '').replace(/<([^<>\n]+)>/g, (_, inner) => {
    angles.push(parseAngle(inner));
    return String.fromCharCode(PLACEHOLDER + angles.length - 1);
  });
  const out = [];
  // A code block is a block of its own: the line breaks right around its fences are not shown.
  const lines = (s, afterCode, beforeCode) => {
    let t = afterCode ? s.replace(/^\n/, '') : s;
    if (beforeCode) t = t.replace(/\n$/, '');
    if (t !== '') out.push(...parseLines(t, angles));
  };
  let at = 0;
  for (const m of text.matchAll(/```([\s\S]*?)```/g)) {
    lines(text.slice(at, m.index), at > 0, true);
    out.push({ type: 'pre', children: textNodes(m[1].replace(/^\n/, '').replace(/\n$/, ''), angles) });
    at = m.index + m[0].length;
  }
  lines(text.slice(at), at > 0, false);
  return out;
}

const DAY_MS = 86_400_000;

function ordinal(n) {
  const s = ['th', 'st', 'nd', 'rd'];
  const v = n % 100;
  return `${n}${s[(v - 20) % 10] ?? s[v] ?? s[0]}`;
}

/** `<!date^…>` formatting, in the reader's time zone like Slack does it. */
export function formatSlackDate(seconds, format, now = Date.now(), timeZone = undefined) {
  if (!Number.isFinite(seconds)) return undefined;
  const date = new Date(seconds * 1000);
  const opts = timeZone ? { timeZone } : {};
  const part = (o) => new Intl.DateTimeFormat('en-US', { ...opts, ...o }).format(date);
  const dayKey = (d) => new Intl.DateTimeFormat('en-CA', { ...opts, year: 'numeric', month: '2-digit', day: '2-digit' }).format(d);
  const dayNum = Number(part({ day: 'numeric' }));
  const full = `${part({ month: 'long' })} ${ordinal(dayNum)}, ${part({ year: 'numeric' })}`;
  const pretty = (fallback) => {
    const key = dayKey(date);
    if (key === dayKey(new Date(now))) return 'today';
    if (key === dayKey(new Date(now - DAY_MS))) return 'yesterday';
    if (key === dayKey(new Date(now + DAY_MS))) return 'tomorrow';
    return fallback;
  };
  const ago = () => {
    const diff = Math.round((now - date.getTime()) / 1000);
    const abs = Math.abs(diff);
    const [n, unit] = abs < 60 ? [abs, 'second'] : abs < 3600 ? [Math.round(abs / 60), 'minute'] : abs < 86400 ? [Math.round(abs / 3600), 'hour'] : [Math.round(abs / 86400), 'day'];
    const words = `${n} ${unit}${n === 1 ? '' : 's'}`;
    return diff >= 0 ? `${words} ago` : `in ${words}`;
  };
  const tokens = {
    date_num: () => dayKey(date),
    date: () => full,
    date_short: () => part({ month: 'short', day: 'numeric', year: 'numeric' }),
    date_long: () => `${part({ weekday: 'long' })}, ${full}`,
    date_pretty: () => pretty(full),
    date_short_pretty: () => pretty(part({ month: 'short', day: 'numeric', year: 'numeric' })),
    date_long_pretty: () => pretty(`${part({ weekday: 'long' })}, ${full}`),
    time: () => part({ hour: 'numeric', minute: '2-digit' }),
    time_secs: () => part({ hour: 'numeric', minute: '2-digit', second: '2-digit' }),
    ago,
  };
  return format.replace(/\{(\w+)\}/g, (whole, name) => (tokens[name] ? tokens[name]() : whole));
}

function safeHref(url) {
  return /^(https?:|mailto:)/i.test(url) ? url : undefined;
}

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/** How a mention reads: `@alice`, `#general`, `@finance`; unknown ids are shown as they are. */
function mentionText(node, directory) {
  switch (node.type) {
    case 'user':
      return `@${node.label ?? directory.user(node.id) ?? node.id}`;
    case 'channel':
      return `#${node.label ?? directory.channel(node.id) ?? node.id}`;
    case 'usergroup':
      return node.label ?? `@${directory.usergroup(node.id) ?? node.id}`;
    default:
      return `@${node.label ?? node.range}`;
  }
}

function buildNodes(nodes, directory, parent) {
  for (const node of nodes) {
    switch (node.type) {
      case 'text':
        parent.append(document.createTextNode(node.text));
        break;
      case 'br':
        parent.append(document.createElement('br'));
        break;
      case 'bold':
      case 'italic':
      case 'strike': {
        const tag = { bold: 'strong', italic: 'em', strike: 's' }[node.type];
        const child = el(tag);
        buildNodes(node.children, directory, child);
        parent.append(child);
        break;
      }
      case 'code':
      case 'pre':
      case 'quote': {
        const child = el(node.type === 'code' ? 'code' : node.type === 'pre' ? 'pre' : 'blockquote', `mrkdwn-${node.type}`);
        buildNodes(node.children, directory, child);
        parent.append(child);
        break;
      }
      case 'emoji':
        parent.append(el('span', 'emoji', emojiFor(node.name, node.skinTone) ?? `:${node.name}:`));
        break;
      case 'link': {
        const href = safeHref(node.url);
        const a = el(href ? 'a' : 'span', 'link', node.label ?? node.url);
        if (href) Object.assign(a, { href, target: '_blank', rel: 'noopener noreferrer' });
        parent.append(a);
        break;
      }
      case 'date': {
        const text = formatSlackDate(node.ts, node.format) ?? node.fallback;
        const span = el('time', 'date', text);
        span.title = node.fallback;
        parent.append(span);
        break;
      }
      default:
        parent.append(el('span', `mention mention-${node.type}`, mentionText(node, directory)));
    }
  }
  return parent;
}

/** mrkdwn text as a DOM fragment. */
export function renderMrkdwn(text, directory) {
  return buildNodes(parseMrkdwn(text), directory, document.createDocumentFragment());
}

/** plain_text: no formatting at all, only :emoji: when the text object asks for it. */
export function renderPlain(text, emoji = true) {
  const s = String(text ?? '');
  if (!emoji) return document.createTextNode(s);
  return document.createTextNode(s.replace(SHORTCODE, (whole, name, tone) => emojiFor(name, tone ? Number(tone) : undefined) ?? whole));
}

/** A text object of either kind. */
export function renderTextObject(obj, directory) {
  if (!obj || typeof obj !== 'object') return document.createTextNode('');
  if (obj.type === 'mrkdwn') return renderMrkdwn(obj.text, directory);
  return renderPlain(obj.text, obj.emoji !== false);
}
