import type { BlockAction, ButtonAction } from '@slack/bolt';
import { ACTION_IDS, CALLBACK_IDS, elicitationFieldBlockId } from '../kit/action-ids.js';
import type { InputState } from '../kit/submitted-payloads.js';
import { tellClicker } from '../card/clicked-card.js';
import {
  checkElicitationSubmission,
  inlineAnswer,
  showElicitationForm,
  recordElicitationClick,
  recordElicitationSubmission,
  requestOfButton,
  requestOfField,
  showElicitationClick,
  type AnswerOf,
} from './elicitation-answer.js';
import { showAnswer, type GoOnInThread } from './resume-from-slack.js';
import { tellRespondFailure } from './respond-form.js';
import { personOf, type SlackContext } from '../context.js';
import { clickOf } from '../kit/click-of.js';
import type { InteractionRoutes } from '../kit/interaction-routes.js';
import { recordThenAck } from '../ack.js';

/** Elements whose change is only a selection on the way to Submit, not an answer. */
const SELECTION_ONLY = new Set(['checkboxes', 'multi_static_select']);

/**
 * An MCP server's question on its card: the one inline field answers when it is set (Enter
 * in a text input, a choice, a date), checkboxes with Submit, several fields through the
 * modal behind Answer; Decline and (URL requests) Done answer at once. Each answer is
 * recorded before the ack (recordThenAck). The link button only opens the URL in the browser.
 */
export function registerElicitationActions(routes: InteractionRoutes, ctx: SlackContext, goOn: GoOnInThread): void {
  const answer = (name: string, body: BlockAction, actionId: number | undefined, answerOf: AnswerOf, ack: () => Promise<void>) =>
    recordThenAck(ctx, ack, {
      name,
      record: (startAfter) => recordElicitationClick(ctx, clickOf(body), actionId, answerOf, startAfter),
      show: (recorded) => showElicitationClick(ctx, recorded, goOn),
      onError: tellClicker(ctx, clickOf(body)),
    });

  routes.action<BlockAction>(ACTION_IDS.elicitationValue, async ({ ack, body, action }) => {
    if (SELECTION_ONLY.has(action.type)) return void (await ack());
    await answer('elicitation-value', body, requestOfField(action.block_id), inlineAnswer(action as unknown as InputState), ack);
  });
  routes.action<BlockAction<ButtonAction>>(ACTION_IDS.elicitationSubmit, async ({ ack, body, action }) => {
    const actionId = requestOfButton(action.value);
    const state = actionId === undefined ? undefined : (body.state?.values[elicitationFieldBlockId(actionId)]?.[ACTION_IDS.elicitationValue] as InputState | undefined);
    await answer('elicitation-submit', body, actionId, inlineAnswer(state ?? { selected_options: [] }), ack);
  });
  routes.action<BlockAction<ButtonAction>>(ACTION_IDS.elicitationDecline, async ({ ack, body, action }) => {
    await answer('elicitation-decline', body, requestOfButton(action.value), () => ({ action: 'decline' }), ack);
  });
  routes.action<BlockAction<ButtonAction>>(ACTION_IDS.elicitationDone, async ({ ack, body, action }) => {
    await answer('elicitation-done', body, requestOfButton(action.value), (p) => (p.mode === 'url' ? { action: 'accept' } : { tell: 'This request has no link.' }), ack);
  });
  routes.action<BlockAction<ButtonAction>>(ACTION_IDS.elicitationOpenUrl, async ({ ack }) => {
    // Slack opens the URL in the clicker's browser; the bot itself never fetches it.
    await ack();
  });
  routes.action<BlockAction<ButtonAction>>(ACTION_IDS.elicitationAnswer, async ({ ack, body, action }) => {
    await ack();
    const click = clickOf(body);
    if (click) ctx.tasks.run('elicitation-open', () => showElicitationForm(ctx, click, requestOfButton(action.value)), tellClicker(ctx, click));
  });

  routes.view(CALLBACK_IDS.elicitationModal, async ({ ack, body, view }) => {
    const user = body.user.id;
    const submission = await checkElicitationSubmission(ctx, view, user);
    if (submission.kind === 'errors') return void (await ack({ response_action: 'errors', errors: submission.errors }));
    if (submission.kind === 'close') return void (await ack());
    await recordThenAck(ctx, () => ack(), {
      name: 'elicitation-submit-form',
      record: (startAfter) => recordElicitationSubmission(ctx, submission, personOf(body), startAfter),
      show: async (recorded) => recorded && showAnswer(ctx, recorded, goOn),
      onError: tellRespondFailure(ctx, submission.row.id, user),
    });
  });
}
