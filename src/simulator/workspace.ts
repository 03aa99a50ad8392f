/**
 * Who and what the simulated Slack knows: its ids, people, channels, user groups and who is in
 * which channel, and where its links point. The Web API methods ask it. The simulator makes one
 * up from its options (`optionsWorkspace`: any id shaped like Slack's exists, so a test needs to
 * declare nothing); the sandbox passes its own small workspace of known people and channels.
 */
import type { EnvelopeWorkspace } from './event-payloads.js';
import { SLACK_IDS } from './ids.js';
import { randomHex } from './random-ids.js';
import type { SimulatedUser, SlackSimulatorOptions } from './types.js';

interface WorkspaceIds {
  teamId: string;
  teamDomain: string;
  teamName: string;
  appId: string;
  botUserId: string;
  botId: string;
  botName: string;
}

export interface Channel {
  id: string;
  name: string;
  type: 'channel' | 'group' | 'im';
  /** A DM's person; the other member is the bot. */
  user?: string;
  /** The workspace's #general. */
  isGeneral?: boolean;
}

interface Usergroup {
  id: string;
  handle: string;
  name: string;
  users: string[];
}

export interface SimulatedWorkspace {
  readonly ids: WorkspaceIds;
  /** auth.test's `url`. */
  readonly url: string;
  /** Stored on the bot's messages, as Slack does; none unless given. */
  readonly botProfile?: Record<string, unknown>;
  /** How its events are wrapped; the simulator's own when unset. */
  readonly envelope?: EnvelopeWorkspace;
  /** undefined: channel_not_found. */
  channel(id: string): Channel | undefined;
  members(channel: Channel): string[];
  /** Whether `user` may be shown something in `channel` (chat.postEphemeral). */
  isMember(channel: Channel, user: string): boolean;
  /** undefined: user_not_found. */
  user(id: string): SimulatedUser | undefined;
  users(): SimulatedUser[];
  usergroups(): Usergroup[];
  /** conversations.open: the DM (or group DM) of `users` with the bot; throws SlackApiError when Slack would refuse. */
  openConversation(users: string[]): Channel;
  /** chat.getPermalink: where a message (a reply: within its thread) can be seen. */
  permalink(channel: string, ts: string, threadTs: string | undefined): string;
}

/** The simulator's workspace, with user groups a test can change (and reset). */
interface OptionsWorkspace extends SimulatedWorkspace {
  setUsergroup(id: string, users: string[]): void;
  reset(): void;
}

const USER_ID = /^[UW][A-Z0-9]{2,}$/;

/** The workspace a simulator's options describe; every other id shaped like Slack's exists too. */
export function optionsWorkspace(options: SlackSimulatorOptions): OptionsWorkspace {
  const knownChannels = options.channels ? new Set(options.channels) : undefined;
  const initialGroups = () => new Map(Object.entries(options.usergroups ?? {}).map(([id, users]) => [id, [...users]]));
  let groups = initialGroups();

  function profile(id: string): SimulatedUser {
    const known = options.users?.[id];
    const name = known?.name ?? id.toLowerCase();
    return {
      ...known,
      id,
      name,
      real_name: known?.real_name ?? name,
      is_bot: known?.is_bot ?? id === SLACK_IDS.botUserId,
      deleted: known?.deleted ?? false,
      tz: known?.tz ?? 'Europe/Berlin',
      team_id: known?.team_id ?? SLACK_IDS.teamId,
    };
  }

  function channel(id: string): Channel | undefined {
    if (id.startsWith('D')) return { id, name: id.toLowerCase(), type: 'im', user: `U${id.slice(1)}` };
    if (knownChannels && !knownChannels.has(id)) return undefined;
    return { id, name: id.toLowerCase(), type: id.startsWith('G') ? 'group' : 'channel' };
  }

  return {
    ids: SLACK_IDS,
    url: `https://${SLACK_IDS.teamDomain}.slack.com/`,
    channel,
    members: (c) => (c.type === 'im' ? [c.user!, SLACK_IDS.botUserId] : (options.channelMembers?.[c.id] ?? [SLACK_IDS.botUserId])),
    // Membership is only modelled where the options list it.
    isMember: (c, user) => user === SLACK_IDS.botUserId || (options.channelMembers?.[c.id]?.includes(user) ?? true),
    user: (id) => (options.users?.[id] || USER_ID.test(id) ? profile(id) : undefined),
    users: () => [SLACK_IDS.botUserId, ...Object.keys(options.users ?? {})].map(profile),
    usergroups: () =>
      [...groups.entries()].map(([id, users]) => {
        const handle = options.usergroupHandles?.[id] ?? id.toLowerCase();
        return { id, handle, name: handle, users: [...users] };
      }),
    openConversation: (users) => {
      if (users.length > 1) return { id: `G${randomHex(5).toUpperCase()}`, name: 'mpdm', type: 'group' };
      return channel(`D${users[0]!.slice(1)}`)!;
    },
    permalink: (c, ts, threadTs) => {
      const base = `https://${SLACK_IDS.teamDomain}.slack.com/archives/${c}/p${ts.replace('.', '')}`;
      return threadTs !== undefined && threadTs !== ts ? `${base}?thread_ts=${threadTs}&cid=${c}` : base;
    },
    setUsergroup: (id, users) => {
      groups.set(id, [...users]);
    },
    reset: () => {
      groups = initialGroups();
    },
  };
}
