import type { ButtonAction } from '@slack/bolt';
import { resumeSchemaFor } from '../../agent/tool.js';
import { parseCardBlockId } from '../kit/action-ids.js';
import { parseButtonValue } from '../kit/button-value.js';
import type { Click, SlackContext } from '../context.js';
import type { RecordedChoice } from './answer-choice.js';
import { toolOf } from '../card/render-card.js';
import { clickedCard, tamperedButton } from '../card/clicked-card.js';
import { recordAnswer } from './resume-from-slack.js';
import { confirmationOf } from '../kit/form-fields.js';

/**
 * Yes or No on a suspension card whose resume schema is one boolean: the button must be this
 * card's, and the answer goes through recordAnswer like a Respond submission (the same
 * mayAnswer check, the same conditional record), so a second click, or a click on a card
 * already answered, is told so and resumes nothing. Nothing is posted here.
 */
export async function recordConfirmation(
  ctx: SlackContext,
  click: Click | undefined,
  action: Pick<ButtonAction, 'value' | 'block_id' | 'action_id'>,
  yes: boolean,
  startAfter: Promise<void>,
): Promise<RecordedChoice> {
  if (!click) return undefined;
  const value = parseButtonValue(action.value);
  const block = parseCardBlockId(action.block_id);
  const checked = value && block?.kind === 'suspension' && block.actionId === value.actionId ? await clickedCard(ctx, click, value.actionId) : false;
  const row = checked ? checked.state?.action : undefined;
  const tool = row?.kind === 'suspension' ? toolOf(ctx.agent, row) : undefined;
  const confirmation = tool && row ? confirmationOf(resumeSchemaFor(tool, row.args)) : undefined;
  if (!row || !confirmation) {
    ctx.logger.warn({ user: click.user, actionId: action.action_id, blockId: action.block_id }, 'confirmation refused: does not match a card');
    return { tell: tamperedButton, click };
  }
  return { answer: await recordAnswer(ctx, row, confirmation.answer(yes), click, startAfter) };
}
