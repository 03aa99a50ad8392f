import { approversAt } from '../../approvals/approvers-at.js';
import type { Request } from '../../agent/request.js';
import { humanList, isUserGroupId, isUserId } from '../kit/mention.js';
import type { SlackContext, ThreadTarget, AssistantFeature, AssistantThreads } from '../context.js';
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

/**
 * SLACK_ASSISTANT: whether the bot uses Slack's AI-app methods (assistant.threads.setStatus,
 * chat.startStream/appendStream/stopStream). `auto`: in threads of direct messages with the
 * app, where Slack shows an assistant's status and streams; `on`: in every thread; `off`: never.
 */
export type AssistantMode = 'auto' | 'on' | 'off';

/** Errors that will not go away while this process runs: the method is missing or the app lacks the scope. */
const PERMANENT = new Set(['unknown_method', 'missing_scope']);

/**
 * What this process knows about the AI-app methods: where to try them, and which of them
 * Slack has refused for good (then the bot keeps to its reaction and posted messages).
 */
export class AssistantSupport implements AssistantThreads {
  private readonly refused = new Set<AssistantFeature>();
  /** Display names of approvers for the status line, by user or group id. */
  readonly names = new Map<string, string>();
  /** Threads this process gave a "waiting for approval" status, so a continuation clears it as it starts. */
  private readonly waiting = new Set<string>();

  constructor(readonly mode: AssistantMode) {}

  /** Whether to try `feature` in this place: configured, not refused for good, and a thread to do it in. */
  tries(feature: AssistantFeature, target: { channel: string; threadTs?: string }): boolean {
    if (this.mode === 'off' || this.refused.has(feature) || target.threadTs === undefined) return false;
    return this.mode === 'on' || target.channel.startsWith('D');
  }

  /** A call of `feature` failed with `code`; the permanent ones stop every later try in this process. */
  failed(feature: AssistantFeature, code: string | undefined): void {
    if (code !== undefined && PERMANENT.has(code)) this.refused.add(feature);
  }

  isRefused(feature: AssistantFeature): boolean {
    return this.refused.has(feature);
  }

  markWaiting(target: { channel: string; threadTs?: string }): void {
    this.waiting.add(`${target.channel} ${target.threadTs ?? ''}`);
  }

  /** Whether this process left the thread waiting (and forgets it). */
  takeWaiting(target: { channel: string; threadTs?: string }): boolean {
    return this.waiting.delete(`${target.channel} ${target.threadTs ?? ''}`);
  }
}

const REACTION = 'eyes';

/** Short enough that the reaction, with Slack's own latency, still shows within a second. */
export const DEFAULT_WORKING_REACTION_DELAY_MS = 300;

/**
 * The "I'm on it" signal: a reaction on the message that started the work,
 * removed when the work ends. It goes on only once the work has taken
 * `workingReactionDelayMs` (a model call nearly always does): work that is
 * done sooner shows its outcome within that time, and a reaction added and
 * removed at once would only flicker and spend two Web API calls. Failures
 * only cost the signal.
 */
export interface WorkingReaction {
  done(): Promise<void>;
}

/**
 * Takes off the working reaction; also one this process did not add (a
 * stopped process left it behind), where there may be none: that only costs
 * the call.
 */
export async function clearWorkingReaction(ctx: Pick<SlackContext, 'client' | 'logger'>, message: { channel: string; ts: string }): Promise<void> {
  await ctx.client.reactions
    .remove({ channel: message.channel, timestamp: message.ts, name: REACTION })
    .catch((error: unknown) => ctx.logger.debug({ err: error }, 'could not remove the working reaction'));
}

export function workingReaction(
  ctx: Pick<SlackContext, 'client' | 'logger' | 'workingReactionDelayMs'>,
  message: { channel: string; ts: string },
): WorkingReaction {
  let added: Promise<boolean> | undefined;
  const add = () => {
    added = ctx.client.reactions
      .add({ channel: message.channel, timestamp: message.ts, name: REACTION })
      .then(() => true)
      .catch((error: unknown) => {
        if (slackErrorCode(error) === 'already_reacted') return true;
        ctx.logger.debug({ err: error }, 'could not add the working reaction');
        return false;
      });
  };
  let timer: NodeJS.Timeout | undefined;
  if (ctx.workingReactionDelayMs > 0) {
    timer = setTimeout(add, ctx.workingReactionDelayMs);
    // Cleared by done(); it must not keep a stopping process alive on its own.
    timer.unref();
  } else {
    add();
  }
  return {
    async done() {
      clearTimeout(timer);
      if (!added || !(await added)) return;
      await clearWorkingReaction(ctx, message);
    },
  };
}
