import type { MessageMetadata } from '@slack/types';
import { isActionId } from '../../db/is-action-id.js';

/** The message metadata event type that marks a message as a card (see cardMetadata). */
export const CARD_EVENT_TYPE = 'approval_bot_card';

/** What a card message says it shows, as its metadata carries it. */
export interface CardMessageFacts {
  /** The requests the message shows: one for a card of its own, a part's calls for a batch card. */
  actionIds: number[];
  /** Every call of the batch this message is a part of, in order; absent for a card of its own. */
  batch?: number[];
  /** A copy routed to approvers (a DM, an approvals channel), not the card in the run's thread. */
  copy?: boolean;
}

/**
 * Slack message metadata for a card. The card's location is stored after it is posted; when that
 * store fails (the database connection dropped between the two) the message itself still says
 * which requests it shows, so the card can be found in its thread and adopted instead of being
 * posted a second time (see adoptCard).
 */
export function cardMetadata(facts: CardMessageFacts): MessageMetadata {
  return {
    event_type: CARD_EVENT_TYPE,
    // Lists as text: the payload's values are strings, numbers, booleans or objects.
    event_payload: { action_ids: facts.actionIds.join(','), ...(facts.batch ? { batch: facts.batch.join(',') } : {}), ...(facts.copy ? { copy: true } : {}) },
  };
}

/** The facts of a card message's metadata payload; undefined when it is not one of ours as cardMetadata writes it. */
export function parseCardMetadata(payload: Record<string, unknown>): CardMessageFacts | undefined {
  const ids = idList(payload.action_ids);
  if (!ids) return undefined;
  const batch = payload.batch === undefined ? undefined : idList(payload.batch);
  if (payload.batch !== undefined && (!batch || !ids.every((id) => batch.includes(id)))) return undefined;
  if (payload.copy !== undefined && payload.copy !== true) return undefined;
  return { actionIds: ids, ...(batch ? { batch } : {}), ...(payload.copy === true ? { copy: true } : {}) };
}

function idList(value: unknown): number[] | undefined {
  if (typeof value !== 'string' || !/^\d{1,10}(,\d{1,10})*$/.test(value)) return undefined;
  const ids = value.split(',').map(Number);
  return ids.every(isActionId) && new Set(ids).size === ids.length ? ids : undefined;
}
