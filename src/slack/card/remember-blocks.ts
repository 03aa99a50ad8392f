import type { Button } from '@slack/types';
import { mention } from '../kit/mention.js';
import { slackDate } from '../kit/mrkdwn/escape-mrkdwn.js';
import type { RememberedUnusedNote } from './card-types.js';
import { unreachable } from '../../unreachable.js';
import { ACTION_IDS } from '../kit/action-ids.js';
import { LIMITS } from '../kit/limits.js';
import { plainText } from '../kit/text-objects.js';

/**
 * Why a card was posted although a remembered approval matched the call, e.g. "*Remembered
 * approval not used:* @alice's remembered approval #3 (until …) stands for 1 approval; this
 * call needs 2 approvals now". `quorum` is the request's.
 */
export function rememberedUnusedText(d: RememberedUnusedNote, quorum: number): string {
  const needs = d.why.map((why) => {
    switch (why) {
      case 'quorum':
        return `${quorum} approvals (it stands for ${d.approvals})`;
      case 'approvers':
        return 'approval by the approvers listed above';
      case 'self-approval':
        return 'approval by someone other than the requester';
      case 'reason':
        return 'a reason with each approval';
      case 'risk':
        return 'the care of a high-risk action';
      case 'limits':
        return 'approval under the cumulative limits it goes over';
      default:
        return unreachable(why, 'remembered approval refusal');
    }
  });
  return (
    `:repeat: *Remembered approval not used:* ${mention(d.allowedBy)}'s remembered approval #${d.rememberedGrantId} ` +
    `(until ${slackDate(d.expiresAt)}) does not cover this call, which now needs ${needs.length > 0 ? needs.join(', ') : 'more'}.`
  );
}

/** The card's "Approve and allow for 1 hour": the Approve button's value, a different action id. */
export function rememberButton(value: string, rememberForMs: number): Button {
  return {
    type: 'button',
    action_id: ACTION_IDS.approveRemember,
    text: plainText(`Approve and allow for ${rememberDuration(rememberForMs)}`, LIMITS.buttonText),
    value,
  };
}

/**
 * A remembered approval's length in words for the button and the thread: "1 hour", "30 minutes",
 * "1 day", "90 seconds"; the largest unit that divides it evenly, so it is never rounded up.
 */
export function rememberDuration(ms: number): string {
  const units: Array<[number, string]> = [
    [86_400_000, 'day'],
    [3_600_000, 'hour'],
    [60_000, 'minute'],
    [1000, 'second'],
  ];
  for (const [size, name] of units) {
    if (ms >= size && ms % size === 0) {
      const n = ms / size;
      return `${n} ${name}${n === 1 ? '' : 's'}`;
    }
  }
  const seconds = Math.max(1, Math.round(ms / 1000));
  return `${seconds} second${seconds === 1 ? '' : 's'}`;
}
