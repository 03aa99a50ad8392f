/**
 * One Slack simulator for the sandbox, the tests and the bench: the Web API on loopback,
 * signed delivery of events, interactions and slash commands to a bot's HTTP endpoint, Socket
 * Mode, fault injection, and the one Block Kit limit checker. Its method table and store are
 * the sandbox's too (`slackWebApi` over a `SimulatorStore`, for a `SimulatedWorkspace`). It stands
 * alone: nothing here imports the bot (src/slack, src/agent) or the sandbox.
 */
export { startSlackSimulator } from './start-simulator.js';
export { FaultPlan } from './fault-plan.js';
export { webApiEndpoint } from './web-api-endpoint.js';
export type { RateLimit, RecordedCall, SimulatedUser, SlackSimulator, SlackSimulatorOptions, StoredMessage, StoredView } from './types.js';
export { FAKE_APP_TOKEN, FAKE_BOT_TOKEN, SLACK_IDS } from './ids.js';
export { isObj, type JsonObject, type Obj } from './json.js';
export { SLACK_LIMITS } from './limits.js';
export { blockLimitErrors, checkedView, messageContent, viewLimitErrors } from './block-limits.js';
export { SlackApiError } from './api-error.js';
export { TsClock } from './slack-ts.js';
export { nowSeconds, signRequest } from './sign.js';
export { formBody } from './send-signed.js';
export { sendSigned, slackSender } from './send-signed.js';
export { newTriggerId } from './random-ids.js';
export { richTextElements } from './rich-text.js';
export * from './event-payloads.js';
export * from './interaction-payloads.js';
export { slashCommandBody } from './slash-command.js';
export { MessageStore, type MessageChange, type MessagePatch } from './message-store.js';
export { SimulatorStore, type Ephemeral } from './store.js';
export { slackWebApi, wireMessage } from './web-api-methods.js';
export type { SimulatedWorkspace } from './workspace.js';
export { interactiveElements, normalizeBlocks } from './block-ids.js';
