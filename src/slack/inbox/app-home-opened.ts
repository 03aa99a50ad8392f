import type { App } from '@slack/bolt';
import type { SlackContext } from '../context.js';

/** Opening the Home tab publishes the person's inbox, drawn as it is now. */
export function registerAppHomeOpened(app: App, ctx: SlackContext): void {
  app.event('app_home_opened', async ({ event }) => {
    // Events are acknowledged by Bolt before listeners run; the Messages tab has nothing to draw.
    const home = ctx.home;
    if (event.tab !== 'home' || !home || !event.user || event.user === ctx.botUserId) return;
    ctx.tasks.run('app_home_opened', () => home.opened(event.user));
  });
}
