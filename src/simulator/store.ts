/**
 * What the simulated Slack remembers: messages with their thread bookkeeping and reactions,
 * ephemerals, views (modals and published Home tabs), used trigger ids and user groups. Tests
 * and the Web API methods read and change it; the bot keeps its own state elsewhere.
 */
import { SLACK_IDS } from './ids.js';
import { clone } from './json.js';
import { compareTs, microsToTs, tsToMicros } from './slack-ts.js';
import type { SlackSimulatorOptions, StoredEphemeral, StoredMessage, StoredView } from './types.js';

const TS_STEP = 100n;
const DEFAULT_FIRST_TS = '1726133700.000100';

export class SimulatorStore {
  messagesByChannel = new Map<string, StoredMessage[]>();
  ephemerals: StoredEphemeral[] = [];
  views = new Map<string, StoredView>();
  /** user id → the view id of their published Home tab. */
  homeViews = new Map<string, string>();
  usedTriggers = new Set<string>();
  usergroups: Map<string, string[]>;
  expiredTriggers: 'all' | Set<string>;
  private nextMicros: bigint;
  private viewCounter = 0;

  constructor(private readonly options: SlackSimulatorOptions) {
    this.nextMicros = tsToMicros(options.firstTs ?? DEFAULT_FIRST_TS);
    this.usergroups = this.initialUsergroups();
    this.expiredTriggers = this.initialExpired();
  }

  private initialUsergroups(): Map<string, string[]> {
    return new Map(Object.entries(this.options.usergroups ?? {}).map(([k, v]) => [k, [...v]]));
  }

  private initialExpired(): 'all' | Set<string> {
    const ids = this.options.expiredTriggerIds;
    return ids === 'all' ? 'all' : new Set(ids ?? []);
  }

  reset(): void {
    this.messagesByChannel = new Map();
    this.ephemerals = [];
    this.views = new Map();
    this.homeViews = new Map();
    this.usedTriggers = new Set();
    this.usergroups = this.initialUsergroups();
    this.expiredTriggers = this.initialExpired();
    this.nextMicros = tsToMicros(this.options.firstTs ?? DEFAULT_FIRST_TS);
    this.viewCounter = 0;
  }

  /** Unique, increasing ts values; later ones than any seeded message. */
  nextTs(): string {
    const ts = microsToTs(this.nextMicros);
    this.nextMicros += TS_STEP;
    return ts;
  }

  newViewId(): string {
    this.viewCounter += 1;
    return `V0VIEW${String(this.viewCounter).padStart(5, '0')}`;
  }

  channelMessages(channel: string): StoredMessage[] {
    let list = this.messagesByChannel.get(channel);
    if (!list) {
      list = [];
      this.messagesByChannel.set(channel, list);
    }
    return list;
  }

  findMessage(channel: string, ts: string): StoredMessage | undefined {
    return this.messagesByChannel.get(channel)?.find((m) => m.ts === ts);
  }

  removeMessage(channel: string, ts: string | undefined): boolean {
    const list = this.messagesByChannel.get(channel) ?? [];
    const index = list.findIndex((m) => m.ts === ts);
    if (index < 0) return false;
    list.splice(index, 1);
    return true;
  }

  threadOf(channel: string, threadTs: string): StoredMessage[] {
    return (this.messagesByChannel.get(channel) ?? []).filter((m) => m.ts === threadTs || m.thread_ts === threadTs);
  }

  /** Files a message and keeps its thread root's reply bookkeeping the way Slack reports it. */
  insertMessage(message: StoredMessage): void {
    const list = this.channelMessages(message.channel);
    list.push(message);
    list.sort((a, b) => compareTs(a.ts, b.ts));
    if (tsToMicros(message.ts) >= this.nextMicros) this.nextMicros = tsToMicros(message.ts) + TS_STEP;
    if (message.thread_ts !== undefined && message.thread_ts !== message.ts) {
      const parent = this.findMessage(message.channel, message.thread_ts);
      if (parent) {
        parent.thread_ts = parent.ts;
        parent.reply_count = (parent.reply_count ?? 0) + 1;
        const author = message.user ?? message.bot_id;
        const users = new Set(parent.reply_users ?? []);
        if (author !== undefined) users.add(author);
        parent.reply_users = [...users];
        parent.reply_users_count = users.size;
        parent.latest_reply = message.ts;
        message.parent_user_id ??= parent.user;
      }
    }
  }

  /** A message as the bot posts it (author fields filled in), not yet stored. */
  botMessage(channel: string, ts: string): StoredMessage {
    return { type: 'message', channel, ts, text: '', user: SLACK_IDS.botUserId, bot_id: SLACK_IDS.botId, app_id: SLACK_IDS.appId, team: SLACK_IDS.teamId };
  }

  seedMessage(m: { channel: string; text: string; user?: string; ts?: string; threadTs?: string; botId?: string; blocks?: unknown[] }): StoredMessage {
    const message: StoredMessage = { type: 'message', channel: m.channel, ts: m.ts ?? this.nextTs(), text: m.text };
    if (m.user !== undefined) message.user = m.user;
    if (m.botId !== undefined) message.bot_id = m.botId;
    message.team = SLACK_IDS.teamId;
    if (m.blocks !== undefined) message.blocks = clone(m.blocks);
    if (m.threadTs !== undefined) message.thread_ts = m.threadTs;
    this.insertMessage(message);
    return message;
  }

  homeView(user: string): StoredView | undefined {
    const id = this.homeViews.get(user);
    return id === undefined ? undefined : this.views.get(id);
  }
}
