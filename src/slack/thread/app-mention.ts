import type { App } from '@slack/bolt';
import { handleMessage, reportMessageFailure, type IncomingMessage } from './handle-message.js';
import type { SlackContext } from '../context.js';

/** A mention starts (or, in a waiting thread, answers or explains) a run in the mention's thread. */
export function registerAppMention(app: App, ctx: SlackContext): void {
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
    ctx.tasks.run('app_mention', () => handleMessage(ctx, message), reportMessageFailure(ctx, message));
  });
}
