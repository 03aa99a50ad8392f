import type { NotifyMode, Route } from '../../approvals/policy-types.js';
import { inlineCode } from './mrkdwn/escape-mrkdwn.js';
import { humanList, isUserGroupId, isUserId, mentionApprover } from './mention.js';

/**
 * The approvers as mrkdwn: mentions (`<@U…>`, `<!subteam^S…>`), which is how the bot notifies
 * them on purpose, or, with `notify: none`, their ids as code, which Slack shows without pinging
 * anyone. Anything that is not a valid id is escaped by mentionApprover either way.
 */
export function whoDecides(
  approvers: readonly string[],
  notify: NotifyMode,
  options: { conjunction?: 'and' | 'or'; maxChars?: number } = {},
): string {
  const shown = approvers.map((id) => (notify === 'none' && (isUserId(id) || isUserGroupId(id)) ? inlineCode(id) : mentionApprover(id)));
  return humanList(shown, { conjunction: options.conjunction ?? 'or', noun: 'approvers', ...(options.maxChars !== undefined ? { maxChars: options.maxChars } : {}) });
}

/** Where copies of a card go besides the thread, as the card's *Sent to:* line says it; undefined for `thread`. */
export function describeRoute(route: Route): string | undefined {
  if (route === 'thread') return undefined;
  return route === 'dm' ? 'the approvers by DM' : `<#${route.channel}>`;
}
