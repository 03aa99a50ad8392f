import type { AllMiddlewareArgs, App, SlackActionMiddlewareArgs, SlackViewMiddlewareArgs, BlockAction } from '@slack/bolt';
import type { ActionListener, InteractionFallbacks, InteractionRoutes, ViewListener } from './kit/action-ids.js';
import { blockActionsSchema, issuesOf, viewSubmissionSchema, type BlockActionsBody, type ViewSubmission } from './kit/submitted-payloads.js';
import { handleMessage, reportMessageFailure, type IncomingMessage, type MessageAnswers } from './thread/handle-message.js';
import { showApprovalsAnswer, registerInboxActions, type CardDecisions } from './inbox/inbox-actions.js';
import type { RecordedApproval } from './approval/approval-flow.js';
import { registerApprovalActions, registerDeclineModalSubmit, registerApproveReasonSubmit } from './approval/approval-actions.js';
import { registerBatchActions, type BatchDeps, parseBatchButtonValue } from './batch/batch-click.js';
import { registerEditActions } from './edit/edit-flow.js';
import type { EditDeps } from './edit/edit-flow.js';
import { registerAnswerActions } from './answer/answer-actions.js';
import type { GoOnInThread } from './answer/resume-from-slack.js';
import { registerRememberedActions } from './remembered/remembered-actions.js';
import type { RememberedDeps } from './remembered/remembered-actions.js';
import { z } from 'zod';
import { parseButtonValue } from './kit/action-ids.js';
import { type SlackContext, clickOf, tellUser } from './context.js';
import { findCard } from './card/cards.js';

/**
 * What one feature does for another, wired by the app (app.ts) so that no feature imports
 * another: each listener hands off to its own feature, which gets these as arguments.
 */
interface ListenerWiring {
  /** What a reply does to the request its thread waits on (answer/). */
  answers: MessageAnswers;
  /** How a run goes on in its thread once a question is answered (thread/). */
  goOn: GoOnInThread;
  /** What a batch decision shows that is approval/'s and thread/'s. */
  batch: BatchDeps;
  /** What Edit's submission shares with a decision (approval/) and with routing (routing/). */
  edit: EditDeps;
  /** The card's own Approve and Decline, which the inbox's buttons do too (approval/). */
  inboxDecisions: CardDecisions<RecordedApproval>;
  /** How a revoke redraws the list it was clicked in (inbox/). */
  remembered: RememberedDeps;
}

/**
 * Every listener the bot registers with Bolt, one function a surface (Bolt's register-per-surface):
 * events, slash commands, and the interactions (buttons, and the modals they open). The app has
 * no shortcuts and loads no external select options, so it registers none. A listener only
 * reads the payload into its feature's terms and hands off; acknowledging first and running the
 * rest as a background task is the feature's (see ack.ts).
 */
export function registerListeners(app: App, ctx: SlackContext, wiring: ListenerWiring): void {
  registerEvents(app, ctx, wiring.answers);
  registerCommands(app, ctx);
  registerInteractions(interactionRoutes(app, unknownInteractions(ctx)), ctx, wiring);
}

/** Subtypes that are still a person writing; edits, deletions, joins and bot posts are not. */
const PERSON_SUBTYPES = new Set([undefined, 'thread_broadcast', 'file_share']);

interface MessageFields {
  subtype?: string;
  bot_id?: string;
  user?: string;
  text?: string;
  ts: string;
  thread_ts?: string;
  parent_user_id?: string;
  channel: string;
  channel_type?: string;
  team?: string;
  user_team?: string;
}

/**
 * Events are acknowledged by Bolt before listeners run, so each is handed off at once.
 * - `message`: DMs start or continue a run; a thread reply without a mention may answer what
 *   the thread's run waits on. Mentions in channels arrive as app_mention too, and are handled there.
 * - `app_mention`: starts (or, in a waiting thread, answers or explains) a run in the mention's thread.
 * - `app_home_opened`: publishes the person's inbox, drawn as it is now.
 */
