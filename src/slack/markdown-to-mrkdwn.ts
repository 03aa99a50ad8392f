import { codeFence } from './mrkdwn/code-fence.js';
import { escapeMrkdwn } from './mrkdwn/escape-mrkdwn.js';

/**
 * Converts the Markdown models write into Slack mrkdwn.
 *
 * Every piece of text is escaped; the only raw `<…>` tokens in the output are links this
 * function builds itself, and only for http(s) and mailto URLs, so a model can neither
 * mention `@channel` nor smuggle a `javascript:` link into a message.
 */
export function markdownToMrkdwn(markdown: string): string {
  const lines = markdown.replace(/\r\n?/g, '\n').split('\n');
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const fence = /^([ \t]*)(`{3,}|~{3,})(.*)$/.exec(line);
    // CommonMark: a backtick fence's info string cannot contain backticks, so ```x``` is a code span.
    if (fence && !(fence[2]!.startsWith('`') && fence[3]!.includes('`'))) {
      const indent = indentWidth(fence[1]!);
      const marker = fence[2]!;
      const closing = new RegExp(`^[ \\t]*${marker[0] === '`' ? '`' : '~'}{${marker.length},}[ \\t]*$`);
      const body: string[] = [];
      let j = i + 1;
      while (j < lines.length && !closing.test(lines[j]!)) {
        body.push(stripIndent(lines[j]!, indent));
        j++;
      }
      out.push(codeFence(body.join('\n')));
      i = j;
      continue;
    }
    out.push(convertLine(line));
  }
  return out.join('\n');
}

function indentWidth(whitespace: string): number {
  let width = 0;
  for (const c of whitespace) width += c === '\t' ? 4 : 1;
  return width;
}

function stripIndent(line: string, indent: number): string {
  let i = 0;
  let width = 0;
  while (i < line.length && width < indent && (line[i] === ' ' || line[i] === '\t')) {
    width += line[i] === '\t' ? 4 : 1;
    i++;
  }
  return line.slice(i);
}

function convertLine(line: string): string {
  if (/^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/.test(line)) return '──────────';

  const heading = /^ {0,3}#{1,6}(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/.exec(line);
  if (heading) {
    // Slack has no headings; bold is the closest, and bold inside it would only add stray stars.
    const text = convertInline(heading[1] ?? '', true);
    return text === '' ? '' : `*${text}*`;
  }

  // Slack quotes one level deep, so nested markers collapse into one.
  const quote = /^ {0,3}(?:>[ \t]?)+(.*)$/.exec(line);
  if (quote) return '> ' + convertLine(quote[1]!);

  const bullet = /^([ \t]*)[-*+][ \t]+(.*)$/.exec(line);
  if (bullet) {
    const level = listLevel(bullet[1]!);
    let rest = bullet[2]!;
    let mark = level % 2 === 0 ? '•' : '◦';
    const task = /^\[([ xX])\][ \t]+(.*)$/.exec(rest);
    if (task) {
      mark = task[1] === ' ' ? '☐' : '☑';
      rest = task[2]!;
    }
    return `${'    '.repeat(level)}${mark} ${convertInline(rest)}`;
  }

  const ordered = /^([ \t]*)(\d{1,9})[.)][ \t]+(.*)$/.exec(line);
  if (ordered) return `${'    '.repeat(listLevel(ordered[1]!))}${ordered[2]!}. ${convertInline(ordered[3]!)}`;

  return convertInline(line);
}

function listLevel(whitespace: string): number {
  return Math.min(Math.ceil(indentWidth(whitespace) / 4), 6);
}

function convertInline(text: string, inBold = false): string {
  return new InlineParser(text, inBold, true).run();
}

interface Parsed {
  out: string;
  end: number;
}

const SAFE_URL = /^(?:https?:\/\/|mailto:)\S/i;
const PUNCTUATION = /[!-/:-@[-`{-~]/;
const WORD_CHAR = /[\p{L}\p{N}]/u;
const WHITESPACE = /\s/;
/** Deeper emphasis than this is rendered literally; it also bounds recursion on hostile input. */
const MAX_NESTING = 16;
/**
 * Emphasis, link labels and code spans longer than this are left as literal text. Real ones are
 * far shorter; the bound keeps hostile input (thousands of unmatched openers) from taking
 * quadratic time.
 */
const MAX_SPAN = 2000;

/** Slack link targets: entities for & < >, and no `|` or space, which would end the URL early. */
function slackUrl(url: string): string {
  return escapeMrkdwn(url).replace(/\|/g, '%7C').replace(/ /g, '%20');
}

class InlineParser {
  /**
   * Failed attempts to find a closing delimiter are remembered per (start, delimiter): without
   * this, text such as `**a **b **c …` takes exponential time.
   */
  private readonly memo = new Map<string, Parsed | null>();
  /** Positions where each delimiter could close, so an opener with no closer in reach fails at once. */
  private readonly closers = new Map<string, number[]>();
  private readonly lastBracket: number;
  private readonly lastParen: number;

  constructor(
    private readonly s: string,
    private readonly inBold: boolean,
    private readonly allowLinks: boolean,
  ) {
    this.lastBracket = s.lastIndexOf(']');
    this.lastParen = s.lastIndexOf(')');
  }

  run(): string {
    return this.parse(0, null, 0)?.out ?? '';
  }

  private parse(start: number, closer: string | null, depth: number): Parsed | null {
    const key = `${start}:${closer ?? ''}`;
    if (closer !== null) {
      const known = this.memo.get(key);
      if (known !== undefined) return known;
      if (!this.closerInReach(closer, start)) {
        this.memo.set(key, null);
        return null;
      }
    }
    const s = this.s;
    let out = '';
    let i = start;
    while (i < s.length) {
      if (closer !== null && i - start > MAX_SPAN) break;
      if (closer !== null && i > start && s.startsWith(closer, i) && this.canClose(i, closer)) {
        const done = { out, end: i + closer.length };
        this.memo.set(key, done);
        return done;
      }
      const ch = s[i]!;
      if (ch === '\\' && i + 1 < s.length && PUNCTUATION.test(s[i + 1]!)) {
        out += escapeMrkdwn(s[i + 1]!);
        i += 2;
        continue;
      }
      if (ch === '`') {
        const span = this.codeSpan(i);
        out += span.out;
        i = span.end;
        continue;
      }
      if (this.allowLinks) {
        const link = this.linkAt(i);
        if (link) {
          out += link.out;
          i = link.end;
          continue;
        }
      }
      const delim = this.delimiterAt(i);
      if (delim !== null) {
        if (depth < MAX_NESTING && this.canOpen(i, delim)) {
          const inner = this.parse(i + delim.length, delim, depth + 1);
          if (inner) {
            out += this.wrap(delim, inner.out);
            i = inner.end;
            continue;
          }
        }
        out += delim;
        i += delim.length;
        continue;
      }
      out += escapeMrkdwn(ch);
      i++;
    }
    if (closer !== null) {
      this.memo.set(key, null);
      return null;
    }
    return { out, end: i };
  }

  private closerInReach(closer: string, start: number): boolean {
    let positions = this.closers.get(closer);
    if (positions === undefined) {
      positions = [];
      for (let i = this.s.indexOf(closer, 1); i !== -1; i = this.s.indexOf(closer, i + 1)) {
        if (this.canClose(i, closer)) positions.push(i);
      }
      this.closers.set(closer, positions);
    }
    let lo = 0;
    let hi = positions.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (positions[mid]! <= start) lo = mid + 1;
      else hi = mid;
    }
    const next = positions[lo];
    return next !== undefined && next - start <= MAX_SPAN;
  }

  private delimiterAt(i: number): string | null {
    for (const d of ['**', '__', '~~', '*', '_', '~']) if (this.s.startsWith(d, i)) return d;
    return null;
  }

  private canOpen(i: number, delim: string): boolean {
    const next = this.s[i + delim.length];
    if (next === undefined || WHITESPACE.test(next)) return false;
    if (delim[0] === '_') {
      const prev = this.s[i - 1];
      if (prev !== undefined && WORD_CHAR.test(prev)) return false;
    }
    return true;
  }

  private canClose(i: number, delim: string): boolean {
    const prev = this.s[i - 1];
    if (prev === undefined || WHITESPACE.test(prev)) return false;
    if (delim[0] === '_') {
      const next = this.s[i + delim.length];
      if (next !== undefined && WORD_CHAR.test(next)) return false;
    }
    return true;
  }

  private wrap(delim: string, inner: string): string {
    if (delim === '**' || delim === '__') return this.inBold ? inner : `*${inner}*`;
    if (delim === '*' || delim === '_') return `_${inner}_`;
    return `~${inner}~`;
  }

  /** A code span's content is escaped and nothing else: no emphasis, no links. */
  private codeSpan(i: number): Parsed {
    const s = this.s;
    let n = i;
    while (s[n] === '`') n++;
    const run = n - i;
    let j = n;
    for (;;) {
      const k = s.indexOf('`', j);
      if (k === -1 || k - n > MAX_SPAN) break;
      let m = k;
      while (s[m] === '`') m++;
      if (m - k === run) {
        let content = s.slice(n, k);
        if (content.length > 2 && content.startsWith(' ') && content.endsWith(' ') && content.trim() !== '') {
          content = content.slice(1, -1);
        }
        if (content.trim() === '') break;
        // Slack cannot escape a backtick inside inline code; a look-alike keeps the span whole.
        return { out: '`' + escapeMrkdwn(content.replace(/`/g, 'ˋ')) + '`', end: m };
      }
      j = m;
    }
    return { out: s.slice(i, n), end: n };
  }

  private linkAt(i: number): Parsed | null {
    const s = this.s;
    const ch = s[i];
    if (ch === '[') return this.inlineLink(i);
    if (ch === '!' && s[i + 1] === '[') return this.inlineLink(i + 1);
    if (ch === '<') {
      const auto = /<((?:https?:\/\/|mailto:)[^\s<>]+)>/iy;
      auto.lastIndex = i;
      const m = auto.exec(s);
      if (m) return { out: `<${slackUrl(m[1]!)}>`, end: auto.lastIndex };
      return null;
    }
    if ((ch === 'h' || ch === 'H') && (i === 0 || !/[\p{L}\p{N}/]/u.test(s[i - 1]!))) return this.bareUrl(i);
    return null;
  }

  /** Bare URLs become explicit links because cards send mrkdwn with `verbatim: true`. */
  private bareUrl(i: number): Parsed | null {
    const re = /https?:\/\/[^\s<>]+/iy;
    re.lastIndex = i;
    const m = re.exec(this.s);
    if (!m) return null;
    let url = m[0];
    for (;;) {
      const last = url[url.length - 1];
      if (last !== undefined && /[.,;:!?'"*_~]/.test(last)) url = url.slice(0, -1);
      else if (last === ')' && count(url, '(') < count(url, ')')) url = url.slice(0, -1);
      else break;
    }
    if (/^https?:\/\/$/i.test(url)) return null;
    return { out: `<${slackUrl(url)}>`, end: i + url.length };
  }

  /** `[label](destination "title")`, with the destination optionally in angle brackets. */
  private inlineLink(i: number): Parsed | null {
    const s = this.s;
    // Most '[' in hostile or plain text are never links; these checks make that cheap to see.
    if (i > this.lastBracket || i > this.lastParen) return null;
    let depth = 0;
    let k = i;
    const limit = Math.min(s.length, i + MAX_SPAN);
    for (; k < limit; k++) {
      const c = s[k];
      if (c === '\\') k++;
      else if (c === '[') depth++;
      else if (c === ']' && --depth === 0) break;
    }
    if (k >= limit || s[k + 1] !== '(') return null;
    const label = s.slice(i + 1, k);
    let p = k + 2;
    while (s[p] === ' ') p++;
    let url: string;
    if (s[p] === '<') {
      const close = s.indexOf('>', p);
      if (close === -1) return null;
      url = s.slice(p + 1, close);
      p = close + 1;
    } else {
      const begin = p;
      let parens = 0;
      while (p < s.length) {
        if (p - begin > MAX_SPAN) return null;
        const c = s[p]!;
        if (c === '\\') {
          p += 2;
          continue;
        }
        if (c === ' ' || c === '\t' || c === '\n' || WHITESPACE.test(c)) break;
        if (c === '(') parens++;
        else if (c === ')') {
          if (parens === 0) break;
          parens--;
        }
        p++;
      }
      url = s.slice(begin, p);
    }
    while (s[p] === ' ') p++;
    const quote = s[p];
    if (quote === '"' || quote === "'") {
      const close = s.indexOf(quote, p + 1);
      if (close === -1) return null;
      p = close + 1;
      while (s[p] === ' ') p++;
    }
    if (s[p] !== ')') return null;
    const end = p + 1;
    // Links cannot nest in Slack, so the label is converted with links turned off.
    const text = new InlineParser(label, this.inBold, false).run();
    if (SAFE_URL.test(url)) return { out: text === '' ? `<${slackUrl(url)}>` : `<${slackUrl(url)}|${text}>`, end };
    if (url === '') return { out: text, end };
    return { out: text === '' ? escapeMrkdwn(url) : `${text} (${escapeMrkdwn(url)})`, end };
  }
}

function count(text: string, ch: string): number {
  return text.split(ch).length - 1;
}
