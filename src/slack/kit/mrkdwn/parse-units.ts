/**
 * Cuts Markdown into the pieces `markdownToMrkdwn` hands to the parser one at a time, so that
 * hostile input costs linear time.
 *
 * micromark is linear on ordinary text but not on every input: unmatched `[`/`](` runs make a
 * paragraph quadratic, and each container marker on one line (`> > > …`, `- - - …`) costs time
 * quadratic in their number and a stack frame each. So:
 * - a line keeps at most MAX_CONTAINERS leading container markers; the next one is escaped and
 *   the rest of the line is plain text (Slack shows one quote level and the converter at most
 *   six list levels anyway);
 * - a block of non-blank lines longer than MAX_BLOCK is parsed in pieces of at most MAX_BLOCK,
 *   cut at line ends, or at a space when one line is that long, so a paragraph's quadratic
 *   part is bounded by a constant;
 * - otherwise the text is cut only at blank lines outside fenced code, into pieces of about
 *   MAX_UNIT, so a document of ordinary size is parsed whole and converts exactly as CommonMark
 *   reads it; a fence longer than that goes on as a second code block.
 * A construct that spans a cut (a link across a cut in a 3,000-character line, say) comes out as
 * literal text; everything is still escaped.
 */

/** Slack's own limit for one section's text: a paragraph this long is already unusual. */
export const MAX_BLOCK = 3000;
export const MAX_UNIT = 20_000;
export const MAX_CONTAINERS = 8;
/**
 * micromark pairs emphasis and link brackets in time quadratic in their number within a
 * paragraph; real paragraphs have a few dozen.
 */
export const MAX_DELIMITERS = 200;
const DELIMITERS = new Set(['*', '_', '~', '`', '[', ']', '(', ')', '!', '<', '>', '\\']);

const CONTAINER_MARKER = /[ \t]*(?:>|[-+*](?=[ \t]|$)|\d{1,9}[.)](?=[ \t]|$))/y;
/** A fence opening or closing line, at the top level or after quote and list markers. */
const FENCE = /^(?: {0,3}(?:> ?|(?:[-+*]|\d{1,9}[.)]) +))* {0,3}(`{3,}|~{3,})/;

interface ParseUnit {
  text: string;
  /** What goes between the previous unit's output and this one's: a line break, or the space (or nothing) where a line was cut. */
  join: '\n' | ' ' | '';
}

export function parseUnits(markdown: string): ParseUnit[] {
  const units: ParseUnit[] = [];
  let unit: string[] = [];
  let unitLength = 0;
  let block: string[] = [];
  let blockLength = 0;
  let blockDelimiters = 0;
  let fence: string | null = null;

  const closeUnit = () => {
    if (unit.length > 0) units.push({ text: unit.join('\n'), join: '\n' });
    unit = [];
    unitLength = 0;
  };
  const closeBlock = () => {
    if (blockLength > MAX_BLOCK || blockDelimiters > MAX_DELIMITERS) {
      // Too long to parse whole: each piece on its own, apart from the text around it.
      closeUnit();
      for (const piece of cutBlock(block)) units.push(piece);
    } else {
      unit.push(...block);
      unitLength += blockLength;
    }
    block = [];
    blockLength = 0;
    blockDelimiters = 0;
  };

  for (const raw of markdown.split('\n')) {
    if (fence !== null) {
      // Fenced code is never cut: the parser reads it in linear time whatever it holds.
      unit.push(raw);
      unitLength += raw.length + 1;
      const marker = FENCE.exec(raw)?.[1];
      if (marker !== undefined && marker[0] === fence[0] && marker.length >= fence.length && raw.trim().endsWith(marker)) {
        fence = null;
      } else if (unitLength > MAX_UNIT) {
        // A very long fence (or a line taken for one that the parser reads otherwise, as inside a
        // list item that has ended) goes on as a new code block in the next unit.
        unit.push(fence);
        closeUnit();
        unit.push(fence);
        unitLength = fence.length + 1;
      }
      continue;
    }
    const line = capContainers(raw);
    const marker = FENCE.exec(line)?.[1];
    if (marker !== undefined && !(marker[0] === '`' && line.slice(line.indexOf(marker) + marker.length).includes('`'))) {
      closeBlock();
      fence = marker;
      unit.push(line);
      unitLength += line.length + 1;
      continue;
    }
    if (line.trim() === '') {
      closeBlock();
      if (unitLength > MAX_UNIT) closeUnit();
      unit.push(line);
      continue;
    }
    block.push(line);
    blockLength += line.length + 1;
    blockDelimiters += delimitersIn(line);
  }
  closeBlock();
  closeUnit();
  return units;
}

/** Escapes the first container marker past MAX_CONTAINERS, which makes the rest of the line text. */
function capContainers(line: string, max = MAX_CONTAINERS): string {
  CONTAINER_MARKER.lastIndex = 0;
  for (let count = 0; ; count++) {
    const begin = CONTAINER_MARKER.lastIndex;
    const match = CONTAINER_MARKER.exec(line);
    if (match === null) return line;
    if (count === max) {
      const at = begin + match[0].search(/\S/);
      // `1.` is escaped as `1\.`; `>`, `-`, `+`, `*` with a backslash in front.
      const escapeAt = /\d/.test(line[at]!) ? at + match[0].trim().length - 1 : at;
      return line.slice(0, escapeAt) + '\\' + line.slice(escapeAt);
    }
  }
}

function cutBlock(lines: string[]): ParseUnit[] {
  const pieces: ParseUnit[] = [];
  let piece = null as ParseUnit | null;
  let pieceDelimiters = 0;
  for (const line of lines) {
    for (const [i, cut] of cutLine(line).entries()) {
      // A part cut from the middle of a line must not open containers again.
      const text = i === 0 ? cut.text : capContainers(cut.text, 0);
      const delimiters = delimitersIn(text);
      const full = piece !== null && (piece.text.length + 1 + text.length > MAX_BLOCK || pieceDelimiters + delimiters > MAX_DELIMITERS);
      if (piece !== null && (i > 0 || full)) {
        pieces.push(piece);
        piece = null;
      }
      if (piece === null) {
        piece = { text, join: cut.join };
        pieceDelimiters = delimiters;
      } else {
        piece.text += `\n${text}`;
        pieceDelimiters += delimiters;
      }
    }
  }
  if (piece !== null) pieces.push(piece);
  return pieces;
}

/**
 * A line over either budget in parts: cut at the last space in the second half of a part (the
 * space itself goes between the parts' outputs, as the parser would drop it at a part's end), else
 * where the part is full.
 */
function cutLine(line: string): ParseUnit[] {
  const parts: ParseUnit[] = [];
  let start = 0;
  let join: ParseUnit['join'] = '\n';
  let delimiters = 0;
  let lastSpace = -1;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === ' ') lastSpace = i;
    if (DELIMITERS.has(c)) delimiters++;
    if (i + 1 - start > MAX_BLOCK || delimiters > MAX_DELIMITERS) {
      const atSpace = lastSpace > start + (i - start) / 2;
      const end = atSpace ? lastSpace : i;
      parts.push({ text: line.slice(start, end), join });
      start = atSpace ? lastSpace + 1 : i;
      join = atSpace ? ' ' : '';
      delimiters = delimitersIn(line.slice(start, i + 1));
    }
  }
  parts.push({ text: line.slice(start), join });
  return parts;
}

function delimitersIn(text: string): number {
  let n = 0;
  for (const c of text) if (DELIMITERS.has(c)) n++;
  return n;
}
