import type { NotifyMode } from '../../approvals/policy-types.js';
import { escapeMrkdwn, slackDate } from './mrkdwn/escape-mrkdwn.js';
import { truncate } from './limits.js';
import { mention, whoDecides } from './mention.js';

export interface NoticeFacts {
  actionId: number;
  toolName: string;
  expiresAt: Date;
  /** Who the notice is for: the approvers who have not decided (users and groups). */
  to: readonly string[];
  notify: NotifyMode;
  /** A link to the card, when known. */
  cardLink?: string;
}

function what(f: Pick<NoticeFacts, 'actionId' | 'toolName' | 'cardLink'>): string {
  const name = `\`${escapeMrkdwn(truncate(f.toolName, 100))}\` (request #${f.actionId})`;
  return f.cardLink ? `<${f.cardLink}|${name}>` : name;
}

function addressed(f: NoticeFacts): string {
  return f.to.length > 0 ? `${whoDecides(f.to, f.notify, { conjunction: 'and', maxChars: 1000 })}: ` : '';
}

/** The nth reminder to the approvers who have not decided yet. */
export function reminderText(f: NoticeFacts): string {
  return `:bell: ${addressed(f)}${what(f)} is still waiting for a decision. It expires ${slackDate(f.expiresAt)}.`;
}

/** The last warning shortly before expiry. */
export function lastWarningText(f: NoticeFacts): string {
  return `:hourglass_flowing_sand: ${addressed(f)}last call for ${what(f)}: it expires ${slackDate(f.expiresAt)} unless someone decides.`;
}

/** Escalation: `to` are the approvers it added, who may now decide too. */
export function escalationText(f: NoticeFacts): string {
  return `:arrow_double_up: ${addressed(f)}${what(f)} has waited too long and is escalated to you: you may now approve or decline it. It expires ${slackDate(f.expiresAt)}.`;
}

/** Told to the requester once their request expired undecided. */
export function expiredText(f: { actionId: number; toolName: string; expiresAt: Date; requester?: string }): string {
  const who = f.requester ? `${mention(f.requester)}, your` : 'The';
  return `:hourglass: ${who} request ${what(f)} expired: nobody decided before ${slackDate(f.expiresAt)}, so it did not run.`;
}
