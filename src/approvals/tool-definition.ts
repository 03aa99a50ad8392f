import canonicalize from 'canonicalize';
import { createHash } from 'node:crypto';

/**
 * A tool's definition as its source declared it (an MCP server's `tools/list` entry): what an
 * approval of one of its calls is pinned to. Only the parts that say what the tool is and does
 * are kept; `_meta`, `execution` and the output schema do not change what a call does.
 */
export interface ToolDefinitionSnapshot {
  name: string;
  title?: string;
  description?: string;
  inputSchema: unknown;
  annotations?: unknown;
}

/** The parts of a definition, in the order a change is told. */
const definitionParts = ['name', 'title', 'description', 'inputSchema', 'annotations'] as const;
export type DefinitionPart = (typeof definitionParts)[number];

/** One part of a definition that differs, as text (JSON for a schema or the annotations), cut at MAX_CHANGE_TEXT. */
export interface DefinitionChange {
  part: DefinitionPart | 'definition';
  before?: string;
  after?: string;
}

const DIGEST_FORMAT = 1;
/** A change is shown on a card and logged: each side is cut, visibly, past this many characters. */
export const MAX_CHANGE_TEXT = 1000;

/** The parts of a server's tool entry a definition is made of (anything else the entry has is left out). */
export function definitionSnapshot(entry: { name: string; inputSchema: unknown; [part: string]: unknown }): ToolDefinitionSnapshot {
  return {
    name: entry.name,
    ...(typeof entry.title === 'string' ? { title: entry.title } : {}),
    ...(typeof entry.description === 'string' ? { description: entry.description } : {}),
    inputSchema: entry.inputSchema,
    ...(entry.annotations !== undefined && entry.annotations !== null ? { annotations: entry.annotations } : {}),
  };
}

/**
 * SHA-256 over the RFC 8785 canonical JSON of `{ v: 1, definition }`: equal for the same
 * definition however the server ordered or spaced it, different when any kept part changes.
 */
export function definitionDigest(definition: ToolDefinitionSnapshot): string {
  const canonical = canonicalize({ v: DIGEST_FORMAT, definition });
  if (canonical === undefined) throw new TypeError('definitionDigest: the definition could not be serialised');
  return createHash('sha256').update(canonical, 'utf8').digest('hex');
}

/**
 * What differs between two definitions of a tool, part by part. `before` undefined: the earlier
 * definition is not known (a request asked before its tool was pinned), told as one change.
 */
export function definitionChanges(before: ToolDefinitionSnapshot | undefined, after: ToolDefinitionSnapshot | undefined): DefinitionChange[] {
  if (!before || !after) {
    return [{ part: 'definition', ...(before ? { before: shown(before) } : {}), ...(after ? { after: shown(after) } : {}) }];
  }
  const changes: DefinitionChange[] = [];
  for (const part of definitionParts) {
    const a = before[part];
    const b = after[part];
    if (canonicalize(a ?? null) === canonicalize(b ?? null)) continue;
    changes.push({ part, ...(a !== undefined ? { before: shown(a) } : {}), ...(b !== undefined ? { after: shown(b) } : {}) });
  }
  return changes;
}

/** A part as text: a string as it is, anything else as canonical JSON; cut past MAX_CHANGE_TEXT with an ellipsis. */
function shown(value: unknown): string {
  const text = typeof value === 'string' ? value : (canonicalize(value) ?? String(value));
  return text.length <= MAX_CHANGE_TEXT ? text : `${text.slice(0, MAX_CHANGE_TEXT - 1)}…`;
}

/** A stored definition, checked: anything not shaped like one is treated as unknown, never trusted. */
export function definitionFromStored(value: unknown): ToolDefinitionSnapshot | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const v = value as Record<string, unknown>;
  if (typeof v.name !== 'string' || !('inputSchema' in v)) return undefined;
  return definitionSnapshot(v as { name: string; inputSchema: unknown });
}
