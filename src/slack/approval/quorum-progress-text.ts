import type { NotifyMode } from '../../approvals/policy-types.js';
import { escapeMrkdwn } from '../kit/mrkdwn/escape-mrkdwn.js';
import { truncate } from '../kit/limits.js';
import { humanList, mention } from '../kit/mention.js';
import { whoDecides } from '../kit/who-decides.js';

export interface QuorumProgress {
  actionId: number;
  toolName: string;
  quorum: number;
  /** Who approved so far, in order. */
  approvals: readonly string[];
  /** Who may still approve: the approvers (users and groups) minus the users who already did. */
  remaining: readonly string[];
  notify: NotifyMode;
}

/**
 * "1 of 2: @bob approved `issue_refund` (request #7); one more from @finance." The people still
 * needed are mentioned (they are the ones being asked); the tool name is escaped.
 */
export function quorumProgressText(p: QuorumProgress): string {
  const left = Math.max(0, p.quorum - p.approvals.length);
  const who = humanList(p.approvals.map(mention), { maxChars: 600 });
  const what = `\`${escapeMrkdwn(truncate(p.toolName, 100))}\` (request #${p.actionId})`;
  const more = left === 1 ? 'one more' : `${left} more`;
  const from = p.remaining.length > 0 ? ` from ${whoDecides(p.remaining, p.notify, { maxChars: 1000 })}` : '';
  return `${p.approvals.length} of ${p.quorum}: ${who} approved ${what}; ${more} needed${from}.`;
}
