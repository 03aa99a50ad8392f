// The `markdown` block: standard Markdown (not mrkdwn), as Slack renders it for AI apps. A small
// subset is enough for a preview: headings, paragraphs, lists, quotes, fenced code, rules, and
// inline code, bold, italic, strikethrough and links. Built with textContent only.

function el(tag, className) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  return node;
}

const INLINE = [
  { type: 'code', re: /`([^`]+)`/ },
  { type: 'link', re: /\[([^\]]+)\]\(([^)\s]+)\)/ },
  { type: 'bold', re: /\*\*(?=\S)([\s\S]*?\S)\*\*|__(?=\S)([\s\S]*?\S)__/ },
  { type: 'strike', re: /~~(?=\S)([\s\S]*?\S)~~/ },
  { type: 'italic', re: /(?<![\w*])\*(?=\S)([^*]*?\S)\*(?![\w*])|(?<!\w)_(?=\S)([^_]*?\S)_(?!\w)/ },
  { type: 'autolink', re: /<(https?:\/\/[^\s>]+)>|(https?:\/\/[^\s<>()]+[^\s<>().,;:!?])/ },
];

function inlineMarkdown(text, parent) {
  let rest = text;
  while (rest !== '') {
    let best;
    for (const { type, re } of INLINE) {
      const m = re.exec(rest);
      if (m && (!best || m.index < best.m.index)) best = { type, m };
    }
    if (!best) break;
    const { type, m } = best;
    if (m.index > 0) parent.append(document.createTextNode(rest.slice(0, m.index)));
    if (type === 'code') {
      const code = el('code', 'mrkdwn-code');
      code.textContent = m[1];
      parent.append(code);
    } else if (type === 'link' || type === 'autolink') {
      const url = type === 'link' ? m[2] : (m[1] ?? m[2]);
      const safe = /^(https?:|mailto:)/i.test(url);
      const a = el(safe ? 'a' : 'span', 'link');
      if (safe) Object.assign(a, { href: url, target: '_blank', rel: 'noopener noreferrer' });
      if (type === 'link') inlineMarkdown(m[1], a);
      else a.textContent = url;
      parent.append(a);
    } else {
      const node = el({ bold: 'strong', italic: 'em', strike: 's' }[type]);
      inlineMarkdown(m[1] ?? m[2] ?? '', node);
      parent.append(node);
    }
    rest = rest.slice(m.index + m[0].length);
  }
  if (rest !== '') parent.append(document.createTextNode(rest));
  return parent;
}

const LIST_ITEM = /^(\s*)([-*+]|\d+[.)])\s+(.*)$/;

/** Markdown text as a DOM fragment. */
export function renderMarkdown(text) {
  const root = el('div', 'markdown');
  const lines = String(text ?? '').split('\n');
  let paragraph = [];
  const flush = () => {
    if (paragraph.length === 0) return;
    const p = el('p');
    paragraph.forEach((line, i) => {
      if (i > 0) p.append(el('br'));
      inlineMarkdown(line, p);
    });
    root.append(p);
    paragraph = [];
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const fence = /^\s*(```|~~~)/.exec(line);
    if (fence) {
      flush();
      const body = [];
      for (i++; i < lines.length && !lines[i].trim().startsWith(fence[1]); i++) body.push(lines[i]);
      const pre = el('pre', 'mrkdwn-pre');
      pre.textContent = body.join('\n');
      root.append(pre);
      continue;
    }
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    if (heading) {
      flush();
      root.append(inlineMarkdown(heading[2], el(`h${Math.min(6, heading[1].length + 2)}`)));
      continue;
    }
    if (/^\s*([-*_])(\s*\1){2,}\s*$/.test(line)) {
      flush();
      root.append(el('hr'));
      continue;
    }
    if (/^\s*>/.test(line)) {
      flush();
      const quote = el('blockquote', 'mrkdwn-quote');
      for (; i < lines.length && /^\s*>/.test(lines[i]); i++) {
        if (quote.childNodes.length > 0) quote.append(el('br'));
        inlineMarkdown(lines[i].replace(/^\s*>\s?/, ''), quote);
      }
      i--;
      root.append(quote);
      continue;
    }
    if (LIST_ITEM.test(line)) {
      flush();
      const ordered = /^\s*\d/.test(line);
      const list = el(ordered ? 'ol' : 'ul');
      for (; i < lines.length && LIST_ITEM.test(lines[i]); i++) {
        const [, indent, , body] = LIST_ITEM.exec(lines[i]);
        const li = inlineMarkdown(body, el('li'));
        if (indent.length >= 2) li.classList.add('nested');
        list.append(li);
      }
      i--;
      root.append(list);
      continue;
    }
    if (line.trim() === '') flush();
    else paragraph.push(line);
  }
  flush();
  return root;
}
