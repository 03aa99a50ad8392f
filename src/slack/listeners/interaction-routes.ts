import type { AllMiddlewareArgs, App, BlockAction, Middleware, SlackAction, SlackActionMiddlewareArgs, SlackViewMiddlewareArgs } from '@slack/bolt';
import type { ACTION_IDS, CALLBACK_IDS } from '../blocks/action-ids.js';
import { blockActionsSchema, issuesOf, viewSubmissionSchema, type SubmittedView, type ViewSubmission } from '../blocks/submitted-payloads.js';

type ActionListener = Middleware<SlackActionMiddlewareArgs>;
type ActionId = (typeof ACTION_IDS)[keyof typeof ACTION_IDS];
type CallbackId = (typeof CALLBACK_IDS)[keyof typeof CALLBACK_IDS];

/** What a modal's listener gets: Bolt's arguments, with the submission as parsed (submitted-payloads.ts). */
export type ViewListenerArgs = Omit<SlackViewMiddlewareArgs & AllMiddlewareArgs, 'payload' | 'view' | 'body'> & { body: ViewSubmission; view: SubmittedView };
export type ViewListener = (args: ViewListenerArgs) => Promise<void>;

/** Where the listeners of buttons and modals register, by the ids the block builders use. */
export interface InteractionRoutes {
  action<A extends SlackAction = BlockAction>(actionId: ActionId, listener: Middleware<SlackActionMiddlewareArgs<A>>): void;
  view(callbackId: CallbackId, listener: ViewListener): void;
}

/** What takes the interactions no route takes: unknown ids, and payloads that do not parse (each must still ack). */
export interface InteractionFallbacks {
  unknownAction: ActionListener;
  unknownView: Middleware<SlackViewMiddlewareArgs>;
  malformedAction: (args: SlackActionMiddlewareArgs & AllMiddlewareArgs, issues: string[]) => Promise<void>;
  malformedView: (args: SlackViewMiddlewareArgs & AllMiddlewareArgs, issues: string[]) => Promise<void>;
}

/**
 * One Bolt listener for every button and one for every modal, dispatching by
 * id. Bolt runs each request through the matchers of every registered
 * listener before it reaches the one that acks; with a listener per button
 * that was a third of the time a click spent in Bolt. Anything without a
 * route goes to `unknown`, which must still ack.
 *
 * This is also the one place every click and submission is parsed
 * (submitted-payloads.ts): a listener only ever sees a payload whose values
 * have the types and bounds it reads, and one that does not parse is
 * acknowledged and answered by `malformed`, before anything could throw.
 */
export function interactionRoutes(app: App, fallbacks: InteractionFallbacks): InteractionRoutes {
  const actions = new Map<string, ActionListener>();
  const views = new Map<string, ViewListener>();
  app.action(/.*/, async (args) => {
    if (args.body.type !== 'block_actions') return fallbacks.unknownAction(args);
    const parsed = blockActionsSchema.safeParse(args.body);
    if (!parsed.success) return fallbacks.malformedAction(args, issuesOf(parsed.error));
    const action = parsed.data.actions[0]!;
    // The parsed payload has every field the listeners read, with the types Bolt declares for them.
    const checked = { ...args, body: parsed.data, action, payload: action } as unknown as typeof args;
    await (actions.get(action.action_id) ?? fallbacks.unknownAction)(checked);
  });
  app.view(/.*/, async (args) => {
    if (args.body.type !== 'view_submission') return fallbacks.unknownView(args);
    const parsed = viewSubmissionSchema.safeParse(args.body);
    if (!parsed.success) return fallbacks.malformedView(args, issuesOf(parsed.error));
    const listener = views.get(parsed.data.view.callback_id);
    if (!listener) return fallbacks.unknownView(args);
    const { payload: _raw, view: _view, body: _body, ...rest } = args;
    await listener({ ...rest, body: parsed.data, view: parsed.data.view });
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
