import type { BlockAction, ButtonAction } from '@slack/bolt';
import type { z } from 'zod';
import type { PendingAction } from '../../db/rows.js';
import { resumeSchemaFor } from '../../agent/tool.js';
import { ACTION_IDS, CALLBACK_IDS, parseCardBlockId } from '../blocks/action-ids.js';
import { parseButtonValue } from '../blocks/button-value.js';
import type { RespondField } from '../blocks/card-types.js';
import { parseRespondModal, respondFieldBlockId, respondModal } from '../blocks/respond-modal.js';
import { toolOf } from '../cards/card-kind.js';
import { mayAnswer } from '../may-answer.js';
import { describeOutcome } from '../refusal-text.js';
import { recordAnswer, showAnswer } from '../resume-from-slack.js';
import { respondFieldsFor } from '../respond-fields.js';
import type { SlackContext } from '../slack-context.js';
import { findCard } from '../store/cards.js';
import { tellUser } from '../tell-user.js';
import { errorReference } from '../error-reference.js';
import { failureText } from '../failure-text.js';
import { clickedCard, clickOf, tamperedButton, tellClicker } from './click.js';
import type { InteractionRoutes } from './interaction-routes.js';
import { recordThenAck } from './record-then-ack.js';

/** The form a suspended tool's flat resume schema turns into, with the schema to check answers against. */
function formFor(ctx: SlackContext, action: PendingAction): { schema: z.ZodType; fields: RespondField[] } | undefined {
  const tool = toolOf(ctx.agent, action);
  const schema = tool ? resumeSchemaFor(tool, action.args) : undefined;
  const fields = respondFieldsFor(schema);
  return schema && fields ? { schema, fields } : undefined;
}

/**
 * Respond opens a modal built from the tool's resume schema. On submit, the
 * answer is checked before the modal closes, so a wrong value is shown next
 * to its field instead of in a message after the fact.
 */
export function registerRespondActions(routes: InteractionRoutes, ctx: SlackContext): void {
  routes.action<BlockAction<ButtonAction>>(ACTION_IDS.suspensionRespond, async ({ ack, body, action }) => {
    await ack();
    ctx.tasks.run('respond-open', async () => {
      const click = clickOf(body);
      if (!click) return;
      const value = parseButtonValue(action.value);
      const block = parseCardBlockId(action.block_id);
      const checked = value && block?.kind === 'suspension' && block.actionId === value.actionId ? await clickedCard(ctx, click, value.actionId) : false;
      const row = checked ? checked.state?.action : undefined;
      if (!row || row.kind !== 'suspension') {
        ctx.logger.warn({ user: click.user, value: action.value }, 'respond button refused: does not match a card');
        return tellUser(ctx, click, tamperedButton);
      }
      if (row.status !== 'pending') return tellUser(ctx, click, `This request was ${describeOutcome(row)}. Nothing was changed.`);
      if (!(await mayAnswer(ctx, row, click.user))) {
        return tellUser(ctx, click, 'Only the person who started this run can answer this. Nothing was changed.');
      }
      const form = formFor(ctx, row);
      if (!form) return tellUser(ctx, click, 'This input cannot be given in a form; reply in this thread instead.');
      try {
        if (!click.triggerId) throw new Error('no trigger_id');
        await ctx.client.views.open({ trigger_id: click.triggerId, view: respondModal({ actionId: row.id, toolName: row.tool_name, fields: form.fields }) });
      } catch (error) {
        ctx.logger.warn({ err: error, actionId: row.id }, 'respond modal could not open');
        await tellUser(ctx, click, 'I could not open the form. Press Respond again, or reply in this thread.');
      }
    }, tellClicker(ctx, body));
  });

  routes.view(CALLBACK_IDS.respondModal, async ({ ack, body, view }) => {
    const user = body.user.id;
    const meta = parseButtonValue(view.private_metadata);
    let row: PendingAction | undefined;
    try {
      row = meta ? await ctx.agent.findRequest(meta.actionId) : undefined;
    } catch (error) {
      // The modal must still close within Slack's 3 seconds; the person can press Respond again.
      ctx.logger.error({ err: error, user, ref: errorReference() }, 'respond modal: request could not be loaded');
      await ack();
      return;
    }
    const form = row && row.kind === 'suspension' ? formFor(ctx, row) : undefined;
    if (!row || !form) {
      await ack();
      ctx.logger.warn({ user, metadata: view.private_metadata }, 'respond modal submitted for an unknown request');
      return;
    }
    const parsed = parseRespondModal(form.fields, view.state.values);
    if (!parsed.ok) return void (await ack({ response_action: 'errors', errors: parsed.errors }));
    const checked = form.schema.safeParse(parsed.data);
    if (!checked.success) {
      const errors: Record<string, string> = {};
      for (const issue of checked.error.issues) {
        const index = form.fields.findIndex((f) => f.name === issue.path[0]);
        const field = form.fields[index];
        if (field) errors[respondFieldBlockId(field, index)] ??= issue.message;
      }
      if (Object.keys(errors).length > 0) return void (await ack({ response_action: 'errors', errors }));
    }
    // The answer is recorded before the modal closes, so a submission Slack was told about is never lost.
    await recordThenAck(ctx, () => ack(), {
      name: 'respond-submit',
      record: async (acked) => {
        const card = await findCard(ctx.slackDb, row.id);
        const where = card ? { channel: card.channel, ...(card.thread_ts ? { threadTs: card.thread_ts } : {}) } : undefined;
        if (!where) {
          ctx.logger.warn({ actionId: row.id }, 'respond modal submitted for a request without a card');
          return undefined;
        }
        return recordAnswer(ctx, row, parsed.data, { ...where, user }, acked);
      },
      show: async (recorded) => recorded && showAnswer(ctx, recorded),
      onError: async (ref) => {
        const card = await findCard(ctx.slackDb, row.id);
        if (card) await tellUser(ctx, { channel: card.channel, ...(card.thread_ts ? { threadTs: card.thread_ts } : {}), user }, failureText(ref));
      },
    });
  });
}
