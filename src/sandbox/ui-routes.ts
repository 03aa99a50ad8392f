/**
 * The sandbox UI's own endpoints under /ui/. They are the sandbox's stand-in for Slack's client:
 * each one records what the person did and sends the bot the signed request Slack would send.
 * The UI acts as whichever person is picked in its switcher; on localhost that is the point.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../logger.js';
import { isObj } from './block-elements.js';
import { appHomeOpenedEvent, personMessageEvents } from './event-payloads.js';
import { BodyTooLargeError, readBody, sendJson } from './http-util.js';
import { UiError, closeView, performAction, submitView, type ActionRequest, type InteractionDeps } from './ui-interactions.js';
import { typedMessage } from './user-text.js';
import { APP_ID, BOT, TEAM, USERGROUPS, USERS, channels, findChannel, findUser, isMember } from './workspace.js';

const BODY_LIMIT = 256 * 1024;
const MAX_TYPED = 40_000;

interface UiRouteOptions extends InteractionDeps {
  modelLabel: string;
  examples: string[];
  logger?: Logger;
}

function userOf(body: Record<string, unknown>): string {
  const user = body.user;
  if (typeof user !== 'string' || !findUser(user)) throw new UiError('unknown_user');
  return user;
}

function optionalString(body: Record<string, unknown>, key: string): string | undefined {
  const v = body[key];
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v !== 'string') throw new UiError(`${key} must be a string`);
  return v;
}

/** Everything one person's screen shows: the starting point, after which SSE keeps it current. */
function snapshot(o: UiRouteOptions, user: string): Record<string, unknown> {
  const visible = channels().filter((c) => isMember(c, user));
  const ids = new Set(visible.map((c) => c.id));
  return {
    seq: o.store.seq,
    me: user,
    modelLabel: o.modelLabel,
    examples: o.examples,
    botConnected: o.bot.url !== undefined,
    workspace: {
      team: TEAM,
      bot: { id: BOT.userId, name: BOT.name, realName: BOT.realName },
      users: USERS,
      usergroups: USERGROUPS.map((g) => ({ id: g.id, handle: g.handle, name: g.name })),
      channels: channels(),
    },
    channels: visible,
    messages: o.store.allMessages().filter((m) => ids.has(m.channel)),
    ephemerals: o.store.ephemeralsFor(user),
    views: o.store.views(user),
    home: o.store.homeView(user) ?? null,
    chosen: o.store.chosenFor(user),
    notices: o.store.notices(),
  };
}

async function postMessage(o: UiRouteOptions, body: Record<string, unknown>): Promise<Record<string, unknown>> {
  const user = userOf(body);
  const channel = findChannel(optionalString(body, 'channel') ?? '');
  if (!channel || !isMember(channel, user)) throw new UiError('channel_not_found', 404);
  const typed = optionalString(body, 'text') ?? '';
  if (typed.trim() === '') throw new UiError('no_text');
  if (typed.length > MAX_TYPED) throw new UiError('msg_too_long');
  const threadTsArg = optionalString(body, 'threadTs');
  let threadTs: string | undefined;
  if (threadTsArg !== undefined) {
    const parent = o.store.message(channel.id, threadTsArg);
    if (!parent) throw new UiError('thread_not_found', 404);
    threadTs = parent.thread_ts ?? parent.ts;
  }
  const { text, blocks, mentionsBot } = typedMessage(typed);
  const message = o.store.addMessage({
    channel: channel.id,
    text,
    user,
    team: TEAM.id,
    client_msg_id: randomUUID(),
    blocks,
    ...(threadTs !== undefined ? { thread_ts: threadTs } : {}),
  });
  // In order, as Slack does: the bot should see the mention before the plain message event.
  const events = personMessageEvents(message, mentionsBot);
  void o.bot.sendEvents(events);
  return { ok: true, channel: channel.id, ts: message.ts, ...(threadTs !== undefined ? { threadTs } : {}) };
}

/** The slash commands the bot's manifest declares; Slack itself refuses any other. */
const COMMANDS = new Set(['/approvals']);

/** A slash command typed in the composer: Slack posts it to the bot with a response_url for the private answer. */
async function postCommand(o: UiRouteOptions, body: Record<string, unknown>): Promise<Record<string, unknown>> {
  const user = userOf(body);
  const channel = findChannel(optionalString(body, 'channel') ?? '');
  if (!channel || !isMember(channel, user)) throw new UiError('channel_not_found', 404);
  const typed = (optionalString(body, 'text') ?? '').trim();
  const m = /^(\/[a-z0-9_-]+)(?:\s+([\s\S]*))?$/i.exec(typed);
  if (!m) throw new UiError('not_a_command');
  const command = m[1]!.toLowerCase();
  if (!COMMANDS.has(command)) throw new UiError(`${command} is not a valid command`);
  const person = findUser(user)!;
  const delivery = await o.bot.sendCommand({
    token: 'sandbox-verification-token',
    team_id: TEAM.id,
    team_domain: TEAM.domain,
    channel_id: channel.id,
    channel_name: channel.type === 'im' ? 'directmessage' : channel.name,
    user_id: user,
    user_name: person.name,
    command,
    text: (m[2] ?? '').trim(),
    api_app_id: APP_ID,
    is_enterprise_install: 'false',
    response_url: o.store.responseUrls.create(o.origin, { channel: channel.id, user }),
    trigger_id: o.store.issueTrigger(user),
  });
  return { ok: delivery.ok, status: delivery.status };
}

