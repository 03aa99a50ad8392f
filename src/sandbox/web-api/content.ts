/**
 * The message content checks every posting method shares. Slack refuses malformed content as a
 * whole; the sandbox does the same for structure and message-wide limits, so a bot that works
 * here is not surprised by Slack. Block types it does not know are accepted and kept: the UI
 * shows them as JSON rather than hiding them.
 */
import { isObj, normalizeBlocks } from '../block-elements.js';
import { SlackApiError } from './api-error.js';
import { optString, type Args } from './args.js';

export const MESSAGE_LIMITS = {
  blocks: 50,
  textChars: 40_000,
  /** Observed, not documented: messages with more block JSON than this are refused. */
  blocksJsonChars: 13_000,
  viewBlocks: 100,
  viewTitle: 24,
  privateMetadata: 3_000,
  callbackId: 255,
} as const;

export interface MessageContent {
  text?: string;
  blocks?: unknown[];
  attachments?: unknown[];
}

function invalidBlocks(errors: string[]): SlackApiError {
  return new SlackApiError('invalid_blocks', { errors, response_metadata: { messages: errors.map((e) => `[ERROR] ${e}`) } });
}

/** Structural problems in a list of blocks, as Slack words them (with a json-pointer). */
export function blockErrors(blocks: unknown[], pointer = '/blocks'): string[] {
  const errors: string[] = [];
  blocks.forEach((block, i) => {
    if (!isObj(block)) errors.push(`must be an object [json-pointer:${pointer}/${i}]`);
    else if (typeof block.type !== 'string' || block.type === '') errors.push(`missing required field: type [json-pointer:${pointer}/${i}]`);
    else if (block.block_id !== undefined && (typeof block.block_id !== 'string' || block.block_id.length > 255)) {
      errors.push(`invalid block_id [json-pointer:${pointer}/${i}/block_id]`);
    }
  });
  const ids = blocks.filter(isObj).map((b) => b.block_id).filter((id): id is string => typeof id === 'string');
  const duplicate = ids.find((id, i) => ids.indexOf(id) !== i);
  if (duplicate !== undefined) errors.push(`duplicate block_id ${duplicate} [json-pointer:${pointer}]`);
  return errors;
}

export function messageContent(args: Args, requireContent: boolean): MessageContent {
  const out: MessageContent = {};
  const text = optString(args, 'text');
  if (text !== undefined) {
    if (text.length > MESSAGE_LIMITS.textChars) throw new SlackApiError('msg_too_long');
    out.text = text;
  }
  if (args.blocks !== undefined && args.blocks !== '' && args.blocks !== null) {
    if (!Array.isArray(args.blocks)) throw new SlackApiError('invalid_blocks_format');
    if (args.blocks.length > MESSAGE_LIMITS.blocks) {
      throw invalidBlocks([`must provide no more than ${MESSAGE_LIMITS.blocks} items [json-pointer:/blocks]`]);
    }
    const errors = blockErrors(args.blocks);
    if (errors.length > 0) throw invalidBlocks(errors);
    if (JSON.stringify(args.blocks).length > MESSAGE_LIMITS.blocksJsonChars) throw new SlackApiError('msg_blocks_too_long');
    out.blocks = normalizeBlocks(args.blocks);
  }
  if (args.attachments !== undefined && args.attachments !== '') {
    if (!Array.isArray(args.attachments)) throw new SlackApiError('invalid_attachments');
    out.attachments = structuredClone(args.attachments);
  }
  const empty = out.text === undefined && (out.blocks === undefined || out.blocks.length === 0) && out.attachments === undefined;
  if (requireContent && empty) throw new SlackApiError('no_text');
  return out;
}
