import type { DeniedCall } from '../../agent/api-types.js';
import { context, oneLine } from '../kit/text-objects.js';
import { truncate } from '../kit/limits.js';
import { escapeMrkdwn, inlineCode } from '../kit/mrkdwn/escape-mrkdwn.js';
import { slackDate } from '../kit/slack-date.js';
import type { SlackContext, ThreadTarget } from '../context.js';

/** A call the policy refused, as the thread hears it. */
interface PolicyRefusal {
  toolName: string;
  reason: string;
  freeze?: { name: string; until?: Date };
}

/**
 * ":no_entry: `delete_record` refused by policy: <reason>": the tool, the policy's reason
 * (escaped: a policy file is text someone wrote) and the change freeze that refused it, if one did.
 */
export function policyRefusalText(r: PolicyRefusal): string {
  const during = r.freeze ? ` during change freeze ${inlineCode(truncate(r.freeze.name, 80))}${r.freeze.until ? ` (until ${slackDate(r.freeze.until)})` : ''}` : '';
  const reason = escapeMrkdwn(truncate(oneLine(r.reason), 1500));
  const stop = /[.!?…]$/.test(reason) ? '' : '.';
  return `:no_entry: ${inlineCode(truncate(r.toolName, 100))} refused by policy${during}: ${reason}${stop} It did not run, and nobody was asked.`;
}

/**
 * A call the policy refused is said in its run's thread (people there would otherwise see only
 * what the model makes of it). A failure to post is logged: the audit log has the denial.
 */
export async function postPolicyRefusal(ctx: SlackContext, target: ThreadTarget, denied: DeniedCall): Promise<void> {
  if (!denied.policy) return;
  const freeze = denied.policy.freeze;
  const text = policyRefusalText({
    toolName: denied.toolName,
    reason: denied.policy.reason,
    ...(freeze ? { freeze: { name: freeze.name, ...(freeze.until ? { until: new Date(freeze.until) } : {}) } } : {}),
  });
  try {
    await ctx.client.chat.postMessage({ channel: target.channel, ...(target.threadTs ? { thread_ts: target.threadTs } : {}), text, blocks: [context(text)] });
  } catch (error) {
    ctx.logger.warn({ err: error, toolCallId: denied.toolCallId }, 'a call refused by policy could not be told in the thread');
  }
}
