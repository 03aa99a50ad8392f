import type { KnownBlock } from '@slack/types';
import { LIMITS } from './limits.js';

/** Successively smaller budgets for the variable-sized parts of a card. */
const SCALES = [1, 0.85, 0.7, 0.55, 0.4, 0.25, 0.1] as const;

/**
 * Renders a card at full size and, while the serialized blocks are too long for one message
 * (each field within its own limit can still add up to msg_blocks_too_long), again with
 * smaller budgets. A shorter card beats a card Slack refuses.
 */
export function fitMessage(render: (scale: number) => KnownBlock[]): KnownBlock[] {
  let blocks: KnownBlock[] = [];
  for (const scale of SCALES) {
    blocks = render(scale);
    if (JSON.stringify(blocks).length <= LIMITS.messageBlocksJson) return blocks;
  }
  return blocks;
}

/** `base` scaled, but never below `min`. */
export function scaled(base: number, scale: number, min: number): number {
  return Math.max(min, Math.floor(base * scale));
}
