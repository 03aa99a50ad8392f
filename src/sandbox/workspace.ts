/**
 * The pretend Slack workspace the sandbox serves: three people, one user group, #general and a DM
 * with the bot for each person. Ids look like real Slack ids (U…, S…, C…, D…) so the bot's own
 * id checks (e.g. "is this a user id?") treat them exactly as they would in a real workspace.
 * `sandboxWorkspace` hands it to the simulator's Web API methods.
 */
import { SlackApiError, type SimulatedUser, type SimulatedWorkspace } from '../simulator/index.js';

interface SandboxUser {
  id: string;
  /** The handle people type after @. */
  name: string;
  realName: string;
  /** What the UI shows next to the switcher, e.g. "finance". */
  note?: string;
}

interface SandboxUsergroup {
  id: string;
  handle: string;
  name: string;
  users: string[];
}

interface SandboxChannel {
  id: string;
  name: string;
  type: 'channel' | 'im';
  /** For a DM: the person talking to the bot. */
  user?: string;
}

export const TEAM = { id: 'T0SANDBOX', domain: 'sandbox', name: 'Sandbox' } as const;
export const APP_ID = 'A0SANDBOX01';
export const BOT = { userId: 'U0BOT', botId: 'B0BOT', name: 'approvals', realName: 'Approval Bot' } as const;

export const USERS: readonly SandboxUser[] = [
  { id: 'U0ALICE', name: 'alice', realName: 'Alice Adams' },
  { id: 'U0BOB', name: 'bob', realName: 'Bob Baker' },
  { id: 'U0CAROL', name: 'carol', realName: 'Carol Chen', note: 'finance' },
];

export const USERGROUPS: readonly SandboxUsergroup[] = [
  { id: 'S0FINANCE', handle: 'finance', name: 'Finance', users: ['U0CAROL'] },
];

export const GENERAL: SandboxChannel = { id: 'C0GENERAL', name: 'general', type: 'channel' };

/** The DM between a person and the bot: `D` plus the rest of the person's id, so it is stable. */
export function dmChannelOf(userId: string): string {
  return `D${userId.slice(1)}`;
}

export function channels(): SandboxChannel[] {
  return [GENERAL, ...USERS.map((u): SandboxChannel => ({ id: dmChannelOf(u.id), name: BOT.name, type: 'im', user: u.id }))];
}

export function findChannel(id: string): SandboxChannel | undefined {
  return channels().find((c) => c.id === id);
}

export function findUser(id: string): SandboxUser | undefined {
  return USERS.find((u) => u.id === id);
}

export function findUserByName(name: string): SandboxUser | undefined {
  const lower = name.toLowerCase();
  return USERS.find((u) => u.name === lower);
}

export function findUsergroup(idOrHandle: string): SandboxUsergroup | undefined {
  return USERGROUPS.find((g) => g.id === idOrHandle || g.handle === idOrHandle.toLowerCase());
}

/** Whether `userId` may read `channel`: everyone is in #general, a DM only holds its person and the bot. */
export function isMember(channel: SandboxChannel, userId: string): boolean {
  if (userId === BOT.userId) return true;
  return channel.type === 'channel' ? findUser(userId) !== undefined : channel.user === userId;
}

/** The `user` object Slack puts in interaction payloads. */
export function payloadUser(userId: string): Record<string, unknown> {
  const name = findUser(userId)?.name ?? userId.toLowerCase();
  return { id: userId, username: name, name, team_id: TEAM.id };
}

function botProfile(): Record<string, unknown> {
  return {
    id: BOT.botId,
    app_id: APP_ID,
    name: BOT.realName,
    deleted: false,
    team_id: TEAM.id,
    updated: 1726000000,
    icons: {},
  };
}

/** Where the events the sandbox sends say they come from. */
export const ENVELOPE = {
  appId: APP_ID,
  botUserId: BOT.userId,
  verificationToken: 'sandbox-verification-token',
  eventContext: '4-eyJldCI6Im1lc3NhZ2UiLCJ0aWQiOiJUMFNBTkRCT1gifQ',
};

function profile(id: string, name: string, realName: string): SimulatedUser {
  return { id, name, real_name: realName, is_bot: id === BOT.userId, deleted: false, tz: 'Europe/Berlin', tz_label: 'Central European Time', tz_offset: 3600, team_id: TEAM.id };
}

/** This workspace as the simulator's Web API methods see it; links to messages open them in the sandbox at `origin`. */
export function sandboxWorkspace(origin: string): SimulatedWorkspace {
  const bot = profile(BOT.userId, BOT.name, BOT.realName);
  const person = (id: string): SimulatedUser | undefined => {
    const u = findUser(id);
    return u ? profile(u.id, u.name, u.realName) : undefined;
  };
  const channel = (id: string) => {
    const c = findChannel(id);
    return c && { ...c, ...(c === GENERAL ? { isGeneral: true } : {}) };
  };
  return {
    ids: { teamId: TEAM.id, teamDomain: TEAM.domain, teamName: TEAM.name, appId: APP_ID, botUserId: BOT.userId, botId: BOT.botId, botName: BOT.name },
    url: `${origin}/`,
    botProfile: botProfile(),
    envelope: ENVELOPE,
    channel,
    members: (c) => (c.type === 'im' ? [c.user!, BOT.userId] : [...USERS.map((u) => u.id), BOT.userId]),
    isMember: (c, user) => isMember(findChannel(c.id)!, user),
    user: (id) => (id === BOT.userId ? bot : person(id)),
    users: () => [bot, ...USERS.map((u) => person(u.id)!)],
    usergroups: () => USERGROUPS.map((g) => ({ ...g, users: [...g.users] })),
    openConversation: (users) => {
      // The sandbox has DMs with the bot only; group DMs are not part of its workspace.
      if (users.length > 1) throw new SlackApiError('not_allowed_token_type');
      if (!findUser(users[0]!)) throw new SlackApiError('user_not_found');
      return channel(dmChannelOf(users[0]!))!;
    },
    permalink: (channel, ts, threadTs) => `${origin}/?channel=${channel}&ts=${ts}${threadTs !== undefined && threadTs !== ts ? `&thread=${threadTs}` : ''}`,
  };
}
