import type { AllMiddlewareArgs, BlockAction, Middleware, SlackAction, SlackActionMiddlewareArgs, SlackViewMiddlewareArgs } from '@slack/bolt';
import type { ACTION_IDS, CALLBACK_IDS } from './action-ids.js';
import type { SubmittedView, ViewSubmission } from './submitted-payloads.js';

export type ActionListener = Middleware<SlackActionMiddlewareArgs>;
type ActionId = (typeof ACTION_IDS)[keyof typeof ACTION_IDS];
type CallbackId = (typeof CALLBACK_IDS)[keyof typeof CALLBACK_IDS];

/** What a modal's listener gets: Bolt's arguments, with the submission as parsed (submitted-payloads.ts). */
type ViewListenerArgs = Omit<SlackViewMiddlewareArgs & AllMiddlewareArgs, 'payload' | 'view' | 'body'> & { body: ViewSubmission; view: SubmittedView };
export type ViewListener = (args: ViewListenerArgs) => Promise<void>;

/**
 * Where each feature's buttons and modals register, by the ids its block builders use. A type
 * of its own (listeners.ts implements it) so a feature names it without importing the file that
 * imports every feature.
 */
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
