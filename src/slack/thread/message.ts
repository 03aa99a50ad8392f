import type { App } from '@slack/bolt';
import { handleMessage, reportMessageFailure, type IncomingMessage, type MessageAnswers } from './handle-message.js';
import type { SlackContext } from '../context.js';

/** Subtypes that are still a person writing; edits, deletions, joins and bot posts are not. */
const PERSON_SUBTYPES = new Set([undefined, 'thread_broadcast', 'file_share']);

interface MessageFields {
  subtype?: string;
  bot_id?: string;
  user?: string;
  text?: string;
  ts: string;
  thread_ts?: string;
  parent_user_id?: string;
  channel: string;
  channel_type?: string;
  team?: string;
  user_team?: string;
}

/**
 * DMs start or continue a run; a thread reply without a mention may answer
 * what the thread's run waits on. Mentions in channels arrive as app_mention
 * too, and are handled there.
 */
export function registerMessage(app: App, ctx: SlackContext, answers: MessageAnswers): void {
  app.event('message', async ({ event, body }) => {
    const m = event as unknown as MessageFields;
    if (!PERSON_SUBTYPES.has(m.subtype) || m.bot_id || !m.user || m.user === ctx.botUserId) return;
    const dm = m.channel_type === 'im';
    const reply = !dm && m.thread_ts !== undefined && m.thread_ts !== m.ts;
    if (!dm && !reply) return;
    if (!dm && ctx.botUserId && (m.text ?? '').includes(`<@${ctx.botUserId}>`)) return;
    const message: IncomingMessage = {
      eventId: body.event_id,
      kind: dm ? 'dm' : 'reply',
      channel: m.channel,
      ts: m.ts,
      ...(m.thread_ts ? { threadTs: m.thread_ts } : {}),
      ...(m.parent_user_id ? { parentUserId: m.parent_user_id } : {}),
      user: m.user,
      teamId: body.team_id ?? m.team ?? '',
      userTeamId: m.user_team ?? m.team ?? '',
      text: m.text ?? '',
    };
    ctx.tasks.run(dm ? 'dm' : 'thread_reply', () => handleMessage(ctx, message, answers), reportMessageFailure(ctx, message));
  });
}

/** A mention starts (or, in a waiting thread, answers or explains) a run in the mention's thread. */
export function registerAppMention(app: App, ctx: SlackContext, answers: MessageAnswers): void {
  app.event('app_mention', async ({ event, body }) => {
    // Events are acknowledged by Bolt before listeners run; the work is handed off so nothing waits on it.
    if (!event.user || event.bot_id || event.user === ctx.botUserId) return;
    // Editing a message that mentions the bot makes Slack send app_mention again (same ts, new
    // event id): the request it made was handled when it was first posted.
    if ((event as { edited?: unknown }).edited) {
      ctx.logger.info({ eventId: body.event_id, channel: event.channel, ts: event.ts }, 'edited mention ignored');
      return;
    }
    const message: IncomingMessage = {
      eventId: body.event_id,
      kind: 'mention',
      channel: event.channel,
      ts: event.ts,
      threadTs: event.thread_ts ?? event.ts,
      user: event.user,
      teamId: body.team_id ?? event.team ?? '',
      userTeamId: event.user_team ?? event.team ?? '',
      text: event.text ?? '',
    };
    ctx.tasks.run('app_mention', () => handleMessage(ctx, message, answers), reportMessageFailure(ctx, message));
  });
}
