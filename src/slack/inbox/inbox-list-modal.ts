import type { Button, KnownBlock, ModalView } from '@slack/types';
import { ACTION_IDS } from '../kit/action-ids.js';
import { decidedLine, requestedLine, type InboxItem } from './inbox-blocks.js';
import { inboxListValue, type InboxList } from './inbox-lists.js';
import { context, section } from '../kit/layout.js';
import { LIMITS } from '../kit/limits.js';
import { rememberedSection, type RememberedItem } from './remembered-blocks.js';
import { plainText } from '../kit/text-objects.js';

/** How many entries a page of the modal shows. */
export const LIST_PAGE = 25;
/** Lines of requests per section: each is at most a few hundred characters, a section holds 3,000. */
const LINES_PER_SECTION = 8;

/** One page of a list of the inbox: its entries from `offset` (newest first) and how many there are in all. */
export type InboxListPage =
  | { list: 'requested' | 'decided'; offset: number; total: number; items: InboxItem[] }
  | { list: 'remembered'; offset: number; total: number; items: RememberedItem[] };

const TITLES: Record<InboxList, string> = { requested: 'Requested by you', decided: 'Your decisions', remembered: 'Remembered approvals' };
const EMPTY: Record<InboxList, string> = {
  requested: 'You have not asked for anything that needs approval.',
  decided: 'You have not decided any requests yet.',
  remembered: 'No remembered approvals you can revoke.',
};

/**
 * A list of the inbox in full, a page at a time, in a modal: what the inbox's "…and N more"
 * opens. Requests read as in the inbox (in words, with a link to their thread); remembered
 * approvals keep their Revoke buttons. Newer and Older page through it in place. The modal's
 * private_metadata names the page, so a Revoke inside it can redraw it.
 */
export function inboxListModal(page: InboxListPage): ModalView {
  const { list, offset, total } = page;
  const blocks: KnownBlock[] = [];
  if (page.items.length === 0) blocks.push(context(total > 0 ? `Nothing after the first ${total}.` : EMPTY[list]));
  else {
    blocks.push(context(`${offset + 1}–${offset + page.items.length} of ${total}, newest first.`));
    if (page.list === 'remembered') blocks.push(...page.items.map(rememberedSection));
    else {
      const line = page.list === 'requested' ? requestedLine : decidedLine;
      for (let i = 0; i < page.items.length; i += LINES_PER_SECTION) blocks.push(section(page.items.slice(i, i + LINES_PER_SECTION).map(line).join('\n')));
    }
  }
  const buttons: Button[] = [];
  if (offset > 0) buttons.push(pageButton('← Newer', ACTION_IDS.inboxListNewer, list, Math.max(0, offset - LIST_PAGE)));
  if (offset + page.items.length < total && page.items.length > 0) buttons.push(pageButton('Older →', ACTION_IDS.inboxList, list, offset + page.items.length));
  if (buttons.length > 0) blocks.push({ type: 'actions', block_id: `inbox:list:${list}`, elements: buttons });
  return {
    type: 'modal',
    title: plainText(TITLES[list], LIMITS.modalTitle),
    close: plainText('Close', LIMITS.modalButton),
    private_metadata: inboxListValue(list, offset),
    blocks,
  };
}

function pageButton(text: string, actionId: string, list: InboxList, offset: number): Button {
  return { type: 'button', text: plainText(text, LIMITS.buttonText), action_id: actionId, value: inboxListValue(list, offset) };
}
