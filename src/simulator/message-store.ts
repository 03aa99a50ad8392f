/**
 * Channels' messages as Slack keeps them: ordered by ts, thread roots carrying their reply
 * summary (reply_count, reply_users, latest_reply) through posts and deletions, and reactions
 * per person. The store (store.ts) keeps its messages here and announces the changes.
 */
import { compareTs, type TsSource } from './slack-ts.js';
import { clone } from './json.js';
import type { StoredMessage } from './types.js';

/** A stored message as Slack returns it in API responses: without the `channel` key. */
export function wireMessage(m: StoredMessage): Record<string, unknown> {
  const { channel: _channel, ...rest } = clone(m);
  return rest;
}

export type MessageChange = { kind: 'message'; channel: string; message: StoredMessage } | { kind: 'message_deleted'; channel: string; ts: string };

export type MessagePatch = Partial<Pick<StoredMessage, 'text' | 'blocks' | 'attachments' | 'metadata' | 'edited'>>;

export class MessageStore {
  private byChannel = new Map<string, StoredMessage[]>();

  constructor(
    private readonly clock: TsSource,
    private readonly onChange: (change: MessageChange) => void = () => {},
  ) {}

  messages(channel: string): StoredMessage[] {
    return this.byChannel.get(channel) ?? [];
  }

  allMessages(): StoredMessage[] {
    return [...this.byChannel.values()].flat();
  }

  message(channel: string, ts: string): StoredMessage | undefined {
    return this.byChannel.get(channel)?.find((m) => m.ts === ts);
  }

  /** The thread as conversations.replies returns it: root first, then replies oldest first. */
  thread(channel: string, threadTs: string): StoredMessage[] {
    return this.messages(channel).filter((m) => m.ts === threadTs || m.thread_ts === threadTs);
  }

  clear(): void {
    this.byChannel.clear();
  }

  /** Puts back saved messages as they were, replacing any there are (no changes announced). */
  restore(messages: StoredMessage[]): void {
    this.byChannel.clear();
    for (const message of messages) {
      this.listOf(message.channel).push(structuredClone(message));
      this.clock.advancePast(message.ts);
    }
    for (const list of this.byChannel.values()) list.sort((a, b) => compareTs(a.ts, b.ts));
  }

  /** Stores a new message, with the next ts unless it brings its own (a seeded one), and keeps its thread root's summary right. */
  add(input: Omit<StoredMessage, 'ts' | 'type'> & { ts?: string }): StoredMessage {
    const { ts, ...rest } = input;
    const message: StoredMessage = { type: 'message', ts: ts ?? this.clock.next(), ...rest };
    if (ts !== undefined) this.clock.advancePast(ts);
    const list = this.listOf(message.channel);
    list.push(message);
    list.sort((a, b) => compareTs(a.ts, b.ts));
    const root = message.thread_ts !== undefined && message.thread_ts !== message.ts ? this.message(message.channel, message.thread_ts) : undefined;
    if (root) {
      message.parent_user_id ??= root.user;
      this.summarise(root);
    }
    this.onChange({ kind: 'message', channel: message.channel, message });
    return message;
  }

  update(channel: string, ts: string, patch: MessagePatch): StoredMessage | undefined {
    const message = this.message(channel, ts);
    if (!message) return undefined;
    Object.assign(message, patch);
    this.onChange({ kind: 'message', channel, message });
    return message;
  }

  remove(channel: string, ts: string): StoredMessage | undefined {
    const list = this.byChannel.get(channel);
    const index = list?.findIndex((m) => m.ts === ts) ?? -1;
    if (!list || index < 0) return undefined;
    const [removed] = list.splice(index, 1);
    this.onChange({ kind: 'message_deleted', channel, ts });
    const root = removed?.thread_ts !== undefined && removed.thread_ts !== ts ? this.message(channel, removed.thread_ts) : undefined;
    if (root) this.summarise(root);
    return removed;
  }

  /** Adds or removes one person's reaction; false when there was nothing to change (or no such message). */
  react(channel: string, ts: string, name: string, user: string, add: boolean): boolean {
    const message = this.message(channel, ts);
    if (!message) return false;
    const reactions = (message.reactions ??= []);
    let reaction = reactions.find((r) => r.name === name);
    if (add === Boolean(reaction?.users.includes(user))) {
      if (reactions.length === 0) delete message.reactions;
      return false;
    }
    if (add) {
      if (!reaction) reactions.push((reaction = { name, users: [], count: 0 }));
      reaction.users.push(user);
    } else if (reaction) {
      reaction.users = reaction.users.filter((u) => u !== user);
      if (reaction.users.length === 0) message.reactions = reactions.filter((r) => r !== reaction);
    }
    if (reaction) reaction.count = reaction.users.length;
    if (message.reactions?.length === 0) delete message.reactions;
    this.onChange({ kind: 'message', channel, message });
    return true;
  }

  private listOf(channel: string): StoredMessage[] {
    let list = this.byChannel.get(channel);
    if (!list) this.byChannel.set(channel, (list = []));
    return list;
  }

  private summarise(root: StoredMessage): void {
    const replies = this.messages(root.channel).filter((m) => m.thread_ts === root.ts && m.ts !== root.ts);
    if (replies.length === 0) {
      for (const key of ['reply_count', 'reply_users', 'reply_users_count', 'latest_reply'] as const) delete root[key];
      if (root.thread_ts === root.ts) delete root.thread_ts;
    } else {
      const users = [...new Set(replies.map((r) => r.user ?? r.bot_id ?? ''))].filter(Boolean);
      Object.assign(root, { thread_ts: root.ts, reply_count: replies.length, reply_users: users, reply_users_count: users.length, latest_reply: replies.at(-1)!.ts });
    }
    this.onChange({ kind: 'message', channel: root.channel, message: root });
  }
}
