import type { App } from '@slack/bolt';
import { answerApprovalsCommand } from './approvals-command.js';
import { failureText } from '../kit/failure-text.js';
import type { Person, SlackContext } from '../context.js';

/** `/approvals [id]`: acknowledged at once; the answer goes to the person alone through the response_url (JSON, so blocks go as they are). */
export function registerApprovalsCommand(app: App, ctx: SlackContext): void {
  app.command('/approvals', async ({ ack, command, respond }) => {
    await ack();
    const log = ctx.logger.child({ user: command.user_id, command: '/approvals' });
    ctx.tasks.run(
      '/approvals',
      async () => {
        const answer = await answerApprovalsCommand(ctx, commandPerson(command), command.text);
        await respond({ response_type: 'ephemeral', text: answer.text, ...(answer.blocks ? { blocks: answer.blocks } : {}) });
        log.info('/approvals answered');
      },
      async (ref) => void (await respond({ response_type: 'ephemeral', text: failureText(ref) })),
    );
  });
}

/**
 * Who typed the command: a command names the workspace it was typed in (`team_id`), and on
 * Enterprise Grid its organisation (`enterprise_id`), which is how a member of the organisation
 * typing it in another of its workspaces is recognised.
 */
function commandPerson(command: { user_id: string; team_id: string; enterprise_id?: string }): Person {
  return { user: command.user_id, teamId: command.team_id ?? '', ...(command.enterprise_id ? { enterpriseId: command.enterprise_id } : {}) };
}