/** Opening the bot's Home tab: Slack tells the bot with app_home_opened, and the bot publishes the view. */
function openHome(o: UiRouteOptions, body: Record<string, unknown>): Record<string, unknown> {
  const user = userOf(body);
  const home = o.store.homeView(user);
  void o.bot.sendEvents([appHomeOpenedEvent(user, o.store.nextTs(), home)]);
  return { ok: true };
}

function actionRequest(body: Record<string, unknown>): ActionRequest {
  const user = userOf(body);
  const actionId = optionalString(body, 'actionId');
  const blockId = optionalString(body, 'blockId');
  if (actionId === undefined || blockId === undefined) throw new UiError('actionId and blockId are required');
  const channel = optionalString(body, 'channel');
  const messageTs = optionalString(body, 'messageTs');
  const viewId = optionalString(body, 'viewId');
  const request: ActionRequest = { user, actionId, blockId };
  if (channel !== undefined) request.channel = channel;
  if (messageTs !== undefined) request.messageTs = messageTs;
  if (viewId !== undefined) request.viewId = viewId;
  if (isObj(body.viewValues)) request.viewValues = body.viewValues as ActionRequest['viewValues'];
  const choiceKeys = ['value', 'selectedOption', 'selectedOptions', 'selectedDate', 'selectedTime', 'selectedUser', 'selectedUsers', 'selectedConversation', 'selectedConversations'] as const;
  for (const key of choiceKeys) if (body[key] !== undefined) (request as unknown as Record<string, unknown>)[key] = body[key];
  return request;
}

type Route = (o: UiRouteOptions, body: Record<string, unknown>) => Promise<unknown> | unknown;

const POST_ROUTES: Record<string, Route> = {
  '/ui/message': postMessage,
  '/ui/command': postCommand,
  '/ui/open-home': openHome,
  '/ui/action': (o, body) => performAction(o, actionRequest(body)),
  '/ui/view-submission': (o, body) => {
    const viewId = optionalString(body, 'viewId');
    if (viewId === undefined) throw new UiError('viewId is required');
    if (body.values !== undefined && !isObj(body.values)) throw new UiError('values must be an object');
    return submitView(o, { user: userOf(body), viewId, values: body.values as Record<string, Record<string, unknown>> | undefined });
  },
  '/ui/view-close': (o, body) => {
    const viewId = optionalString(body, 'viewId');
    if (viewId === undefined) throw new UiError('viewId is required');
    return closeView(o, { user: userOf(body), viewId });
  },
  '/ui/switch-user': (o, body) => ({ ok: true, ...snapshot(o, userOf(body)) }),
  '/ui/dismiss-ephemeral': (o, body) => {
    const user = userOf(body);
    const ts = optionalString(body, 'ts');
    const ephemeral = ts !== undefined ? o.store.ephemeral(ts) : undefined;
    if (!ephemeral || ephemeral.user !== user) throw new UiError('message_not_found', 404);
    o.store.removeEphemeral(ephemeral.ts);
    return { ok: true };
  },
};

/** Handles /ui/*; returns false for paths that are not UI routes. */
export function uiRoutes(o: UiRouteOptions) {
  return async (req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean> => {
    if (url.pathname === '/ui/state' && req.method === 'GET') {
      const user = url.searchParams.get('user') ?? USERS[0]!.id;
      if (!findUser(user)) return sendJson(res, 400, { ok: false, error: 'unknown_user' }), true;
      sendJson(res, 200, { ok: true, ...snapshot(o, user) });
      return true;
    }
    const route = POST_ROUTES[url.pathname];
    if (!route) return false;
    if (req.method !== 'POST') return sendJson(res, 405, { ok: false, error: 'method_not_allowed' }, { allow: 'POST' }), true;
    // A JSON content type cannot be sent cross-site without a CORS preflight, which is never
    // granted; with the Origin check, other sites' pages cannot act in the sandbox as anyone.
    if (!String(req.headers['content-type'] ?? '').startsWith('application/json')) return sendJson(res, 415, { ok: false, error: 'json_required' }), true;
    const origin = req.headers.origin;
    if (origin !== undefined && (!URL.canParse(origin) || new URL(origin).host !== req.headers.host)) return sendJson(res, 403, { ok: false, error: 'cross_origin' }), true;
    try {
      let body: unknown;
      try {
        body = JSON.parse(await readBody(req, BODY_LIMIT));
      } catch (error) {
        throw new UiError(error instanceof BodyTooLargeError ? 'request_too_large' : 'invalid_json', error instanceof BodyTooLargeError ? 413 : 400);
      }
      if (!isObj(body)) throw new UiError('invalid_json');
      const result = await route(o, body);
      sendJson(res, 200, result);
    } catch (error) {
      if (error instanceof UiError) sendJson(res, error.status, { ok: false, error: error.code });
      else {
        o.logger?.error({ err: error, path: url.pathname }, 'sandbox UI route failed');
        sendJson(res, 500, { ok: false, error: 'internal_error' });
      }
    }
    return true;
  };
}
