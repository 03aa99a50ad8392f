import type { BlockAction, ButtonAction } from '@slack/bolt';
import { ACTION_IDS, CALLBACK_IDS, elicitationFieldBlockId, cardBlockId, parseButtonValue } from '../kit/action-ids.js';
import type { InputState } from '../kit/submitted-payloads.js';
import { tellClicker } from '../card/button-check.js';
import { checkElicitationSubmission, inlineAnswer, showElicitationForm, recordElicitationClick, recordElicitationSubmission, requestOfButton, requestOfField, showElicitationClick, type AnswerOf } from './elicitation-answer.js';
import { showAnswer, type GoOnInThread, recordChoice, showChoice, recordConfirmation } from './resume-from-slack.js';
import { tellRespondFailure, checkRespondSubmission, showRespondForm, recordRespondAnswer } from './respond-form.js';
import { personOf, type SlackContext, clickOf } from '../context.js';
import type { InteractionRoutes } from '../kit/action-ids.js';
import { recordThenAck, submissionThenAck } from '../ack.js';

/**
 * Every answer's buttons and forms: askUser questions, Respond forms and Yes / No, MCP
 * elicitation. Whichever answers, the run it resumes goes on through `goOn` (thread/, passed in).
 */
export function registerAnswerActions(routes: InteractionRoutes, ctx: SlackContext, goOn: GoOnInThread): void {
  registerQuestionActions(routes, ctx, goOn);
  registerRespondActions(routes, ctx, goOn);
  registerElicitationActions(routes, ctx, goOn);
}

/** Elements whose change is only a selection on the way to Submit, not an answer. */
const SELECTION_ONLY = new Set(['checkboxes', 'multi_static_select']);

/**
 * An MCP server's question on its card: the one inline field answers when it is set (Enter
 * in a text input, a choice, a date), checkboxes with Submit, several fields through the
 * modal behind Answer; Decline and (URL requests) Done answer at once. Each answer is
 * recorded before the ack (recordThenAck). The link button only opens the URL in the browser.
 */
function registerElicitationActions(routes: InteractionRoutes, ctx: SlackContext, goOn: GoOnInThread): void {
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
    await submissionThenAck(ctx, ack, await checkElicitationSubmission(ctx, view, user), (submission) => ({
      name: 'elicitation-submit-form',
      record: (startAfter) => recordElicitationSubmission(ctx, submission, personOf(body), startAfter),
      show: async (recorded) => recorded && showAnswer(ctx, recorded, goOn),
      onError: tellRespondFailure(ctx, submission.request.id, user),
    }));
  });
}

/**
 * askUser answers. A single choice (radio buttons, a menu) answers at once;
 * ticking checkboxes or a multi-select only changes the selection, and the
 * Submit button sends what is selected. An answer is recorded before the
 * click is acknowledged (see recordThenAck).
 */
function registerQuestionActions(routes: InteractionRoutes, ctx: SlackContext, goOn: GoOnInThread): void {
  routes.action<BlockAction>(ACTION_IDS.questionAnswer, async ({ ack, body, action }) => {
    if (action.type !== 'radio_buttons' && action.type !== 'static_select') return void (await ack());
    const selected = action.selected_option?.value;
    await recordThenAck(ctx, ack, {
      name: 'question-answer',
      record: (startAfter) => recordChoice(ctx, clickOf(body), action, selected === undefined ? [] : [selected], false, startAfter),
      show: (recorded) => showChoice(ctx, recorded, goOn),
      onError: tellClicker(ctx, clickOf(body)),
    });
  });
  routes.action<BlockAction<ButtonAction>>(ACTION_IDS.questionSubmit, async ({ ack, body, action }) => {
    const value = parseButtonValue(action.value);
    const state = value ? body.state?.values[cardBlockId('question', value.actionId)]?.[ACTION_IDS.questionAnswer] : undefined;
    const selected = (state?.selected_options ?? []).map((o) => o.value);
    await recordThenAck(ctx, ack, {
      name: 'question-submit',
      record: (startAfter) => recordChoice(ctx, clickOf(body), action, selected, true, startAfter, value?.actionId),
      show: (recorded) => showChoice(ctx, recorded, goOn),
      onError: tellClicker(ctx, clickOf(body)),
    });
  });
}

/**
 * Respond opens a modal built from the tool's resume schema; its submission is
 * checked before the modal closes (errors beside their fields) and recorded
 * before the ack. Yes / No buttons answer a yes/no schema without a form.
 */
function registerRespondActions(routes: InteractionRoutes, ctx: SlackContext, goOn: GoOnInThread): void {
  routes.action<BlockAction<ButtonAction>>(ACTION_IDS.suspensionRespond, async ({ ack, body, action }) => {
    await ack();
    const click = clickOf(body);
    if (click) ctx.tasks.run('respond-open', () => showRespondForm(ctx, click, action), tellClicker(ctx, click));
  });

  // Yes / No answer a one-boolean resume schema at once: recorded before the ack, like every answer.
  for (const [actionId, yes] of [[ACTION_IDS.suspensionYes, true], [ACTION_IDS.suspensionNo, false]] as const) {
    routes.action<BlockAction<ButtonAction>>(actionId, async ({ ack, body, action }) => {
      await recordThenAck(ctx, ack, {
        name: yes ? 'suspension-yes' : 'suspension-no',
        record: (startAfter) => recordConfirmation(ctx, clickOf(body), action, yes, startAfter),
        show: (recorded) => showChoice(ctx, recorded, goOn),
        onError: tellClicker(ctx, clickOf(body)),
      });
    });
  }

  routes.view(CALLBACK_IDS.respondModal, async ({ ack, body, view }) => {
    const user = body.user.id;
    await submissionThenAck(ctx, ack, await checkRespondSubmission(ctx, view, user), (submission) => ({
      name: 'respond-submit',
      record: (startAfter) => recordRespondAnswer(ctx, submission, personOf(body), startAfter),
      show: async (recorded) => recorded && showAnswer(ctx, recorded, goOn),
      onError: tellRespondFailure(ctx, submission.request.id, user),
    }));
  });
}
