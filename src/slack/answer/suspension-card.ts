import type { KnownBlock } from '@slack/types';
import { escapeMrkdwn } from '../kit/mrkdwn/escape-mrkdwn.js';
import { LIMITS, truncate, truncateMrkdwn } from '../kit/limits.js';
import { ACTION_IDS, cardBlockId } from '../kit/action-ids.js';
import { actionButtonValue } from '../kit/button-value.js';
import type { SuspensionCardData } from '../card/card-types.js';
import { fitMessage, scaled } from '../kit/fit-message.js';
import { jsonCodeBlock } from '../kit/json-code-block.js';
import { context, section } from '../kit/layout.js';
import { answeredText } from './answered-text.js';
import { oneLine, plainText } from '../kit/text-objects.js';
import { unreachable } from '../../unreachable.js';

/**
 * The card for a tool that suspended itself: what it is waiting for (its payload), and how to
 * answer – a Respond button when a form can be built, a thread reply otherwise or as well.
 */
export function suspensionCard(data: SuspensionCardData): KnownBlock[] {
  return fitMessage((scale) => render(data, scale));
}

/** The payload keys a tool puts what it asks a human in, in the order they are looked for. */
export const QUESTION_KEYS = ['message', 'question', 'prompt'] as const;

/** A string `message` (or `question`, `prompt`) in the payload is what the tool wants a human to read; the rest is detail. */
export function splitPayload(payload: unknown): { message?: string; rest: unknown; hasRest: boolean } {
  if (typeof payload === 'string') return { message: payload, rest: undefined, hasRest: false };
  if (payload === undefined || payload === null) return { rest: undefined, hasRest: false };
  if (typeof payload === 'object' && !Array.isArray(payload)) {
    const record = payload as Record<string, unknown>;
    const key = QUESTION_KEYS.find((k) => typeof record[k] === 'string');
    if (key !== undefined) {
      const { [key]: message, ...rest } = record;
      return { message: message as string, rest, hasRest: Object.keys(rest).length > 0 };
    }
  }
  return { rest: payload, hasRest: true };
}

function render(d: SuspensionCardData, scale: number): KnownBlock[] {
  const blocks: KnownBlock[] = [{ type: 'header', text: plainText(oneLine(`Input needed: ${d.toolName}`), LIMITS.headerText) }];

  if (d.path.length > 1) {
    const path = [...d.path, d.toolName].map((step) => escapeMrkdwn(truncate(step, 80))).join(' → ');
    blocks.push(section(`*Path:* ${truncateMrkdwn(path, scaled(600, scale, 120))}`));
  }

  const { message, rest, hasRest } = splitPayload(d.payload);
  if (message !== undefined && message.trim() !== '') {
    blocks.push(section(escapeMrkdwn(truncate(message, scaled(LIMITS.sectionText - 200, scale, 300)))));
  }
  if (hasRest) {
    const details = jsonCodeBlock(rest, scaled(LIMITS.sectionText - 200, scale, 300));
    blocks.push(section(details.text));
    if (details.truncated) {
      blocks.push(
        context(`Details truncated: showing ${details.shown.toLocaleString('en-US')} of ${details.total.toLocaleString('en-US')} characters`),
      );
    }
  }

  switch (d.state.kind) {
    case 'pending':
      if (d.confirmation) {
        blocks.push({
          type: 'actions',
          block_id: cardBlockId('suspension', d.actionId),
          elements: [
            { type: 'button', action_id: ACTION_IDS.suspensionYes, text: plainText('Yes'), style: 'primary', value: actionButtonValue(d.actionId) },
            { type: 'button', action_id: ACTION_IDS.suspensionNo, text: plainText('No'), value: actionButtonValue(d.actionId) },
          ],
        });
        if (d.autoResume) blocks.push(context('…or reply in this thread'));
      } else if (d.respondable) {
        blocks.push({
          type: 'actions',
          block_id: cardBlockId('suspension', d.actionId),
          elements: [
            {
              type: 'button',
              action_id: ACTION_IDS.suspensionRespond,
              text: plainText('Respond'),
              style: 'primary',
              value: actionButtonValue(d.actionId),
            },
          ],
        });
        if (d.autoResume) blocks.push(context('…or reply in this thread'));
      } else {
        blocks.push(context('Reply in this thread to continue.'));
      }
      break;
    case 'answered':
      blocks.push(section(`:speech_balloon: ${answeredText(d.state.answer, d.state.by, scaled(2000, scale, 200))}`));
      break;
    case 'cancelled':
      blocks.push(context(':heavy_multiplication_x: Cancelled'));
      break;
    default:
      return unreachable(d.state, 'suspension card state');
  }
  return blocks;
}
