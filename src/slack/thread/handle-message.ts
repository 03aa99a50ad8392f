import { randomUUID } from 'node:crypto';
import type { SuspendedRun } from '../../db/rows.js';
import type { Request } from '../../agent/request.js';
import { resumeSchemaFor } from '../../agent/tool.js';
import { mention } from '../kit/mention.js';
import { questionOf, toolOf, type AskUserQuestion } from '../card/render-card.js';
import { showCardUpdate } from '../card/show-card-update.js';
import { refreshHomesFor } from '../card/lifecycle.js';
import { failureText } from '../kit/error-reference.js';
import { tellUser, findRequest, actorOf, type Person, type SlackContext, type ThreadTarget } from '../context.js';
import { showError } from './answer-stream.js';
import { runInThread } from './run-in-thread.js';
import { hasAgentErrorCode } from '../../agent/errors.js';
import { claimEvent, claimEventStartingRun, lockThread, releaseThreadLocks } from './claim-event.js';
import { workingReaction } from './assistant-status.js';
import { escapeMrkdwn } from '../kit/mrkdwn/escape-mrkdwn.js';
import { truncate } from '../kit/limits.js';

export interface IncomingMessage {
  eventId: string;
  /** mention: the bot was @-mentioned in a channel; dm: a direct message; reply: a thread reply without a mention. */
  kind: 'mention' | 'dm' | 'reply';
  channel: string;
  ts: string;
  /** The thread the conversation lives in; undefined for a DM's top level. */
  threadTs?: string;
  /** Who wrote the thread's first message (Slack's `parent_user_id` on thread replies). */
  parentUserId?: string;
  user: string;
  /** The workspace the event was delivered for (memory and thread locks are kept per workspace). */
  teamId: string;
  /** The writer's own team (see Person): a member of another workspace starts nothing here. */
  userTeamId: string;
  /** As Slack sent it (mentions as `<@U…>`, `&<>` escaped). */
  text: string;
}

/**
 * What the answer feature (answer/) does with a reply, passed in by the app: thread/ imports no
 * other feature.
 */
export interface MessageAnswers {
  /** A question's answer as read from a reply's text. */
  answerFromText(question: AskUserQuestion, text: string): unknown;
  /** Records the answer and shows the run going on (a reply needs no acknowledgement first). */
  resumeFromSlack(ctx: SlackContext, action: Request, data: unknown, who: ThreadTarget & Person, options: { reactTo: { channel: string; ts: string } }): Promise<unknown>;
  /** Whether the tool's resume schema has a Respond form (answered there, not by a reply). */
  hasRespondForm(schema: ReturnType<typeof resumeSchemaFor>): boolean;
  /** Whether this person may answer the request (its requester, by default). */
  mayAnswer(ctx: SlackContext, action: Request, who: Person): Promise<boolean>;
}

/**
 * One message from a person: cancel the thread's waiting run, answer what it
 * waits on, say that it is waiting, or start a run. Each event id acts once,
 * however often Slack delivers it.
 */
