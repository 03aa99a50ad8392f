import { escapeMrkdwn, inlineCode } from './mrkdwn/escape-mrkdwn.js';
import type { NotifyMode, Route } from '../../approvals/policy-types.js';

const USER_ID = /^[UW][A-Z0-9]+$/;
const GROUP_ID = /^S[A-Z0-9]+$/;
/** Real ids are about 11 characters; a much longer "id" is data, not a person. */
const MAX_ID_LENGTH = 40;

export function isUserId(id: string): boolean {
  return id.length <= MAX_ID_LENGTH && USER_ID.test(id);
}

export function isUserGroupId(id: string): boolean {
  return id.length <= MAX_ID_LENGTH && GROUP_ID.test(id);
}

/**
 * `<@U…>` for a valid user id, escaped text for anything else: an id that came from storage
 * or a model must not be able to become `<!channel>`.
 */
export function mention(userId: string): string {
  return isUserId(userId) ? `<@${userId}>` : escapeMrkdwn(userId);
}

/** Like `mention`, but user groups (S…) become `<!subteam^S…>`, as approver lists allow them. */
export function mentionApprover(id: string): string {
  return isUserGroupId(id) ? `<!subteam^${id}>` : mention(id);
}

/**
 * "a", "a and b", "a, b and c" – or "a, b and 7 more" when the whole list would exceed
 * `maxChars`. Items are whole tokens (mentions), so the list is shortened, never cut mid-item.
 */
export function humanList(
  items: readonly string[],
  options: { conjunction?: 'and' | 'or'; maxChars?: number; noun?: string } = {},
): string {
  const { conjunction = 'and', maxChars = Number.POSITIVE_INFINITY, noun = 'people' } = options;
  const render = (shown: number): string => {
    const head = items.slice(0, shown);
    const rest = items.length - shown;
    if (rest > 0) return `${head.join(', ')} ${conjunction} ${rest} more`;
    if (head.length <= 1) return head.join('');
    return `${head.slice(0, -1).join(', ')} ${conjunction} ${head[head.length - 1]!}`;
  };
  if (items.length === 0) return '';
  // Lengths are computed, not rendered: cards list every approver, and a long list was bisected string by string.
  const prefix = [0];
  for (const item of items) prefix.push(prefix[prefix.length - 1]! + item.length);
  const lengthOf = (shown: number): number => {
    const rest = items.length - shown;
    const joined = prefix[shown]! + 2 * Math.max(0, shown - 1);
    if (rest > 0) return joined + conjunction.length + String(rest).length + 7;
    return shown <= 1 ? joined : joined + conjunction.length; // ", " before the last item becomes " and "
  };
  if (lengthOf(items.length) <= maxChars) return render(items.length);
  // The rendered length grows with the number shown, so the longest fitting prefix is found by bisection.
  let lo = 0;
  let hi = items.length - 1;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (lengthOf(mid) <= maxChars) lo = mid;
    else hi = mid - 1;
  }
  return lo === 0 ? `${items.length} ${noun}` : render(lo);
}

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
