import type { Definition, List, ListItem, Nodes, Parent, PhrasingContent, Root, RootContent } from 'mdast';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { gfmFromMarkdown } from 'mdast-util-gfm';
import { gfm } from 'micromark-extension-gfm';
import { codeFence, escapeMrkdwn, inlineCode } from './escape-mrkdwn.js';
import { parseUnits } from './parse-units.js';

/**
 * Converts the Markdown models write into Slack mrkdwn.
 *
 * The text is parsed as CommonMark with GitHub's extensions (mdast-util-from-markdown) and the
 * tree written out here. Every piece of text is escaped; the only raw `<…>` tokens in the output
 * are links this function builds itself, and only for http(s) and mailto URLs, so a model can
 * neither mention `@channel` nor smuggle a `javascript:` link into a message. parse-units.ts
 * keeps the time linear on hostile input.
 */
export function markdownToMrkdwn(markdown: string): string {
  if (markdown.length <= PLAIN_MAX && PLAIN_LINE.test(markdown)) return markdown;
  let out = '';
  parseUnits(markdown.replace(/\r\n?/g, '\n')).forEach((unit, i) => {
    if (i > 0) out += unit.join;
    out += convertUnit(unit.text);
  });
  return out;
}

/**
 * One short line of letters, digits, spaces and punctuation that starts nothing (no list, quote
 * or heading marker first; no emphasis, code, link, escape or entity character; no `www.` that
 * would become a link; no trailing space) is a paragraph of plain text, which converts to itself:
 * such answers ("Deleted 42.") skip the parser, which costs more than the rest of posting them.
 */
const PLAIN_LINE = /^(?!.*www\.)[a-z](?:[a-z0-9 ,.;:?'"-]*[a-z0-9,.;:?'"-])?$/i;
const PLAIN_MAX = 200;

const SAFE_URL = /^(?:https?:\/\/|mailto:)\S/i;
/** Slack shows nested lists by indentation; past this it adds nothing readable. */
const MAX_LIST_LEVEL = 6;
const RULE = '──────────';

interface Context {
  definitions: Map<string, Definition>;
  inBold: boolean;
  inLink: boolean;
  inQuote: boolean;
  listLevel: number;
}

/** Built once: the parser combines its extensions on each call, which costs more than a short text. */
const PARSE_OPTIONS = { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] };

function convertUnit(text: string): string {
  const root = fromMarkdown(text, PARSE_OPTIONS);
  const lineCount = text.split('\n').length;
  const blocks = root.children.filter((node) => node.type !== 'definition');
  if (blocks.length === 0) return '\n'.repeat(lineCount - 1);
  const ctx: Context = { definitions: definitionsIn(root), inBold: false, inLink: false, inQuote: false, listLevel: 0 };
  // Blank lines around the text are kept: they separate it from the units before and after it.
  const leading = startLine(root.children[0]!) - 1;
  const trailing = lineCount - endLine(root.children[root.children.length - 1]!);
  return '\n'.repeat(leading) + blockSequence(blocks, ctx) + '\n'.repeat(trailing);
}

function definitionsIn(root: Root): Map<string, Definition> {
  const found = new Map<string, Definition>();
  const stack: Nodes[] = [root];
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    if (node.type === 'definition' && !found.has(node.identifier)) found.set(node.identifier, node);
    if ('children' in node) stack.push(...(node as Parent).children);
  }
  return found;
}

const startLine = (node: Nodes): number => node.position?.start.line ?? 1;
const endLine = (node: Nodes): number => node.position?.end.line ?? startLine(node);

/** Blocks on their own lines, with a blank line between them where the source has one or more. */
function blockSequence(blocks: RootContent[], ctx: Context): string {
  let out = '';
  let previous: RootContent | undefined;
  for (const node of blocks) {
    if (node.type === 'definition') continue;
    if (previous !== undefined) out += separator(previous, node);
    out += block(node, ctx);
    previous = node;
  }
  return out;
}

const separator = (previous: Nodes, next: Nodes): string => (startLine(next) - endLine(previous) > 1 ? '\n\n' : '\n');

function block(node: RootContent, ctx: Context): string {
  switch (node.type) {
    case 'paragraph':
      return inline(node.children, ctx);
    case 'heading': {
      // Slack has no headings; bold is the closest, and bold inside it would only add stray stars.
      const text = inline(node.children, { ...ctx, inBold: true });
      return text === '' ? '' : `*${text}*`;
    }
    case 'thematicBreak':
      return RULE;
    case 'code':
      return codeFence(node.value);
    case 'blockquote': {
      // Slack quotes one level deep, so nested quotes collapse into one.
      const body = blockSequence(node.children, { ...ctx, inQuote: true });
      if (ctx.inQuote) return body;
      return body
        .split('\n')
        .map((line) => (line === '' ? '>' : `> ${line}`))
        .join('\n');
    }
    case 'list':
      return list(node, ctx);
    case 'table':
      // Slack has no tables: a row a line, cells between bars, the header row in bold.
      return node.children
        .map((row, i) => row.children.map((cell) => (i === 0 ? bold(cell.children, ctx) : inline(cell.children, ctx))).join(' | '))
        .join('\n');
    case 'html':
      return escapeMrkdwn(node.value);
    case 'footnoteDefinition':
      return `[^${escapeMrkdwn(node.label ?? node.identifier)}]: ${blockSequence(node.children, ctx)}`;
    default:
      // Inline content where a block was expected, or node types GFM does not produce here.
      return 'children' in node ? inline((node as Parent).children as PhrasingContent[], ctx) : escapeMrkdwn(textOf(node));
  }
}

