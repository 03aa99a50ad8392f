import type { KnownBlock } from '@slack/types';
import { ACTION_IDS } from '../kit/action-ids.js';
import { LIMITS } from '../kit/limits.js';
import { plainText } from '../kit/text-objects.js';

/** The lists of the inbox a person can open in full: their requests, their decisions, the remembered approvals they may revoke. */
export type InboxList = 'requested' | 'decided' | 'remembered';

/**
 * "…and N more", with a button that opens the whole list in a modal, a page at a time
 * (inbox-list-modal.ts): the inbox itself shows only the newest few.
 */
export function moreBlock(list: InboxList, more: number, total: number): KnownBlock {
  return {
    type: 'section',
    block_id: `inbox:more:${list}`,
    text: { type: 'mrkdwn', text: `…and ${more} more.`, verbatim: true },
    accessory: {
      type: 'button',
      action_id: ACTION_IDS.inboxList,
      text: plainText(`Show all ${total}`, LIMITS.buttonText),
      value: inboxListValue(list, 0),
    },
  };
}

/** A list button's value: which list, from which position (newest first). */
export function inboxListValue(list: InboxList, offset: number): string {
  return `${list}:${offset}`;
}

/** The list and position a list button names; undefined when the value is not one of ours. */
export function parseInboxListValue(value: string | undefined): { list: InboxList; offset: number } | undefined {
  const m = /^(requested|decided|remembered):(0|[1-9]\d{0,5})$/.exec(value ?? '');
  return m ? { list: m[1] as InboxList, offset: Number(m[2]) } : undefined;
}
