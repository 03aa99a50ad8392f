import type { ButtonAction } from '@slack/bolt';
import type { PendingAction } from '../../db/rows.js';
import { parseCardBlockId } from '../kit/action-ids.js';
import { parseButtonValue, type ButtonValue } from '../kit/button-value.js';
import type { Click, SlackContext } from '../context.js';
import type { CardRow } from './cards.js';
import { clickedCard } from './clicked-card.js';

export interface GenuineButton {
  value: Required<ButtonValue>;
  /** The request as read while checking the button. */
  row: PendingAction | undefined;
  /** Where its card is, as read with it. */
  card: CardRow | undefined;
}

/** The request a button is for, or undefined (logged) when the button is not genuine. */
export async function genuineButton(ctx: SlackContext, click: Click, action: ButtonAction): Promise<GenuineButton | undefined> {
  const value = parseButtonValue(action.value);
  const block = parseCardBlockId(action.block_id);
  const checked =
    value?.fingerprintPrefix !== undefined && block?.kind === 'approval' && block.actionId === value.actionId
      ? await clickedCard(ctx, click, value.actionId)
      : false;
  if (!checked) {
    ctx.logger.warn({ user: click.user, actionId: action.action_id, value: action.value, blockId: action.block_id }, 'approval button refused: value does not match a card');
    return undefined;
  }
  return { value: value as Required<ButtonValue>, row: checked.state?.action, card: checked.state?.card };
}

