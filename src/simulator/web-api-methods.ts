/**
 * The one table of Slack's Web API methods, over a store and a workspace, one family per file in
 * methods/. Each answers like Slack: a result with `ok: true`, or a SlackApiError that becomes HTTP
 * 200 `{ ok: false, error }`. Every message and view goes through the one Block Kit checker
 * (block-limits.ts). The simulator serves it over its in-memory store; the sandbox over its own,
 * with its workspace, its screens' hooks and the ids Slack fills in (see MethodOptions).
 */
import { assistantMethods } from './methods/assistant.js';
import { chatMethods } from './methods/chat.js';
import { chatStreamMethods } from './methods/chat-stream.js';
import { conversationMethods } from './methods/conversations.js';
import { methodContext, type MethodOptions, type MethodStore } from './methods/method-context.js';
import { reactionMethods } from './methods/reactions.js';
import { respondToUrl } from './methods/response-url.js';
import { viewMethods } from './methods/views.js';
import { workspaceMethods } from './methods/workspace.js';
import type { Handler, WebApiEndpointOptions } from './web-api-endpoint.js';

export { wireMessage } from './message-store.js';

/** The methods and response URLs, as webApiEndpoint takes them. */
export function slackWebApi(store: MethodStore, options: MethodOptions): Pick<WebApiEndpointOptions, 'methods' | 'responseUrls'> {
  const ctx = methodContext(store, options);
  const methods: Record<string, Handler> = {
    ...workspaceMethods(ctx),
    ...chatMethods(ctx),
    ...reactionMethods(ctx),
    ...viewMethods(ctx),
    ...conversationMethods(ctx),
    ...(options.aiAppMethods === false ? {} : { ...chatStreamMethods(ctx), ...assistantMethods(ctx) }),
  };
  const { prefix } = store.responseUrls;
  return { methods, responseUrls: { prefix, handle: (path, args) => respondToUrl(ctx, path, args) } };
}
