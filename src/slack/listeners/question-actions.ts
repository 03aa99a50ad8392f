import type { BlockAction, BlockElementAction, ButtonAction } from '@slack/bolt';
import { ACTION_IDS, cardBlockId, parseCardBlockId } from '../blocks/action-ids.js';
import { parseButtonValue } from '../blocks/button-value.js';
import { questionOf } from '../cards/card-kind.js';
import { recordAnswer, showAnswer, type RecordedAnswer } from '../resume-from-slack.js';
import type { SlackContext } from '../slack-context.js';
import { tellUser } from '../tell-user.js';
import { clickedCard, clickOf, tamperedButton, tellClicker, type Click } from './click.js';
import type { InteractionRoutes } from './interaction-routes.js';
import { recordThenAck } from './record-then-ack.js';

/**
 * askUser answers. A single choice (radio buttons, a menu) answers at once;
 * ticking checkboxes or a multi-select only changes the selection, and the
 * Submit button sends what is selected. Option values are indexes into the
 * question's options, mapped back to the exact labels here. An answer is
 * recorded before the click is acknowledged (see recordThenAck).
 */
export function registerQuestionActions(routes: InteractionRoutes, ctx: SlackContext): void {
  routes.action<BlockAction>(ACTION_IDS.questionAnswer, async ({ ack, body, action }) => {
    if (action.type !== 'radio_buttons' && action.type !== 'static_select') return void (await ack());
    const selected = action.selected_option?.value;
    await recordThenAck(ctx, ack, {
      name: 'question-answer',
      record: (acked) => recordChoice(ctx, body, action, selected === undefined ? [] : [selected], false, acked),
      show: (recorded) => showChoice(ctx, recorded),
      onError: tellClicker(ctx, body),
    });
  });
  routes.action<BlockAction<ButtonAction>>(ACTION_IDS.questionSubmit, async ({ ack, body, action }) => {
    const value = parseButtonValue(action.value);
    const state = value ? body.state?.values[cardBlockId('question', value.actionId)]?.[ACTION_IDS.questionAnswer] : undefined;
    const selected = (state?.selected_options ?? []).map((o) => o.value);
    await recordThenAck(ctx, ack, {
      name: 'question-submit',
      record: (acked) => recordChoice(ctx, body, action, selected, true, acked, value?.actionId),
      show: (recorded) => showChoice(ctx, recorded),
      onError: tellClicker(ctx, body),
    });
  });
}

/** What a choice came to: nothing to say (no clicker), a message for the clicker alone, or a recorded answer. */
type RecordedChoice = undefined | { tell: string; click: Click } | { answer: RecordedAnswer };

async function recordChoice(
  ctx: SlackContext,
  body: BlockAction,
  action: BlockElementAction,
  selected: string[],
  multi: boolean,
  acked: Promise<void>,
  buttonActionId?: number,
): Promise<RecordedChoice> {
  const click = clickOf(body);
  if (!click) return undefined;
  const block = parseCardBlockId(action.block_id);
  const actionId = block?.kind === 'question' && (buttonActionId === undefined || buttonActionId === block.actionId) ? block.actionId : undefined;
  const checked = actionId === undefined ? false : await clickedCard(ctx, click, actionId);
  if (!checked) return tampered(ctx, click, action);
  const row = checked.state?.action;
  const question = row ? questionOf(ctx.agent, row) : undefined;
  if (!row || !question?.options) return tampered(ctx, click, action);

  const labels: string[] = [];
  for (const value of selected) {
    const option = /^\d{1,3}$/.test(value) ? question.options[Number(value)] : undefined;
    if (!option) return tampered(ctx, click, action);
    labels.push(option.label);
  }
  if (labels.length === 0) return { tell: multi ? 'Tick at least one option, then press Submit.' : 'Choose an option.', click };
  const data = question.selectionMode === 'multi_select' ? labels : labels[0];
  return { answer: await recordAnswer(ctx, row, data, click, acked) };
}

async function showChoice(ctx: SlackContext, recorded: RecordedChoice): Promise<void> {
  if (!recorded) return;
  if ('tell' in recorded) return tellUser(ctx, recorded.click, recorded.tell);
  await showAnswer(ctx, recorded.answer);
}

function tampered(ctx: SlackContext, click: Click, action: BlockElementAction): RecordedChoice {
  ctx.logger.warn({ user: click.user, actionId: action.action_id, blockId: action.block_id }, 'question answer refused: does not match a card');
  return { tell: tamperedButton, click };
}