export async function handleMessage(ctx: SlackContext, m: IncomingMessage, answers: MessageAnswers): Promise<void> {
  const text = messageText(m.text, ctx.botUserId);
  const target: ThreadTarget = { channel: m.channel, ...(m.threadTs ? { threadTs: m.threadTs } : {}) };
  const who = { ...target, user: m.user, teamId: m.userTeamId };
  if (ctx.agent.isOutsider(actorOf(who))) return refuseOutsider(ctx, m, who);
  const threadId = threadIdOf(m.channel, conversationTs(ctx, m));
  const listRuns = async () => (await ctx.agent.listSuspendedRuns({ threadId, resourceId: m.teamId })).runs;
  const newThread = (runId: string) => ({ run_id: runId, channel: m.channel, thread_ts: m.threadTs ?? null, team_id: m.teamId, requester: m.user, message_ts: m.ts });
  let runs: SuspendedRun[];
  let runId: string | undefined;
  if (m.kind !== 'reply' && text !== '' && !isCancel(text)) {
    // A request: usually nothing waits in the thread, and the claim finds that out, takes the thread's lock and
    // records the new run's thread at once.
    const candidate = randomUUID();
    const lock = { agentId: ctx.agent.id, threadId, resourceId: m.teamId, staleAfterMs: ctx.agent.leaseMs };
    const claim = await claimEventStartingRun(ctx.slackDb, m.eventId, newThread(candidate), lock);
    if (claim === 'duplicate') return duplicate(ctx, m);
    runs = claim === 'busy' ? await listRuns() : [];
    // Busy with nothing on record: a run just ended (try again), or one has just started and is not on record yet.
    if (claim === 'start' || (runs.length === 0 && (await lockThread(ctx.slackDb, newThread(candidate), lock)))) runId = candidate;
  } else {
    runs = await listRuns();
    // Most channel replies are people talking to each other: only claim (write) the event when it concerns a run.
    if (m.kind === 'reply' && runs.length === 0) return;
    if (!(await claimEvent(ctx.slackDb, m.eventId))) return duplicate(ctx, m);
  }

  if (isCancel(text)) return cancel(ctx, m, runs, who, answers);

  const newest = runs
    .flatMap((r) => r.toolCalls)
    .filter((c) => !c.requiresApproval)
    .sort((a, b) => b.actionId - a.actionId)[0];
  const action = newest ? await findRequest(ctx, newest.actionId) : undefined;
  if (action && action.status === 'pending' && (await answerByText(ctx, m, action, text, threadId, answers))) return;

  const approvals = runs.flatMap((r) => r.toolCalls).filter((c) => c.requiresApproval);
  if (approvals.length > 0 && looksLikeDecision(text)) return showButtonsHint(ctx, who, approvals);

  if (runs.length > 0 || (m.kind !== 'reply' && text !== '' && runId === undefined)) {
    // Waiting on someone, or another run holds the thread (at work here or on another instance).
    if (m.kind !== 'reply') await showWaiting(ctx, target, runs);
    return;
  }
  if (m.kind === 'reply') return;
  if (text === '') {
    await ctx.client.chat.postMessage({ ...threadArgs(target), text: 'Tell me what you need, e.g. "look up order 1042".' });
    return;
  }

  const working = workingReaction(ctx, { channel: m.channel, ts: m.ts });
  let stream;
  try {
    stream = await ctx.agent.stream(text, { ...(runId ? { runId } : {}), threadId, resourceId: m.teamId, requester: m.user, requesterTeamId: m.userTeamId });
  } catch (error) {
    await working.done();
    await showError(ctx, target, error, 'could not start a run');
    return;
  }
  ctx.logger.info({ eventId: m.eventId, threadId, user: m.user, runId: stream.runId }, 'run started from Slack');
  await runInThread(ctx, stream, target, { working, recipient: { userId: m.user, ...(m.userTeamId ? { teamId: m.userTeamId } : {}) } });
}

/**
 * A message from someone outside the workspace (a Slack Connect partner) starts, answers and
 * cancels nothing. A mention or DM is told why, once per event, and the runtime audits the refusal
 * (`refused`, why `outside-workspace`); a thread reply is people talking, left alone.
 */
async function refuseOutsider(ctx: SlackContext, m: IncomingMessage, who: ThreadTarget & Person): Promise<void> {
  const log = ctx.logger.child({ eventId: m.eventId, user: m.user, teamId: m.userTeamId });
  if (m.kind === 'reply') return void log.debug('reply from outside the workspace ignored');
  if (!(await claimEvent(ctx.slackDb, m.eventId))) return;
  try {
    // The runtime refuses it (and puts it on the audit trail); nothing runs.
    const stream = await ctx.agent.stream(messageText(m.text, ctx.botUserId), { requester: m.user, requesterTeamId: m.userTeamId });
    log.error({ runId: stream.runId }, 'a run started for someone the front end found outside the workspace');
    return;
  } catch (error) {
    if (!hasAgentErrorCode(error, 'OUTSIDE_WORKSPACE')) throw error;
  }
  log.info('request from outside the workspace refused');
  await tellUser(ctx, who, 'I only take requests from members of this workspace, so nothing was started.');
}

/**
 * Where the conversation a message belongs to lives. In a DM, the bot posts
 * the cards and answers of a conversation held at the top level at the top
 * level too; a reply in a thread under one of them (answering a question
 * there, say) still belongs to that top-level conversation.
 */
function conversationTs(ctx: SlackContext, m: IncomingMessage): string | undefined {
  const underBotMessage = m.kind === 'dm' && m.threadTs !== undefined && ctx.botUserId !== undefined && m.parentUserId === ctx.botUserId;
  return underBotMessage ? undefined : m.threadTs;
}

/**
 * A reply answers a pending askUser question, or a suspended tool whose card
 * says to reply (no form can be built, or the agent auto-resumes). True when
 * the message was taken as an answer (or refused as one).
 */
