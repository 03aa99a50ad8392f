/**
 * What the simulated Slack remembers: messages with their thread bookkeeping and reactions,
 * ephemerals, views (each screen's modal stack, each person's Home tab), trigger ids, response
 * URLs, assistant statuses and open streams. The Web API methods read and change it, and every
 * change is announced, numbered: the sandbox's screens and state file follow them. The simulator
 * keeps one for a test; the sandbox extends it with what its screens need (sandbox/store.ts).
 */
import { SlackApiError } from './api-error.js';
import { clone, type Obj } from './json.js';
import { SLACK_LIMITS } from './limits.js';
import { MessageStore, type MessagePatch } from './message-store.js';
import { ResponseUrls } from './response-urls.js';
import type { TsSource } from './slack-ts.js';
import { TriggerIds, type TriggerCheck } from './trigger-ids.js';
import type { StoredMessage, StoredView } from './types.js';
import { viewObject, type ViewOwner } from './view-object.js';

/** An ephemeral message: only `user` sees it, and only until they leave (Slack keeps none). */
export interface Ephemeral {
  /** Slack calls it `message_ts`; unique like any ts. */
  ts: string;
  channel: string;
  user: string;
  text: string;
  blocks?: unknown[];
  thread_ts?: string;
}

type StoreChange =
  | { kind: 'message'; channel: string; message: StoredMessage }
  | { kind: 'message_deleted'; channel: string; ts: string }
  | { kind: 'ephemeral'; ephemeral: Ephemeral }
  | { kind: 'ephemeral_deleted'; user: string; ts: string }
  /** `user`: whose screen; `views`: the modals open on it, bottom first. */
  | { kind: 'views'; user: string; views: StoredView[] }
  | { kind: 'home'; user: string; view: StoredView }
  | { kind: 'reset' };

/** Numbered, so a client can tell which changes a snapshot already contains. */
type Sequenced<C> = C & { seq: number };

interface StoreOptions {
  /** Where ts come from (made anew on reset). */
  clock: () => TsSource;
  /**
   * Every message and click passes through this store (the sandbox): a thread_ts or trigger_id
   * it does not know is refused as Slack would. The simulator's tests deliver events and clicks
   * the store never saw, so there unknown ones are taken on trust.
   */
  complete?: boolean;
  /** How long a trigger_id it hands out works; forever by default. */
  triggerTtlMs?: number;
  /** Trigger ids refused as expired ('all': every one). */
  expiredTriggerIds?: 'all' | string[];
  /** The app views belong to. */
  owner: ViewOwner;
  /** Where response URLs live on the server, e.g. `/actions/`. */
  responseUrlPrefix: string;
  now?: () => number;
}

/** A screen for a modal opened with a trigger_id of nobody known (a click a test built). */
const ANONYMOUS = 'anonymous:';

export class SimulatorStore<Extra extends { kind: string } = never> {
  readonly complete: boolean;
  readonly triggers: TriggerIds;
  readonly responseUrls: ResponseUrls;
  private clock: TsSource;
  private messageStore: MessageStore;
  private ephemeralList: Ephemeral[] = [];
  /** Open modals and published Home tabs by id. */
  private viewsById = new Map<string, StoredView>();
  /** Screen (a person) → the ids of the modals open on it, bottom first. */
  private stacks = new Map<string, string[]>();
  /** Person → the id of their Home tab. */
  private homes = new Map<string, string>();
  private lastScreen: string | undefined;
  private viewCounter = 0;
  /** Every assistant.threads.setStatus, in order ('' clears a thread's status). */
  assistantStatuses: Array<{ channel: string; threadTs: string; status: string }> = [];
  /** `channel ts` of messages chat.startStream began and chat.stopStream has not ended. */
  streaming = new Set<string>();
  private listeners = new Set<(change: Sequenced<StoreChange | Extra>) => void>();
  private changeCount = 0;

  constructor(private readonly options: StoreOptions) {
    this.complete = options.complete ?? false;
    this.clock = options.clock();
    this.messageStore = new MessageStore(this.clock, (change) => this.emit(change));
    this.triggers = new TriggerIds({ ...(options.triggerTtlMs !== undefined ? { ttlMs: options.triggerTtlMs } : {}), issuedOnly: this.complete, ...(options.now ? { now: options.now } : {}) });
    this.triggers.expire(options.expiredTriggerIds ?? []);
    this.responseUrls = new ResponseUrls(options.responseUrlPrefix, options.owner.teamId, options.now);
  }

