import type { Button } from '@slack/types';
import { ACTION_IDS } from '../kit/action-ids.js';
import { LIMITS } from '../kit/limits.js';
import { rememberDuration } from './remember-duration.js';
import { plainText } from '../kit/text-objects.js';

/** The card's "Approve and allow for 1 hour": the Approve button's value, a different action id. */
export function rememberButton(value: string, rememberForMs: number): Button {
  return {
    type: 'button',
    action_id: ACTION_IDS.approveRemember,
    text: plainText(`Approve and allow for ${rememberDuration(rememberForMs)}`, LIMITS.buttonText),
    value,
  };
}