function list(node: List, ctx: Context): string {
  const level = ctx.listLevel;
  const indent = '    '.repeat(Math.min(level, MAX_LIST_LEVEL));
  const start = node.start ?? 1;
  let out = '';
  node.children.forEach((item, i) => {
    if (i > 0) out += separator(node.children[i - 1]!, item);
    let mark = node.ordered ? `${start + i}.` : level % 2 === 0 ? '•' : '◦';
    if (item.checked === true) mark = '☑';
    else if (item.checked === false) mark = '☐';
    out += listItem(item, `${indent}${mark}`, `${indent}  `, { ...ctx, listLevel: level + 1 });
  });
  return out;
}

/** The item's first paragraph follows its marker; later blocks go on their own lines below it. */
function listItem(item: ListItem, marker: string, indent: string, ctx: Context): string {
  const [first, ...rest] = item.children;
  if (first === undefined) return marker;
  let out = marker;
  let previous: RootContent = first;
  if (first.type === 'paragraph' || first.type === 'heading') {
    out += ` ${indentLines(block(first, ctx), indent)}`;
  } else {
    out += `\n${blockInItem(first, indent, ctx)}`;
  }
  for (const node of rest) {
    out += separator(previous, node);
    out += blockInItem(node, indent, ctx);
    previous = node;
  }
  return out;
}

function blockInItem(node: RootContent, indent: string, ctx: Context): string {
  const text = block(node, ctx);
  // Nested lists carry their own indentation; a code block indented would no longer be one in Slack.
  if (node.type === 'list' || node.type === 'code') return text;
  return indent + indentLines(text, indent);
}

function indentLines(text: string, indent: string): string {
  return text.replace(/\n(?!\n)/g, `\n${indent}`);
}

function inline(nodes: PhrasingContent[], ctx: Context): string {
  let out = '';
  for (const node of nodes) out += phrase(node, ctx);
  return out;
}

function phrase(node: PhrasingContent, ctx: Context): string {
  switch (node.type) {
    case 'text':
      return escapeMrkdwn(node.value);
    case 'strong':
      return bold(node.children, ctx);
    case 'emphasis': {
      const [only] = node.children;
      // `***x***` parses as emphasis around strong; Slack reads `*_x_*` the same, and that is the usual order.
      if (node.children.length === 1 && only?.type === 'strong' && !ctx.inBold) {
        return `*_${inline(only.children, { ...ctx, inBold: true })}_*`;
      }
      return `_${inline(node.children, ctx)}_`;
    }
    case 'delete':
      return `~${inline(node.children, ctx)}~`;
    case 'inlineCode':
      // Slack cannot escape a backtick inside inline code; inlineCode() swaps in a look-alike.
      return inlineCode(node.value);
    case 'break':
      return '\n';
    case 'html':
      return escapeMrkdwn(node.value);
    case 'link':
      return link(node.url, inline(node.children, { ...ctx, inLink: true }), textOf(node), ctx);
    case 'image':
      return link(node.url, escapeMrkdwn(node.alt ?? ''), node.alt ?? '', ctx);
    case 'linkReference':
    case 'imageReference': {
      const label = node.type === 'linkReference' ? inline(node.children, { ...ctx, inLink: true }) : escapeMrkdwn(node.alt ?? '');
      const definition = ctx.definitions.get(node.identifier);
      if (definition === undefined) return label;
      return link(definition.url, label, node.type === 'linkReference' ? textOf(node) : (node.alt ?? ''), ctx);
    }
    case 'footnoteReference':
      return `[^${escapeMrkdwn(node.label ?? node.identifier)}]`;
    default:
      return escapeMrkdwn(textOf(node));
  }
}

function bold(nodes: PhrasingContent[], ctx: Context): string {
  if (ctx.inBold) return inline(nodes, ctx);
  const text = inline(nodes, { ...ctx, inBold: true });
  return text === '' ? '' : `*${text}*`;
}

/** Slack link targets: entities for & < >, and no `|` or space, which would end the URL early. */
function slackUrl(url: string): string {
  return escapeMrkdwn(url).replace(/\|/g, '%7C').replace(/ /g, '%20');
}

/**
 * A Slack link for http(s) and mailto URLs; any other URL is shown as text after the label, so
 * the reader sees where it would have gone. Links cannot nest in Slack: inside a label, a link
 * (an autolinked URL, say) is its text.
 */
function link(url: string, label: string, plainLabel: string, ctx: Context): string {
  if (ctx.inLink) return label;
  if (SAFE_URL.test(url)) {
    // An autolink's label is its URL; `<url>` says the same more briefly.
    if (label === '' || plainLabel === url) return `<${slackUrl(url)}>`;
    return `<${slackUrl(url)}|${label}>`;
  }
  if (url === '') return label;
  return label === '' ? escapeMrkdwn(url) : `${label} (${escapeMrkdwn(url)})`;
}

/** The text of a node and everything in it, without recursion (hostile input can nest deeply). */
function textOf(node: Nodes): string {
  let out = '';
  const stack: Nodes[] = [node];
  for (let current = stack.pop(); current !== undefined; current = stack.pop()) {
    if ('value' in current && typeof current.value === 'string') out += current.value;
    else if (current.type === 'image' || current.type === 'imageReference') out += current.alt ?? '';
    else if ('children' in current) stack.push(...[...(current as Parent).children].reverse());
  }
  return out;
}
