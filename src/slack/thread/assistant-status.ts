import { approversAt } from '../../approvals/approvers-at.js';
import type { Request } from '../../agent/request.js';
import { humanList, isUserGroupId, isUserId } from '../kit/mention.js';
import type { SlackContext, ThreadTarget } from '../context.js';
import { slackErrorCode } from '../transport/slack-web-client.js';

/** Slack shows a status on one line; a long approver list ends in "and 3 more". */
const STATUS_CHARS = 120;

/**
 * Slack's assistant status while a run waits for approval: "waiting for approval from @finance",
 * naming who decides in plain text (display names, no mentions, so nobody is pinged again).
 * Only where SLACK_ASSISTANT allows it; a refusal costs the status, nothing else.
 */
export async function showWaitingStatus(ctx: SlackContext, target: ThreadTarget, waitingOn: readonly Request[]): Promise<void> {
  if (!ctx.assistant?.tries('status', target) || waitingOn.length === 0) return;
  const now = new Date();
  const ids = [...new Set(waitingOn.flatMap((a) => approversAt(ctx.agent.requirementOf(a), a.createdAt, now)))];
  const names = await Promise.all(ids.map((id) => displayName(ctx, id)));
  const who = humanList(names, { conjunction: 'or', maxChars: STATUS_CHARS, noun: 'approvers' });
  if (await setStatus(ctx, target, who === '' ? 'waiting for approval' : `waiting for approval from ${who}`)) ctx.assistant.markWaiting(target);
}

/** Clears the status once the run has moved on (continued, answered, ended). */
export async function clearAssistantStatus(ctx: SlackContext, target: ThreadTarget): Promise<void> {
  if (!ctx.assistant?.tries('status', target)) return;
  ctx.assistant.takeWaiting(target);
  await setStatus(ctx, target, '');
}

/** A run continuing in a thread this process left waiting: the status goes at once, not when the run ends. */
export async function clearWaitingStatus(ctx: SlackContext, target: ThreadTarget): Promise<boolean> {
  if (!ctx.assistant?.takeWaiting(target)) return false;
  await clearAssistantStatus(ctx, target);
  return true;
}

async function setStatus(ctx: SlackContext, target: ThreadTarget, status: string): Promise<boolean> {
  try {
    await ctx.client.assistant.threads.setStatus({ channel_id: target.channel, thread_ts: target.threadTs!, status });
    return true;
  } catch (error) {
    const code = slackErrorCode(error);
    ctx.assistant?.failed('status', code);
    ctx.logger.debug({ err: error, code }, 'could not set the assistant status');
    return false;
  }
}

/** `@name` of a person or group as Slack shows it, remembered for the process; the id when it cannot be read. */
async function displayName(ctx: SlackContext, id: string): Promise<string> {
  const names = ctx.assistant!.names;
  const known = names.get(id);
  if (known !== undefined) return known;
  let name: string | undefined;
  try {
    if (isUserId(id)) {
      const info = await ctx.client.users.info({ user: id });
      const user = info.user;
      name = user?.profile?.display_name || user?.real_name || user?.name;
    } else if (isUserGroupId(id)) {
      const list = await ctx.client.usergroups.list({});
      for (const group of list.usergroups ?? []) {
        if (group.id && group.handle) names.set(group.id, `@${plain(group.handle)}`);
      }
      return names.get(id) ?? id;
    }
  } catch (error) {
    const code = slackErrorCode(error);
    ctx.logger.debug({ err: error, id, code }, 'could not read a display name for the assistant status');
    // Errors that a retry would only repeat are remembered: the id stands in for the name.
    if (code === 'missing_scope' || code === 'user_not_found' || code === 'unknown_method') names.set(id, plain(id));
    return plain(id);
  }
  const shown = name ? `@${plain(name)}` : plain(id);
  names.set(id, shown);
  return shown;
}

/** A status is plain text, but nothing in it should look like Slack markup either. */
function plain(text: string): string {
  return text.replace(/[<>&\n]/g, '').slice(0, 80);
}