function registerEvents(app: App, ctx: SlackContext, answers: MessageAnswers): void {
  app.event('message', async ({ event, body }) => {
    const m = event as unknown as MessageFields;
    if (!PERSON_SUBTYPES.has(m.subtype) || m.bot_id || !m.user || m.user === ctx.botUserId) return;
    const dm = m.channel_type === 'im';
    const reply = !dm && m.thread_ts !== undefined && m.thread_ts !== m.ts;
    if (!dm && !reply) return;
    if (!dm && ctx.botUserId && (m.text ?? '').includes(`<@${ctx.botUserId}>`)) return;
    const message: IncomingMessage = {
      eventId: body.event_id,
      kind: dm ? 'dm' : 'reply',
      channel: m.channel,
      ts: m.ts,
      ...(m.thread_ts ? { threadTs: m.thread_ts } : {}),
      ...(m.parent_user_id ? { parentUserId: m.parent_user_id } : {}),
      user: m.user,
      teamId: body.team_id ?? m.team ?? '',
      userTeamId: m.user_team ?? m.team ?? '',
      text: m.text ?? '',
    };
    ctx.tasks.run(dm ? 'dm' : 'thread_reply', () => handleMessage(ctx, message, answers), reportMessageFailure(ctx, message));
  });
  app.event('app_mention', async ({ event, body }) => {
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
    ctx.tasks.run('app_mention', () => handleMessage(ctx, message, answers), reportMessageFailure(ctx, message));
  });
  app.event('app_home_opened', async ({ event }) => {
    // The Messages tab has nothing to draw.
    const home = ctx.home;
    if (event.tab !== 'home' || !home || !event.user || event.user === ctx.botUserId) return;
    ctx.tasks.run('app_home_opened', () => home.opened(event.user));
  });
}

/**
 * `/approvals [id]`: acknowledged at once; the answer goes to the person alone through the
 * response_url. A command names the workspace it was typed in (`team_id`), and on Enterprise
 * Grid its organisation (`enterprise_id`), which is how a member of the organisation typing it
 * in another of its workspaces is recognised.
 */
function registerCommands(app: App, ctx: SlackContext): void {
  app.command('/approvals', async ({ ack, command, respond }) => {
    await ack();
    const who = { user: command.user_id, teamId: command.team_id ?? '', ...(command.enterprise_id ? { enterpriseId: command.enterprise_id } : {}) };
    showApprovalsAnswer(ctx, who, command.text, respond);
  });
}

/** Each feature's buttons, with the modals they open, by the ids its builders use. */
function registerInteractions(routes: InteractionRoutes, ctx: SlackContext, wiring: ListenerWiring): void {
  registerApprovalActions(routes, ctx);
  registerDeclineModalSubmit(routes, ctx);
  registerApproveReasonSubmit(routes, ctx);
  registerBatchActions(routes, ctx, wiring.batch);
  registerEditActions(routes, ctx, wiring.edit);
  registerAnswerActions(routes, ctx, wiring.goOn);
  registerInboxActions(routes, ctx, wiring.inboxDecisions);
  registerRememberedActions(routes, ctx, wiring.remembered);
}

/**
 * One Bolt listener for every button and one for every modal, dispatching by
 * id. Bolt runs each request through the matchers of every registered
 * listener before it reaches the one that acks; with a listener per button
 * that was a third of the time a click spent in Bolt. Anything without a
 * route goes to `unknown`, which must still ack.
 *
 * This is also the one place every click and submission is parsed
 * (submitted-payloads.ts), in a global middleware, before Bolt matches it to a
 * listener: a listener only ever sees a payload whose values have the types
 * and bounds it reads, and one that does not parse is acknowledged and
 * answered by `malformed`, before anything could throw.
 */
export function interactionRoutes(app: App, fallbacks: InteractionFallbacks): InteractionRoutes {
  const actions = new Map<string, ActionListener>();
  const views = new Map<string, ViewListener>();
  // Parsed before Bolt matches listeners to the payload (its matchers call string methods on the
  // ids), so even an id of the wrong type is answered here; the listeners get what was parsed.
  const parsedBodies = new WeakMap<object, BlockActionsBody | ViewSubmission>();
  app.use(async (args) => {
    const body = args.body as { type?: unknown };
    const schema = body.type === 'block_actions' ? blockActionsSchema : body.type === 'view_submission' ? viewSubmissionSchema : undefined;
    if (!schema) return args.next();
    const parsed = schema.safeParse(body);
    if (!parsed.success) {
      const issues = issuesOf(parsed.error);
      return body.type === 'block_actions'
        ? fallbacks.malformedAction(args as unknown as SlackActionMiddlewareArgs & AllMiddlewareArgs, issues)
        : fallbacks.malformedView(args as unknown as SlackViewMiddlewareArgs & AllMiddlewareArgs, issues);
    }
    parsedBodies.set(body, parsed.data);
    await args.next();
  });
  app.action(/.*/, async (args) => {
    const parsed = parsedBodies.get(args.body);
    if (!parsed || parsed.type !== 'block_actions') return fallbacks.unknownAction(args);
    const action = parsed.actions[0]!;
    // The parsed payload has every field the listeners read, with the types Bolt declares for them.
    const checked = { ...args, body: parsed, action, payload: action } as unknown as typeof args;
    await (actions.get(action.action_id) ?? fallbacks.unknownAction)(checked);
  });
  app.view(/.*/, async (args) => {
    const parsed = parsedBodies.get(args.body);
    const listener = parsed?.type === 'view_submission' ? views.get(parsed.view.callback_id) : undefined;
    if (!parsed || parsed.type !== 'view_submission' || !listener) return fallbacks.unknownView(args);
    const { payload: _raw, view: _view, body: _body, ...rest } = args;
    await listener({ ...rest, body: parsed, view: parsed.view });
  });
  const claim = (routes: Map<string, unknown>, id: string) => {
    if (routes.has(id)) throw new Error(`two listeners for the Slack interaction ${id}`);
  };
  return {
    action(actionId, listener) {
      claim(actions, actionId);
      // The route is chosen by action id, which is what narrows the payload type for the listener.
      actions.set(actionId, listener as unknown as ActionListener);
    },
    view(callbackId, listener) {
      claim(views, callbackId);
      views.set(callbackId, listener);
    },
  };
}

