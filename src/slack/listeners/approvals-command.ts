import type { App } from '@slack/bolt';
import { answerApprovalsCommand } from '../flows/approvals-command.js';
import { failureText } from '../flows/failure-text.js';
import type { SlackContext } from '../slack-context.js';

/** `/approvals [id]`: acknowledged at once; the answer goes to the person alone through the response_url (JSON, so blocks go as they are). */
export function registerApprovalsCommand(app: App, ctx: SlackContext): void {
  app.command('/approvals', async ({ ack, command, respond }) => {
    await ack();
    const log = ctx.logger.child({ user: command.user_id, command: '/approvals' });
    ctx.tasks.run(
      '/approvals',
      async () => {
        const answer = await answerApprovalsCommand(ctx, command.user_id, command.text);
        await respond({ response_type: 'ephemeral', text: answer.text, ...(answer.blocks ? { blocks: answer.blocks } : {}) });
        log.info('/approvals answered');
      },
      async (ref) => void (await respond({ response_type: 'ephemeral', text: failureText(ref) })),
    );
  });
}
