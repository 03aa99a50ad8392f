import type { KnownBlock, ModalView } from '@slack/types';
import { codeFence } from '../kit/mrkdwn/code-fence.js';
import { inlineCode } from '../kit/mrkdwn/inline-code.js';
import { CALLBACK_IDS } from '../kit/action-ids.js';
import { prettyJson } from '../kit/json-code-block.js';
import { LIMITS, truncate } from '../kit/limits.js';
import { context, section } from '../kit/layout.js';
import { oneLine, plainText } from '../kit/text-objects.js';
import { escapeMrkdwn } from '../kit/mrkdwn/escape-mrkdwn.js';
import type { CardPreview } from '../card/card-types.js';

export interface ArgumentsModalData {
  actionId: number;
  toolName: string;
  args: unknown;
  /** The tool's preview kept with the request, shown in full after the arguments (the card cuts its values). */
  preview?: CardPreview;
}

/** Characters of one long line per piece: escaping at most quintuples them (`&` → `&amp;`), so a piece always fits. */
const CHUNK = 550;
const MAX_BLOCKS = LIMITS.modalBlocks - 3;

/**
 * A read-only modal with the exact arguments of a request, pretty-printed: what the card
 * summarises, in full. Long JSON is split over several code blocks (a section holds 3000
 * characters), and what still does not fit is said to be cut.
 */
export function argumentsModal(data: ArgumentsModalData): ModalView {
  const json = prettyJson(data.args);
  const blocks: KnownBlock[] = [
    section(`Arguments of ${inlineCode(truncate(data.toolName, 150))}, request #${data.actionId}, exactly as the model asked.`),
  ];
  const preview = data.preview ? previewInFull(data.preview) : [];
  const maxCodeBlocks = MAX_BLOCKS - preview.length;
  const chunks = chunksOf(json, maxCodeBlocks);
  for (const chunk of chunks.slice(0, maxCodeBlocks)) blocks.push(section(codeFence(chunk)));
  if (chunks.length > maxCodeBlocks) {
    const shown = chunks.slice(0, maxCodeBlocks).join('').length;
    blocks.push(context(`Cut: showing ${shown.toLocaleString('en-US')} of ${json.length.toLocaleString('en-US')} characters. The audit log has them all.`));
  }
  blocks.push(...preview);
  return {
    type: 'modal',
    callback_id: CALLBACK_IDS.argumentsModal,
    title: plainText('Arguments', LIMITS.modalTitle),
    close: plainText('Close', LIMITS.modalButton),
    blocks,
  };
}

/**
 * Pieces whose code blocks fit a section: whole lines where they fit, long lines cut (never
 * inside a surrogate pair). Stops once there are more pieces than a modal can show.
 */
function chunksOf(text: string, maxCodeBlocks: number): string[] {
  const budget = LIMITS.sectionText - 100;
  // A fence adds 8 characters; escaping is per character, so lengths add up line by line.
  const size = (piece: string) => codeFence(piece).length - 8;
  const chunks: string[] = [];
  let current: string[] = [];
  let currentSize = 0;
  const push = (line: string) => {
    const lineSize = size(line);
    if (current.length > 0 && currentSize + 1 + lineSize > budget) {
      chunks.push(current.join('\n'));
      current = [];
      currentSize = 0;
    }
    currentSize += (current.length > 0 ? 1 : 0) + lineSize;
    current.push(line);
  };
  for (const line of text.split('\n')) {
    if (chunks.length > maxCodeBlocks) break;
    let rest = line;
    while (rest.length > CHUNK && (rest.length > budget || size(rest) > budget) && chunks.length <= maxCodeBlocks) {
      let cut = CHUNK;
      const code = rest.charCodeAt(cut - 1);
      if (code >= 0xd800 && code <= 0xdbff) cut--;
      push(rest.slice(0, cut));
      rest = rest.slice(cut);
    }
    push(rest);
  }
  if (current.length > 0) chunks.push(current.join('\n'));
  return chunks;
}

/**
 * The tool's preview, each value whole where a section holds it: a heading, then each field and
 * each side of the diff in a code block of its own (at most 60 blocks: 20 fields, 20 diffs).
 */
function previewInFull(preview: CardPreview): KnownBlock[] {
  if ('failed' in preview) return [section(`*The tool's preview failed:* ${escapeMrkdwn(truncate(preview.failed, 1000))}`)];
  const label = (text: string) => `*${escapeMrkdwn(truncate(oneLine(text), 200))}*`;
  const value = (text: string | undefined) => (text === undefined ? '_(none)_' : codeFence(text));
  const blocks: KnownBlock[] = [];
  for (const f of preview.fields ?? []) blocks.push(section(`${label(f.label)}\n${value(f.value)}`));
  for (const d of preview.diff ?? []) {
    blocks.push(section(`${label(d.label)} now:\n${value(d.before)}`), section(`${label(d.label)} after the call:\n${value(d.after)}`));
  }
  return blocks.length > 0 ? [section("*The tool's preview* of what the call acts on, as it was when the request was made:"), ...blocks] : [];
}