  // ----- changes -----

  /** How many changes happened so far; a snapshot taken now is current up to this number. */
  get seq(): number {
    return this.changeCount;
  }

  onChange(listener: (change: Sequenced<StoreChange | Extra>) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  protected emit(change: StoreChange | Extra): void {
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

  /** Forgets everything (the trigger ids expired from the start stay expired); listeners stay. */
  reset(): void {
    this.clock = this.options.clock();
    this.messageStore = new MessageStore(this.clock, (change) => this.emit(change));
    this.ephemeralList = [];
    this.viewsById.clear();
    this.stacks.clear();
    this.homes.clear();
    this.lastScreen = undefined;
    this.viewCounter = 0;
    this.triggers.clear();
    this.triggers.expire(this.options.expiredTriggerIds ?? []);
    this.responseUrls.clear();
    this.assistantStatuses = [];
    this.streaming = new Set();
    this.emit({ kind: 'reset' });
  }

  /** Unique, increasing ts values; later ones than any stored message. */
  nextTs(): string {
    return this.clock.next();
  }

  // ----- messages (message-store.ts) -----

  messages(channel: string): StoredMessage[] {
    return this.messageStore.messages(channel);
  }

  allMessages(): StoredMessage[] {
    return this.messageStore.allMessages();
  }

  message(channel: string, ts: string): StoredMessage | undefined {
    return this.messageStore.message(channel, ts);
  }

  /** The thread as conversations.replies returns it: root first, then replies oldest first. */
  thread(channel: string, threadTs: string): StoredMessage[] {
    return this.messageStore.thread(channel, threadTs);
  }

  /** Puts back saved messages (the sandbox's state file), replacing any there are. */
  restore(messages: StoredMessage[]): void {
    this.messageStore.restore(messages);
    this.emit({ kind: 'reset' });
  }

  /** Stores a new message (its ts is assigned here unless it brings one) and keeps its thread root's reply summary right. */
  addMessage(input: Omit<StoredMessage, 'ts' | 'type'> & { ts?: string }): StoredMessage {
    return this.messageStore.add(input);
  }

  updateMessage(channel: string, ts: string, patch: MessagePatch): StoredMessage | undefined {
    return this.messageStore.update(channel, ts, patch);
  }

  deleteMessage(channel: string, ts: string): StoredMessage | undefined {
    return this.messageStore.remove(channel, ts);
  }

  /** Adds or removes one person's reaction; false when there was nothing to change. */
  react(channel: string, ts: string, name: string, user: string, add: boolean): boolean {
    return this.messageStore.react(channel, ts, name, user, add);
  }

  // ----- ephemerals -----

  addEphemeral(input: Omit<Ephemeral, 'ts'>): Ephemeral {
    const ephemeral: Ephemeral = { ts: this.nextTs(), ...input };
    this.ephemeralList.push(ephemeral);
    this.emit({ kind: 'ephemeral', ephemeral });
    return ephemeral;
  }

  ephemeral(ts: string): Ephemeral | undefined {
    return this.ephemeralList.find((e) => e.ts === ts);
  }

  ephemerals(): Ephemeral[] {
    return this.ephemeralList;
  }

  ephemeralsFor(user: string): Ephemeral[] {
    return this.ephemeralList.filter((e) => e.user === user);
  }

  replaceEphemeral(ts: string, patch: Pick<Ephemeral, 'text' | 'blocks'>): Ephemeral | undefined {
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

  // ----- trigger ids (trigger-ids.ts) -----

  issueTrigger(user: string): string {
    return this.triggers.issue(user);
  }

  useTrigger(id: string): TriggerCheck {
    return this.triggers.use(id);
  }

  // ----- views -----

  newViewId(): string {
    this.viewCounter += 1;
    return `V0VIEW${String(this.viewCounter).padStart(5, '0')}`;
  }

  view(id: string): StoredView | undefined {
    return this.viewsById.get(id);
  }

  /** Open modals and Home tabs, in the order they were first shown. */
  allViews(): StoredView[] {
    return [...this.viewsById.values()];
  }

  /** The modals open on `screen` (a person), bottom first. */
  views(screen: string): StoredView[] {
    return (this.stacks.get(screen) ?? []).map((id) => this.viewsById.get(id)!);
  }

  /** An open modal and whose screen it is on. */
  findView(predicate: (view: StoredView) => boolean): { screen: string; view: StoredView } | undefined {
    for (const [screen, ids] of this.stacks) {
      const view = ids.map((id) => this.viewsById.get(id)!).find(predicate);
      if (view) return { screen, view };
    }
    return undefined;
  }

  /** The Home tab published for `user`, if any. */
  homeView(user: string): StoredView | undefined {
    const id = this.homes.get(user);
    return id === undefined ? undefined : this.viewsById.get(id);
  }

  /** views.publish: `view` (checked) becomes the person's Home tab, under the same id as before. */
  publishHome(user: string, view: Obj): StoredView {
    const existing = this.homeView(user);
    const stored = viewObject(view, existing?.id ?? this.newViewId(), existing, null, this.options.owner);
    this.viewsById.set(stored.id, stored);
    this.homes.set(user, stored.id);
    this.emit({ kind: 'home', user, view: stored });
    return stored;
  }

  /**
   * views.open: `view` (checked) on a new stack on `screen`, closing what it showed. A modal for
   * nobody known (`screen` undefined) gets a screen of its own.
   */
  openView(screen: string | undefined, view: Obj): StoredView {
    const id = this.newViewId();
    const on = screen ?? `${ANONYMOUS}${id}`;
    this.closed(this.views(on));
    const stored = viewObject(view, id, undefined, null, this.options.owner);
    this.viewsById.set(id, stored);
    this.lastScreen = on;
    this.show(on, [id]);
    return stored;
  }

  /** views.push and `response_action: push`: on top of `screen`'s stack (nobody known: the one last opened or pushed on). */
  pushView(screen: string | undefined, view: Obj): StoredView {
    const id = this.newViewId();
    const on = screen ?? this.lastScreen ?? `${ANONYMOUS}${id}`;
    const stack = this.stacks.get(on) ?? [];
    if (stack.length >= SLACK_LIMITS.viewStack) throw new SlackApiError('push_limit_reached');
    const top = this.views(on).at(-1);
    const stored = viewObject(view, id, top, top?.id ?? null, this.options.owner);
    this.viewsById.set(id, stored);
    this.lastScreen = on;
    this.show(on, [...stack, id]);
    return stored;
  }

  /** views.update and `response_action: update`: the open modal gets `view` (checked), keeping its id, root and place. */
  updateView(screen: string, existing: StoredView, view: Obj): StoredView {
    const stored = viewObject(view, existing.id, existing, existing.previous_view_id, this.options.owner);
    this.viewsById.set(stored.id, stored);
    this.show(screen, this.stacks.get(screen) ?? []);
    return stored;
  }

  /** Closes `viewId` and the modals pushed on top of it; `all` closes the whole stack (response_action: clear). */
  closeView(screen: string, viewId: string, all = false): void {
    const ids = this.stacks.get(screen) ?? [];
    const index = ids.indexOf(viewId);
    const kept = all ? [] : index < 0 ? ids : ids.slice(0, index);
    this.closed(this.views(screen).filter((v) => !kept.includes(v.id)));
    this.show(screen, kept);
  }

  private show(screen: string, ids: string[]): void {
    if (ids.length > 0) this.stacks.set(screen, ids);
    else this.stacks.delete(screen);
    this.emit({ kind: 'views', user: screen, views: this.views(screen) });
  }

  /** Views no screen shows any more; a store that keeps more about a view forgets it here too. */
  protected closed(views: StoredView[]): void {
    for (const view of views) this.viewsById.delete(view.id);
  }

  // ----- the simulator's own -----

  seedMessage(m: { channel: string; text: string; user?: string; ts?: string; threadTs?: string; botId?: string; blocks?: unknown[] }): StoredMessage {
    return this.addMessage({
      channel: m.channel,
      ...(m.ts !== undefined ? { ts: m.ts } : {}),
      text: m.text,
      ...(m.user !== undefined ? { user: m.user } : {}),
      ...(m.botId !== undefined ? { bot_id: m.botId } : {}),
      team: this.options.owner.teamId,
      ...(m.blocks !== undefined ? { blocks: clone(m.blocks) } : {}),
      ...(m.threadTs !== undefined ? { thread_ts: m.threadTs } : {}),
    });
  }

  /** The status assistant.threads.setStatus last gave a thread ('' when cleared, undefined when never set). */
  assistantStatus(channel: string, threadTs: string): string | undefined {
    return this.assistantStatuses.findLast((s) => s.channel === channel && s.threadTs === threadTs)?.status;
  }
}
