/**
 * Where a surface's interactive elements are (actions blocks, section accessories, inputs), and
 * the ids Slack fills in when the sender left them out: every block gets a block_id and every
 * interactive element an action_id, since `state.values` and block_actions are keyed by both.
 */
import { randomBytes } from 'node:crypto';
import { isObj, type Obj } from './json.js';

interface ElementRef {
  blockId: string;
  element: Obj;
}

/** Interactive elements of a surface, in order: actions blocks, section accessories and inputs. */
export function interactiveElements(blocks: unknown): ElementRef[] {
  if (!Array.isArray(blocks)) return [];
  const out: ElementRef[] = [];
  for (const block of blocks) {
    if (!isObj(block) || typeof block.block_id !== 'string') continue;
    const candidates: unknown[] =
      block.type === 'actions' && Array.isArray(block.elements)
        ? block.elements
        : block.type === 'section'
          ? [block.accessory]
          : block.type === 'input'
            ? [block.element]
            : [];
    for (const element of candidates) {
      if (isObj(element) && typeof element.type === 'string') out.push({ blockId: block.block_id, element });
    }
  }
  return out;
}

function shortId(): string {
  return randomBytes(4).toString('base64url').slice(0, 5);
}

/**
 * A copy of `blocks` with the ids Slack would have filled in. Anything that is not a block passes
 * through untouched: a surface must never lose or choke on a block it does not know.
 */
export function normalizeBlocks(blocks: unknown[]): unknown[] {
  const copy = structuredClone(blocks);
  for (const block of copy) {
    if (isObj(block) && (typeof block.block_id !== 'string' || block.block_id === '')) block.block_id = shortId();
  }
  for (const { element } of interactiveElements(copy)) {
    if (typeof element.action_id !== 'string' || element.action_id === '') element.action_id = shortId();
  }
  return copy;
}
