/**
 * Everything the sandbox's Slack remembers, in memory: messages and threads, reactions,
 * ephemerals, each person's open modals, the trigger ids handed out with clicks, and what each
 * person has ticked or picked in a message. The bot keeps its own state in Postgres; this is only
 * the pretend Slack around it. Every change is announced to listeners (the SSE stream).
 */
import { interactiveElements, type StateValues } from './block-elements.js';
import type { Notice, SequencedChange, StoreChange, StoredEphemeral, StoredMessage, StoredView } from './stored-types.js';
import { MessageStore, SLACK_LIMITS, TsClock, type MessagePatch } from '../simulator/index.js';
import { TriggerIds, type TriggerCheck } from './trigger-ids.js';
export type { TriggerCheck } from './trigger-ids.js';
export type { Notice, Reaction, SequencedChange, StoreChange, StoredEphemeral, StoredMessage, StoredView } from './stored-types.js';



const MAX_NOTICES = 50;
/** Slack itself allows three modals on a stack. */
export const MAX_VIEW_STACK = SLACK_LIMITS.viewStack;

/** The key of a message or view in the "what each person chose" map. */
export function messageContainer(channel: string, ts: string): string {
  return `message:${channel}:${ts}`;
}

export function viewContainer(viewId: string): string {
  return `view:${viewId}`;
}

export class SandboxStore {
  readonly nextTs: () => string;
  private readonly clock: TsClock;
  /** Messages, threads and reactions are kept as the simulator keeps them; their changes reach the screens. */
  private readonly store: MessageStore;
  private ephemeralList: StoredEphemeral[] = [];
  private stacks = new Map<string, StoredView[]>();
  private homes = new Map<string, StoredView>();
  private readonly triggers: TriggerIds;
  private chosenByKey = new Map<string, StateValues>();
  private noticeList: Notice[] = [];
  private noticeCounter = 0;
  private viewCounter = 0;
  private listeners = new Set<(change: SequencedChange) => void>();
  private changeCount = 0;

  constructor(
    private readonly options: { triggerTtlMs: number; now?: () => number },
  ) {
    this.clock = new TsClock(options.now);
    this.nextTs = () => this.clock.next();
    this.store = new MessageStore(this.clock, (change) => this.emit(change));
    this.triggers = new TriggerIds(options.triggerTtlMs, () => this.now());
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }

  /** How many changes happened so far; a snapshot taken now is current up to this number. */
  get seq(): number {
    return this.changeCount;
  }

