import { LIMITS } from '../limits.js';

const FENCE = '```';
const REOPEN = FENCE + '\n';
const CLOSE = '\n' + FENCE;

interface Unit {
  kind: 'text' | 'code';
  lines: string[];
  /** Whether a blank line separated this unit from the previous one. */
  blankBefore: boolean;
}

/**
 * Splits mrkdwn into chunks of at most `limit` characters (one section block each).
 *
 * Cuts prefer a paragraph break, then a line break, then a space; a code block that has to be
 * cut is closed at the end of one chunk and reopened in the next, so no chunk leaves a fence
 * open (which would turn the rest of the message into code). A `<…>` link or mention is never
 * cut in half.
 */
export function splitMessage(text: string, limit: number = LIMITS.sectionText): string[] {
  if (!Number.isInteger(limit) || limit < 16) throw new RangeError(`splitMessage: limit must be an integer ≥ 16, got ${limit}`);
  if (text.trim() === '') return [];
  if (text.length <= limit) return [text];

  const chunks: string[] = [];
  let current = '';
  const flush = (): void => {
    if (current.trim() !== '') chunks.push(current);
    current = '';
  };

  for (const unit of toUnits(text)) {
    const body = unit.lines.join('\n');
    const joined = current === '' ? body : current + (unit.blankBefore ? '\n\n' : '\n') + body;
    if (joined.length <= limit) {
      current = joined;
      continue;
    }
    flush();
    if (body.length <= limit) {
      current = body;
      continue;
    }
    const pieces = unit.kind === 'code' ? splitCode(unit.lines, limit) : splitText(unit.lines, limit);
    chunks.push(...pieces.slice(0, -1));
    current = pieces[pieces.length - 1] ?? '';
  }
  flush();
  return chunks;
}

function fenceCount(line: string): number {
  return line.split(FENCE).length - 1;
}

/** Paragraphs (runs of non-blank lines) and code blocks (opening fence to closing fence). */
function toUnits(text: string): Unit[] {
  const lines = text.split('\n');
  const units: Unit[] = [];
  let blankBefore = false;
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    if (fenceCount(line) % 2 === 1) {
      const block = [line];
      i++;
      while (i < lines.length) {
        const next = lines[i]!;
        block.push(next);
        i++;
        if (fenceCount(next) % 2 === 1) break;
      }
      units.push({ kind: 'code', lines: block, blankBefore });
      blankBefore = false;
      continue;
    }
    if (line.trim() === '') {
      blankBefore = units.length > 0;
      i++;
      continue;
    }
    const paragraph: string[] = [];
    while (i < lines.length && lines[i]!.trim() !== '' && fenceCount(lines[i]!) % 2 === 0) {
      paragraph.push(lines[i]!);
      i++;
    }
    units.push({ kind: 'text', lines: paragraph, blankBefore });
    blankBefore = false;
  }
  return units;
}

/** Packs pieces greedily with `separator`, splitting any single piece that is still too long. */
function pack(pieces: string[], separator: string, limit: number, splitPiece: (piece: string) => string[]): string[] {
  const out: string[] = [];
  let current: string | null = null;
  for (const piece of pieces) {
    if (current !== null && current.length + separator.length + piece.length <= limit) {
      current += separator + piece;
      continue;
    }
    if (current !== null) out.push(current);
    current = null;
    if (piece.length <= limit) {
      current = piece;
      continue;
    }
    const parts = splitPiece(piece);
    out.push(...parts.slice(0, -1));
    current = parts[parts.length - 1] ?? null;
  }
  if (current !== null) out.push(current);
  return out;
}

function splitText(lines: string[], limit: number): string[] {
  return pack(lines, '\n', limit, (line) => pack(words(line), ' ', limit, (word) => hardSplit(word, limit)));
}

/** Space-separated words, except that a `<…>` token (a link label may contain spaces) stays whole. */
function words(line: string): string[] {
  const out: string[] = [];
  let current = '';
  let inToken = false;
  for (const c of line) {
    if (c === '<') inToken = true;
    else if (c === '>') inToken = false;
    if (c === ' ' && !inToken) {
      out.push(current);
      current = '';
    } else {
      current += c;
    }
  }
  out.push(current);
  return out.filter((w) => w !== '');
}

/** Last resort: fixed-size slices, backing off so no entity, token or surrogate pair is cut. */
function hardSplit(text: string, limit: number): string[] {
  const out: string[] = [];
  let rest = text;
  while (rest.length > limit) {
    let cut = limit;
    const head = rest.slice(0, cut);
    const amp = head.lastIndexOf('&');
    if (amp > 0 && amp > head.length - 8 && !head.slice(amp).includes(';')) cut = amp;
    const open = head.lastIndexOf('<');
    if (open > 0 && open > head.lastIndexOf('>') && open < cut) cut = open;
    const code = rest.charCodeAt(cut - 1);
    if (code >= 0xd800 && code <= 0xdbff) cut--;
    if (cut < 1) cut = limit;
    out.push(rest.slice(0, cut));
    rest = rest.slice(cut);
  }
  if (rest !== '') out.push(rest);
  return out;
}

/**
 * Splits a code block by lines: every chunk but the last gets a closing fence, every chunk but
 * the first a reopening one, and the limit includes both.
 */
function splitCode(lines: string[], limit: number): string[] {
  const budget = limit - REOPEN.length - CLOSE.length;
  const pieces = pack(lines, '\n', budget, (line) => hardSplit(line, budget));
  return pieces.map((piece, i) => {
    let chunk = piece;
    if (i > 0) chunk = REOPEN + chunk;
    if (i < pieces.length - 1) chunk += CLOSE;
    return chunk;
  });
}
