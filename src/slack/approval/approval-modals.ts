import type { ModalView, KnownBlock } from '@slack/types';
import { MAX_REASON_LENGTH } from '../../approvals/reason-limit.js';
import { DECLINE_REASON_ACTION_ID, DECLINE_REASON_BLOCK_ID, declineReasonInput } from '../kit/form-inputs.js';
import { inlineCode, escapeMrkdwn, codeFence } from '../kit/mrkdwn/escape-mrkdwn.js';
import { LIMITS, truncate, section, context, plainText, oneLine } from '../kit/limits.js';
import { CALLBACK_IDS, approvalButtonValue, parseButtonValue } from '../kit/action-ids.js';
import type { DeclineModalData, CardPreview } from '../card/card-types.js';
import type { ViewStateValues } from '../kit/submitted-payloads.js';
import { prettyJson } from '../kit/format-arg-value.js';

/**
 * The modal Decline opens. private_metadata carries the same `{a, f}` as the button, so the
 * submission is bound to the exact request and arguments the decliner saw.
 */
export function declineModal(data: DeclineModalData): ModalView {
  return {
    type: 'modal',
    callback_id: CALLBACK_IDS.declineModal,
    private_metadata: approvalButtonValue(data.actionId, data.fingerprint),
    title: plainText('Decline tool call', LIMITS.modalTitle),
    submit: plainText('Decline', LIMITS.modalButton),
    close: plainText('Cancel', LIMITS.modalButton),
    blocks: [
      section(
        `Decline the call to ${inlineCode(truncate(data.toolName, 200))}? ` +
          'The agent is told it was declined, with your reason if you give one.',
      ),
      declineReasonInput(),
    ],
  };
}

interface DeclineSubmission {
  actionId: number;
  fingerprintPrefix: string;
  reason?: string;
}

/** Reads a decline modal submission; undefined when the metadata is not ours. */
export function parseDeclineModal(
  privateMetadata: string | undefined,
  stateValues: ViewStateValues,
): DeclineSubmission | undefined {
  const meta = parseButtonValue(privateMetadata);
  if (meta?.fingerprintPrefix === undefined) return undefined;
  const reason = stateValues[DECLINE_REASON_BLOCK_ID]?.[DECLINE_REASON_ACTION_ID]?.value?.trim();
  const submission: DeclineSubmission = { actionId: meta.actionId, fingerprintPrefix: meta.fingerprintPrefix };
  if (reason) submission.reason = reason;
  return submission;
}

const APPROVE_REASON_BLOCK_ID = 'reason';
const APPROVE_REASON_ACTION_ID = 'reason';

interface ApproveReasonModalData {
  actionId: number;
  fingerprint: string;
  toolName: string;
  /** The call in words (plain text). */
  title: string;
  risk?: 'low' | 'high';
}

/**
 * The modal Approve opens when the policy wants a reason. private_metadata carries the same
 * `{a, f}` as the button, so the approval is bound to the exact request and arguments seen.
 */
export function approveReasonModal(data: ApproveReasonModalData): ModalView {
  const high = data.risk === 'high' ? ' :warning: This action is marked *high-risk*.' : '';
  return {
    type: 'modal',
    callback_id: CALLBACK_IDS.approveReasonModal,
    private_metadata: approvalButtonValue(data.actionId, data.fingerprint),
    title: plainText('Approve tool call', LIMITS.modalTitle),
    submit: plainText('Approve', LIMITS.modalButton),
    close: plainText('Cancel', LIMITS.modalButton),
    blocks: [
      section(
        `Approve *${escapeMrkdwn(truncate(data.title, 300))}* (${inlineCode(truncate(data.toolName, 150))})?${high} ` +
          'The approval policy asks for a reason; it is kept with your approval and shown on the card.',
      ),
      {
        type: 'input',
        block_id: APPROVE_REASON_BLOCK_ID,
        optional: false,
        label: plainText('Reason'),
        element: {
          type: 'plain_text_input',
          action_id: APPROVE_REASON_ACTION_ID,
          multiline: true,
          min_length: 1,
          // The runtime refuses a longer reason too (decideToolCall), whoever sends it.
          max_length: MAX_REASON_LENGTH,
          placeholder: plainText('Why is this call all right to run?', LIMITS.placeholder),
        },
      },
    ],
  };
}

interface ApproveReasonSubmission {
  actionId: number;
  fingerprintPrefix: string;
  /** Trimmed; empty when only blanks were written (the submission is then sent back with an error). Never cut: a long one is refused where it is decided. */
  reason: string;
}

/** Reads the modal's submission; undefined when the metadata is not ours. */
export function parseApproveReasonModal(privateMetadata: string | undefined, stateValues: ViewStateValues): ApproveReasonSubmission | undefined {
  const meta = parseButtonValue(privateMetadata);
  if (meta?.fingerprintPrefix === undefined) return undefined;
  const reason = stateValues[APPROVE_REASON_BLOCK_ID]?.[APPROVE_REASON_ACTION_ID]?.value?.trim() ?? '';
  return { actionId: meta.actionId, fingerprintPrefix: meta.fingerprintPrefix, reason };
}

interface ArgumentsModalData {
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
