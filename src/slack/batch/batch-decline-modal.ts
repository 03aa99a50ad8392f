import type { ModalView } from '@slack/types';
import { inlineCode } from '../kit/mrkdwn/inline-code.js';
import { humanList } from '../kit/mention.js';
import { LIMITS, truncate } from '../kit/limits.js';
import { CALLBACK_IDS } from '../kit/action-ids.js';
import { batchButtonValue } from './batch-card.js';
import type { ViewStateValues } from '../kit/submitted-payloads.js';
import { DECLINE_REASON_ACTION_ID, DECLINE_REASON_BLOCK_ID, declineReasonInput } from '../approval/approval-modals.js';
import { section } from '../kit/layout.js';
import { plainText } from '../kit/text-objects.js';

export interface BatchDeclineModalData {
  /** The pending calls Decline all was clicked for, as its button named them. */
  members: ReadonlyArray<{ actionId: number; fingerprint: string; toolName: string }>;
  /** The batch message clicked: the submission is checked against it again. */
  channel: string;
  ts: string;
}

/**
 * The modal Decline all opens: one optional reason for every pending call of the part. Its
 * private_metadata carries what the button did (each call with its fingerprint prefix) and the
 * message it was on, so the submission is bound to the calls and arguments the decliner saw.
 */
export function batchDeclineModal(data: BatchDeclineModalData): ModalView {
  const n = data.members.length;
  const tools = humanList(
    [...new Set(data.members.map((m) => m.toolName))].map((t) => inlineCode(truncate(t, 100))),
    { maxChars: 1500 },
  );
  const metadata = { ...(JSON.parse(batchButtonValue(data.members)) as object), c: data.channel, t: data.ts };
  return {
    type: 'modal',
    callback_id: CALLBACK_IDS.batchDeclineModal,
    private_metadata: JSON.stringify(metadata),
    title: plainText('Decline all', LIMITS.modalTitle),
    submit: plainText('Decline all', LIMITS.modalButton),
    close: plainText('Cancel', LIMITS.modalButton),
    blocks: [
      section(
        `Decline the ${n} pending ${n === 1 ? 'call' : 'calls'} (${tools})? ` +
          'None of them runs; the agent is told each was declined, with your reason if you give one.',
      ),
      declineReasonInput(),
    ],
  };
}

/** The reason typed, if any. */
export function batchDeclineReason(stateValues: ViewStateValues): string | undefined {
  const reason = stateValues[DECLINE_REASON_BLOCK_ID]?.[DECLINE_REASON_ACTION_ID]?.value?.trim();
  return reason ? reason : undefined;
}

/** The message the modal's Decline all was clicked on, from its private_metadata; undefined if not ours. */
export function batchDeclineMessage(privateMetadata: string | undefined): { channel: string; ts: string } | undefined {
  try {
    const { c, t } = JSON.parse(privateMetadata ?? '') as { c?: unknown; t?: unknown };
    return typeof c === 'string' && typeof t === 'string' && c.length <= 40 && t.length <= 40 ? { channel: c, ts: t } : undefined;
  } catch {
    return undefined;
  }
}
