import type { AllMiddlewareArgs, App, BlockAction, Middleware, SlackAction, SlackActionMiddlewareArgs, SlackViewMiddlewareArgs } from '@slack/bolt';
import type { ACTION_IDS, CALLBACK_IDS } from './kit/action-ids.js';
import { blockActionsSchema, issuesOf, viewSubmissionSchema, type BlockActionsBody, type SubmittedView, type ViewSubmission } from './kit/submitted-payloads.js';

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
