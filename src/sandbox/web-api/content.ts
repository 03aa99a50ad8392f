/**
 * The message content checks every posting method shares: the simulator's one Block Kit checker
 * (src/simulator/block-limits.ts), then the sandbox's normalisation of the blocks for its UI.
 * Block types it does not know are accepted and kept: the UI shows them as JSON.
 */
import { normalizeBlocks } from '../block-elements.js';
import { messageContent as checkedContent, type Args, type MessageContent } from '../../simulator/index.js';

export type { MessageContent };

export function messageContent(args: Args, requireContent: boolean): MessageContent {
  const out = checkedContent(args, { requireContent });
  if (out.blocks) out.blocks = normalizeBlocks(out.blocks);
  if (out.attachments) out.attachments = structuredClone(out.attachments);
  return out;
}