async function answerByText(ctx: SlackContext, m: IncomingMessage, action: Request, text: string, threadId: string, answers: MessageAnswers): Promise<boolean> {
  const target: ThreadTarget = { channel: m.channel, ...(m.threadTs ? { threadTs: m.threadTs } : {}) };
  // A file shared without a comment (or a reply that only mentions someone) says nothing to answer with.
  if (text === '') return false;
  const question = questionOf(ctx.agent, action);
  if (question) {
    await answers.resumeFromSlack(ctx, action, answers.answerFromText(question, text), { ...target, user: m.user, teamId: m.userTeamId }, { reactTo: { channel: m.channel, ts: m.ts } });
    return true;
  }
  const tool = toolOf(ctx.agent, action);
  const form = tool ? answers.hasRespondForm(resumeSchemaFor(tool, action.args)) : false;
  if (form && !ctx.agent.defaultOptions.autoResumeSuspendedTools) return false;
  if (!(await answers.mayAnswer(ctx, action, { user: m.user, teamId: m.userTeamId }))) {
    await tellUser(ctx, { ...target, user: m.user }, `Only ${action.requester ? mention(action.requester) : 'the person who started this run'} can answer this.`);
    return true;
  }
  // The runtime reads the reply into the tool's resume schema (text, JSON, yes/no, the model as a last resort).
  const stream = await ctx.agent.stream(text, { threadId, resourceId: m.teamId, requester: m.user, requesterTeamId: m.userTeamId, autoResumeSuspendedTools: true });
  const after = await findRequest(ctx, action.id);
  if (after && after.status !== 'pending') await showCardUpdate(ctx, action.id);
  await runInThread(ctx, stream, target, { reactTo: { channel: m.channel, ts: m.ts } });
  return true;
}

async function cancel(ctx: SlackContext, m: IncomingMessage, all: SuspendedRun[], who: ThreadTarget & Person, answers: MessageAnswers): Promise<void> {
  // A run at work waits on nobody: "cancel" only stops what waits on someone.
  const runs = all.filter((r) => r.toolCalls.length > 0);
  if (runs.length === 0) {
    // A reply saying "cancel" in a thread with a run at work is meant for it; elsewhere it may be chatter.
    if (all.length > 0) await tellUser(ctx, who, 'The run in this thread is still working and waits on nobody, so there is nothing to cancel yet.');
    else if (m.kind !== 'reply') await tellUser(ctx, who, 'Nothing is waiting in this thread, so there is nothing to cancel.');
    return;
  }
  const actions = await Promise.all(runs.flatMap((r) => r.toolCalls).map((c) => findRequest(ctx, c.actionId)));
  const allowed = (await Promise.all(actions.map((a) => !a || answers.mayAnswer(ctx, a, who)))).every(Boolean);
  if (!allowed) {
    await tellUser(ctx, who, 'Only the person who started this run can cancel it. Nothing was changed.');
    return;
  }
  const cancelled = await cancelThreadRuns(ctx, runs.map((r) => r.runId), m.user);
  ctx.logger.info({ user: m.user, cancelled }, 'thread runs cancelled');
  if (cancelled.length === 0) {
    // A decision landed between reading the thread and cancelling: the run goes on as decided.
    await tellUser(ctx, who, 'It was decided a moment ago and is going on, so nothing was cancelled.');
    return;
  }
  await ctx.client.chat.postMessage({
    ...threadArgs(who),
    text: `:heavy_multiplication_x: Cancelled by ${mention(m.user)}. Nothing further will run for that request.`,
  });
}

/** A reply that reads like a decision decides nothing: its writer alone is told to use the card's buttons. */
async function showButtonsHint(ctx: SlackContext, who: ThreadTarget & { user: string }, calls: SuspendedRun['toolCalls']): Promise<void> {
  const listed = calls.slice(0, 3).map((c) => `\`${escapeMrkdwn(truncate(c.toolName, 100))}\` (request #${c.actionId})`);
  const more = calls.length > listed.length ? ` and ${calls.length - listed.length} more` : '';
  await tellUser(
    ctx,
    who,
    `Replies do not decide requests: use the *Approve* or *Decline* button on the card for ${listed.join(', ')}${more}. ` +
      'Only the buttons carry the exact call being approved.',
  );
}