  onChange(listener: (change: SequencedChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private emit(change: StoreChange): void {
    this.changeCount += 1;
    const sequenced = { ...change, seq: this.changeCount };
    for (const listener of this.listeners) {
      try {
        listener(sequenced);
      } catch {
        // A broken listener (a closed SSE socket) must not stop the change from reaching the others.
      }
    }
  }

  // ----- messages -----

  messages(channel: string): StoredMessage[] {
    return this.store.messages(channel);
  }

  allMessages(): StoredMessage[] {
    return this.store.allMessages();
  }

  message(channel: string, ts: string): StoredMessage | undefined {
    return this.store.message(channel, ts);
  }

  /** The thread as conversations.replies returns it: root first, then replies oldest first. */
  thread(channel: string, threadTs: string): StoredMessage[] {
    return this.store.thread(channel, threadTs);
  }

  /** Puts back messages saved by an earlier run (see persist.ts), replacing any there are. */
  restore(messages: StoredMessage[]): void {
    this.store.restore(messages);
    this.emit({ kind: 'reset' });
  }

  /** Stores a new message (its ts is assigned here) and keeps the thread root's reply summary right. */
  addMessage(input: Omit<StoredMessage, 'ts' | 'type'>): StoredMessage {
    return this.store.add(input);
  }

  updateMessage(channel: string, ts: string, patch: MessagePatch): StoredMessage | undefined {
    const message = this.store.message(channel, ts);
    if (!message) return undefined;
    // Choices made in elements that no longer exist would otherwise be sent with the next click.
    for (const [key, values] of this.chosenByKey) {
      if (key.endsWith(`|${messageContainer(channel, ts)}`)) this.chosenByKey.set(key, pruneChosen(values, patch.blocks ?? message.blocks));
    }
    return this.store.update(channel, ts, patch);
  }

  deleteMessage(channel: string, ts: string): boolean {
    return this.store.remove(channel, ts) !== undefined;
  }

  /** Adds or removes one person's reaction; returns false when there was nothing to change. */
  react(channel: string, ts: string, name: string, user: string, add: boolean): boolean {
    return this.store.react(channel, ts, name, user, add);
  }


  // ----- ephemerals -----

  addEphemeral(input: Omit<StoredEphemeral, 'ts'>): StoredEphemeral {
    const ephemeral: StoredEphemeral = { ts: this.nextTs(), ...input };
    this.ephemeralList.push(ephemeral);
    this.emit({ kind: 'ephemeral', ephemeral });
    return ephemeral;
  }

  ephemeral(ts: string): StoredEphemeral | undefined {
    return this.ephemeralList.find((e) => e.ts === ts);
  }

  ephemeralsFor(user: string): StoredEphemeral[] {
    return this.ephemeralList.filter((e) => e.user === user);
  }

  replaceEphemeral(ts: string, patch: Pick<StoredEphemeral, 'text' | 'blocks'>): StoredEphemeral | undefined {
    const ephemeral = this.ephemeral(ts);
    if (!ephemeral) return undefined;
    Object.assign(ephemeral, patch);
    this.emit({ kind: 'ephemeral', ephemeral });
    return ephemeral;
  }

  removeEphemeral(ts: string): boolean {
    const ephemeral = this.ephemeral(ts);
    if (!ephemeral) return false;
    this.ephemeralList = this.ephemeralList.filter((e) => e !== ephemeral);
    this.emit({ kind: 'ephemeral_deleted', user: ephemeral.user, ts });
    return true;
  }

  // ----- views -----

  newViewId(): string {
    this.viewCounter += 1;
    return `V0SANDBOX${String(this.viewCounter).padStart(4, '0')}`;
  }

  views(user: string): StoredView[] {
    return this.stacks.get(user) ?? [];
  }

  /** The view and whose screen it is on. */
  findView(predicate: (view: StoredView) => boolean): { user: string; view: StoredView } | undefined {
    for (const [user, stack] of this.stacks) {
      const view = stack.find(predicate);
      if (view) return { user, view };
    }
    return undefined;
  }

  /** The Home tab the bot published for `user` (views.publish), if any. */
  homeView(user: string): StoredView | undefined {
    return this.homes.get(user);
  }

  publishHome(user: string, view: StoredView): void {
    this.homes.set(user, view);
    this.emit({ kind: 'home', user, view });
  }

  /** `replace`: views.open starts a new stack; otherwise the view is pushed on the person's stack. */
  showView(user: string, view: StoredView, replace: boolean): void {
    const stack = replace ? [] : [...this.views(user)];
    stack.push(view);
    this.stacks.set(user, stack);
    this.emit({ kind: 'views', user, views: stack });
  }

  replaceView(user: string, view: StoredView): void {
    const stack = this.views(user).map((v) => (v.id === view.id ? view : v));
    this.stacks.set(user, stack);
    this.emit({ kind: 'views', user, views: stack });
  }

  /** Closes `viewId` and the views pushed on top of it; `all` closes the whole stack (response_action: clear). */
  closeView(user: string, viewId: string, all = false): void {
    const stack = this.views(user);
    const index = stack.findIndex((v) => v.id === viewId);
    const kept = all || index < 0 ? (all ? [] : stack) : stack.slice(0, index);
    for (const v of stack) if (!kept.includes(v)) this.dropChosen(viewContainer(v.id));
    this.stacks.set(user, kept);
    this.emit({ kind: 'views', user, views: kept });
  }

  // ----- trigger ids (see trigger-ids.ts) -----

  issueTrigger(user: string): string {
    return this.triggers.issue(user);
  }

  useTrigger(id: string): TriggerCheck {
    return this.triggers.use(id);
  }

  // ----- what each person picked in elements -----

  chosen(user: string, container: string): StateValues {
    return this.chosenByKey.get(`${user}|${container}`) ?? {};
  }

  chosenFor(user: string): Record<string, StateValues> {
    const out: Record<string, StateValues> = {};
    for (const [key, values] of this.chosenByKey) {
      const [owner, container] = splitOnce(key, '|');
      if (owner === user) out[container] = values;
    }
    return out;
  }

  choose(user: string, container: string, blockId: string, actionId: string, state: Record<string, unknown>): StateValues {
    const values = structuredClone(this.chosen(user, container));
    (values[blockId] ??= {})[actionId] = state;
    this.chosenByKey.set(`${user}|${container}`, values);
    this.emit({ kind: 'chosen', user, container, values });
    return values;
  }

  private dropChosen(container: string): void {
    for (const key of this.chosenByKey.keys()) if (key.endsWith(`|${container}`)) this.chosenByKey.delete(key);
  }

  // ----- notices (what the sandbox wants the person at the screen to know) -----

  notice(level: Notice['level'], text: string): Notice {
    this.noticeCounter += 1;
    const notice: Notice = { id: this.noticeCounter, level, text, at: new Date(this.now()).toISOString() };
    this.noticeList = [...this.noticeList.slice(-(MAX_NOTICES - 1)), notice];
    this.emit({ kind: 'notice', notice });
    return notice;
  }

  notices(): Notice[] {
    return [...this.noticeList];
  }

  reset(): void {
    this.store.clear();
    this.ephemeralList = [];
    this.stacks.clear();
    this.homes.clear();
    this.triggers.clear();
    this.chosenByKey.clear();
    this.noticeList = [];
    this.emit({ kind: 'reset' });
  }
}

function splitOnce(text: string, separator: string): [string, string] {
  const i = text.indexOf(separator);
  return i < 0 ? [text, ''] : [text.slice(0, i), text.slice(i + 1)];
}

function pruneChosen(values: StateValues, blocks: unknown[] | undefined): StateValues {
  const present = new Set(interactiveElements(blocks).map((r) => `${r.blockId}\u0000${String(r.element.action_id)}`));
  const out: StateValues = {};
  for (const [blockId, actions] of Object.entries(values)) {
    for (const [actionId, state] of Object.entries(actions)) {
      if (present.has(`${blockId}\u0000${actionId}`)) (out[blockId] ??= {})[actionId] = state;
    }
  }
  return out;
}