/** What a click or submission that could not be read is told. */
const MALFORMED_CLICK = 'That click came with values I cannot read, so nothing was changed.';
const MALFORMED_SUBMISSION = 'That form came back with values I cannot read, so nothing was changed.';

/** Fields that locate a reply; each one that is not a string is left out rather than failing the rest. */
const where = z.string().min(1).max(255).optional().catch(undefined);
const replyPlace = z.looseObject({
  user: z.looseObject({ id: z.string().min(1).max(255) }),
  channel: z.looseObject({ id: where }).nullable().optional().catch(undefined),
  container: z.looseObject({ type: where, channel_id: where, message_ts: where, thread_ts: where }).optional().catch(undefined),
  view: z.looseObject({ private_metadata: z.string().max(3000).optional().catch(undefined) }).optional().catch(undefined),
});

/**
 * Interactions no listener owns (an old card's buttons, a forged payload) and payloads whose
 * values do not parse (submitted-payloads.ts) are acknowledged at once, so Slack shows no error
 * and the request does not hang, and the person is told nothing happened: beside the card
 * clicked, on their Home tab for a click there, beside the card a modal was opened for.
 */
function unknownInteractions(ctx: SlackContext): InteractionFallbacks {
  return {
    async unknownAction({ ack, body, action }) {
      await ack();
      ctx.logger.warn({ actionId: (action as { action_id?: string } | undefined)?.action_id, type: body.type }, 'unknown interaction ignored');
      if (body.type !== 'block_actions') return;
      const click = clickOf(body as BlockAction);
      if (click) ctx.tasks.run('unknown-action', () => tellUser(ctx, click, 'That button is not one I know (it may be from an old version of me). Nothing was changed.'));
    },
    async unknownView({ ack, view }) {
      await ack();
      ctx.logger.warn({ callbackId: view.callback_id }, 'unknown view submission ignored');
    },
    async malformedAction({ ack, body }, issues) {
      await ack();
      const place = replyPlace.safeParse(body);
      ctx.logger.warn({ issues, user: place.data?.user.id }, 'interaction refused: its values do not parse');
      if (!place.success) return;
      const { user, channel, container } = place.data;
      const at = channel?.id ?? container?.channel_id;
      const click: Parameters<typeof tellUser>[1] =
        container?.type === 'view' || !at
          ? { user: user.id, channel: user.id, answerAt: 'home' }
          : { user: user.id, channel: at, ...(container?.thread_ts ? { threadTs: container.thread_ts } : {}) };
      ctx.tasks.run('malformed-action', () => tellUser(ctx, click, MALFORMED_CLICK));
    },
    async malformedView({ ack, body }, issues) {
      await ack();
      const place = replyPlace.safeParse(body);
      ctx.logger.warn({ issues, user: place.data?.user.id }, 'view submission refused: its values do not parse');
      if (!place.success) return;
      const user = place.data.user.id;
      const metadata = place.data.view?.private_metadata;
      // A decision modal names its request ({a, f}); Decline all names its calls ({m: [[a, f], …]}).
      const actionId = parseButtonValue(metadata)?.actionId ?? parseBatchButtonValue(metadata)?.[0]?.actionId;
      if (actionId === undefined) return;
      ctx.tasks.run('malformed-view', async () => {
        const card = await findCard(ctx.slackDb, actionId);
        if (card) await tellUser(ctx, { user, channel: card.channel, ...(card.thread_ts ? { threadTs: card.thread_ts } : {}) }, MALFORMED_SUBMISSION);
      });
    },
  };
}