async function showWaiting(ctx: SlackContext, target: ThreadTarget, runs: SuspendedRun[]): Promise<void> {
  const calls = runs.flatMap((r) => r.toolCalls);
  if (calls.length === 0) {
    // On record but waiting on nobody: the run is at work (a model call, a tool), here or on another instance.
    await ctx.client.chat.postMessage({
      ...threadArgs(target),
      text: 'I am still working on the earlier request here; its outcome will be posted when it is done. Ask again after that.',
    });
    return;
  }
  const listed = calls.slice(0, 5).map((c) => `\`${c.toolName}\` (request #${c.actionId})`);
  const more = calls.length > listed.length ? ` and ${calls.length - listed.length} more` : '';
  const what = calls.some((c) => c.requiresApproval) ? 'a decision' : 'an answer';
  await ctx.client.chat.postMessage({
    ...threadArgs(target),
    text:
      `This thread is still waiting for ${what} on ${listed.join(', ')}${more}. ` +
      'Use the card above, or say `cancel` to stop that run before starting a new one.',
  });
}

function duplicate(ctx: SlackContext, m: IncomingMessage): void {
  ctx.logger.info({ eventId: m.eventId }, 'duplicate event delivery ignored');
}

/** For BackgroundTasks: a message whose handling failed gets a short answer with the log reference. */
export function reportMessageFailure(ctx: SlackContext, m: Pick<IncomingMessage, 'channel' | 'threadTs'>): (ref: string) => Promise<unknown> {
  return (ref) => ctx.client.chat.postMessage({ ...threadArgs({ channel: m.channel, ...(m.threadTs ? { threadTs: m.threadTs } : {}) }), text: failureText(ref) });
}

function threadArgs(target: ThreadTarget): { channel: string; thread_ts?: string } {
  return { channel: target.channel, ...(target.threadTs ? { thread_ts: target.threadTs } : {}) };
}

/**
 * Stops the runs waiting in a thread (Agent.cancelRuns), so nothing further
 * runs and no model is asked to carry on (the thread's memory says the calls
 * were cancelled, by whom), frees the thread for the next request, and redraws
 * the cancelled requests' cards. Returns the ids of the requests it cancelled:
 * none when a decision landed first.
 */
async function cancelThreadRuns(ctx: SlackContext, rootRunIds: string[], actor: string): Promise<number[]> {
  const cancelled = await ctx.agent.cancelRuns(rootRunIds, actor, 'Cancelled in Slack.');
  if (cancelled.length > 0) await releaseThreadLocks(ctx.slackDb, rootRunIds);
  for (const id of cancelled) await showCardUpdate(ctx, id);
  // Inboxes that listed them drop them; read after the redraws, so nothing waits on it.
  if (ctx.home) for (const id of cancelled) {
    findRequest(ctx, id).then(
      (request) => refreshHomesFor(ctx, request),
      (error: unknown) => ctx.logger.warn({ err: error, actionId: id }, 'cancelled request could not be read for Home updates'),
    );
  }
  return cancelled;
}

/**
 * The text a person wrote, as the model should read it: without the bot's own
 * mention, and with Slack's `&amp;`/`&lt;`/`&gt;` turned back into characters.
 */
export function messageText(raw: string, botUserId: string | undefined): string {
  let text = raw;
  if (botUserId) text = text.split(`<@${botUserId}>`).join(' ');
  return text
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')
    .replace(/[ \t]+/g, ' ')
    .trim();
}

/** "cancel" on its own (any case, optional punctuation) stops the thread's waiting run. */
export function isCancel(text: string): boolean {
  return /^cancel[.!]*$/i.test(text.trim());
}

export function threadIdOf(channel: string, threadTs: string | undefined): string {
  return threadTs ? `${channel}:${threadTs}` : channel;
}

const DECISION_WORDS = [
  'approve', 'approved', 'approving', 'lgtm', 'sgtm', 'yes', 'yep', 'yeah', 'y', 'ok', 'okay', 'go', 'go ahead', 'ship it',
  'do it', 'sure', 'confirmed', 'confirm', 'accept', 'accepted', 'no', 'nope', 'n', 'decline', 'declined', 'deny', 'denied',
  'reject', 'rejected', "don't", 'do not', 'stop',
];
const EMOJI = /^(:\+1:|:thumbsup:|:-1:|:thumbsdown:|:white_check_mark:|:heavy_check_mark:|:x:|:no_entry:|👍|👎|✅|❌)$/u;
const PATTERN = new RegExp(`^(${DECISION_WORDS.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})( it| this| that)?[.!]*$`, 'i');

/**
 * A short reply that reads as a decision ("approved", "lgtm", "no", 👍). Such a reply under a
 * pending card decides nothing (a decision needs the button's fingerprint), so its writer is
 * pointed to the buttons instead of being left to think it counted.
 */
export function looksLikeDecision(text: string): boolean {
  const t = text.trim().replace(/\s+/g, ' ');
  if (t.length === 0 || t.length > 40) return false;
  return PATTERN.test(t) || EMOJI.test(t);
}
