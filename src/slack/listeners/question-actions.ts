import type { BlockAction, BlockElementAction, ButtonAction } from '@slack/bolt';
import { ACTION_IDS, cardBlockId, parseCardBlockId } from '../blocks/action-ids.js';
import { parseButtonValue } from '../blocks/button-value.js';
import { questionOf } from '../cards/card-kind.js';
import { resumeFromSlack } from '../resume-from-slack.js';
import type { SlackContext } from '../slack-context.js';
import { tellUser } from '../tell-user.js';
import { clickedCard, clickOf, tamperedButton, tellClicker, type Click } from './click.js';
import type { InteractionRoutes } from './interaction-routes.js';

/**
 * askUser answers. A single choice (radio buttons, a menu) answers at once;
 * ticking checkboxes or a multi-select only changes the selection, and the
 * Submit button sends what is selected. Option values are indexes into the
 * question's options, mapped back to the exact labels here.
 */
export function registerQuestionActions(routes: InteractionRoutes, ctx: SlackContext): void {
  routes.action<BlockAction>(ACTION_IDS.questionAnswer, async ({ ack, body, action }) => {
    await ack();
    if (action.type !== 'radio_buttons' && action.type !== 'static_select') return;
    const selected = action.selected_option?.value;
    ctx.tasks.run('question-answer', () => answer(ctx, body, action, selected === undefined ? [] : [selected], false), tellClicker(ctx, body));
  });
  routes.action<BlockAction<ButtonAction>>(ACTION_IDS.questionSubmit, async ({ ack, body, action }) => {
    await ack();
    ctx.tasks.run('question-submit', async () => {
      const value = parseButtonValue(action.value);
      const state = value ? body.state?.values[cardBlockId('question', value.actionId)]?.[ACTION_IDS.questionAnswer] : undefined;
      const selected = (state?.selected_options ?? []).map((o) => o.value);
      await answer(ctx, body, action, selected, true, value?.actionId);
    }, tellClicker(ctx, body));
  });
}

async function answer(
  ctx: SlackContext,
  body: BlockAction,
  action: BlockElementAction,
  selected: string[],
  multi: boolean,
  buttonActionId?: number,
): Promise<void> {
  const click = clickOf(body);
  if (!click) return;
  const block = parseCardBlockId(action.block_id);
  const actionId = block?.kind === 'question' && (buttonActionId === undefined || buttonActionId === block.actionId) ? block.actionId : undefined;
  const checked = actionId === undefined ? false : await clickedCard(ctx, click, actionId);
  if (!checked) return refuseTampered(ctx, click, action);
  const row = checked.state?.action;
  const question = row ? questionOf(ctx.agent, row) : undefined;
  if (!row || !question?.options) return refuseTampered(ctx, click, action);

  const labels: string[] = [];
  for (const value of selected) {
    const option = /^\d{1,3}$/.test(value) ? question.options[Number(value)] : undefined;
    if (!option) return refuseTampered(ctx, click, action);
    labels.push(option.label);
  }
  if (labels.length === 0) return tellUser(ctx, click, multi ? 'Tick at least one option, then press Submit.' : 'Choose an option.');
  const data = question.selectionMode === 'multi_select' ? labels : labels[0];
  await resumeFromSlack(ctx, row, data, click);
}

async function refuseTampered(ctx: SlackContext, click: Click, action: BlockElementAction): Promise<void> {
  ctx.logger.warn({ user: click.user, actionId: action.action_id, blockId: action.block_id }, 'question answer refused: does not match a card');
  await tellUser(ctx, click, tamperedButton);
}
