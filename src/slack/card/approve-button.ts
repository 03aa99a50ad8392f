import type { Button, ConfirmationDialog } from '@slack/types';
import { ACTION_IDS } from '../kit/action-ids.js';
import { LIMITS, truncate } from '../kit/limits.js';
import { oneLine, plainText } from '../kit/text-objects.js';

export interface ApproveButtonOptions {
  /** The button's value (request id + fingerprint prefix). */
  value: string;
  /** What is being approved, in words (the card's title). */
  title: string;
  /** `high`: Slack asks the clicker to confirm before the click is sent. */
  risk?: 'low' | 'high';
  /** The click opens a modal asking for the reason instead of approving at once. */
  requireReason?: boolean;
}

/**
 * The card's Approve button. A high-risk call is confirmed in Slack's own dialog first; one whose
 * policy wants a reason has its own action id, so the click opens the reason modal and never
 * decides on its own (the runtime refuses an approval without a reason anyway).
 */
export function approveButton(options: ApproveButtonOptions): Button {
  const button: Button = {
    type: 'button',
    action_id: options.requireReason ? ACTION_IDS.approveWithReason : ACTION_IDS.approve,
    text: plainText(options.requireReason ? 'Approve…' : 'Approve'),
    style: 'primary',
    value: options.value,
  };
  if (options.risk === 'high') button.confirm = highRiskConfirm(options.title);
  return button;
}

/** Slack's own "are you sure?" before a high-risk approval is sent, naming the action. */
export function highRiskConfirm(title: string): ConfirmationDialog {
  const what = truncate(oneLine(title), 200);
  return {
    title: plainText('Approve a high-risk action?', LIMITS.confirmTitle),
    text: plainText(`You are approving: ${what}. This is marked high-risk; it runs as soon as the approval is complete.`, LIMITS.confirmText),
    confirm: plainText('Approve', LIMITS.confirmButton),
    deny: plainText('Cancel', LIMITS.confirmButton),
    style: 'danger',
  };
}
