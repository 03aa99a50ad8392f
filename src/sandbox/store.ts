/**
 * Everything the sandbox's Slack remembers: the simulator's store (messages and threads,
 * reactions, ephemerals, each person's modals and Home tab, trigger ids, response URLs) on the
 * wall clock and knowing every message and click, plus what only the sandbox's screens need:
 * what each person has ticked or picked in a message or modal, and the notices for the person at
 * the screen. The bot keeps its own state in Postgres; this is only the pretend Slack around it.
 * Every change is announced to listeners (the SSE stream, the state file).
 */
import { interactiveElements, SimulatorStore, TsClock, type Ephemeral, type MessagePatch, type StoredMessage, type StoredView } from '../simulator/index.js';
import type { StateValues } from './block-elements.js';
import { APP_ID, BOT, TEAM } from './workspace.js';

export type { StoredMessage, StoredView } from '../simulator/index.js';
export type StoredEphemeral = Ephemeral;

interface Notice {
  id: number;
  level: 'info' | 'warn' | 'error';
  text: string;
  at: string;
}

type SandboxChange = { kind: 'chosen'; user: string; container: string; values: StateValues } | { kind: 'notice'; notice: Notice };

const MAX_NOTICES = 50;

/** The key of a message or view in the "what each person chose" map. */
export function messageContainer(channel: string, ts: string): string {
  return `message:${channel}:${ts}`;
}

export function viewContainer(viewId: string): string {
  return `view:${viewId}`;
}

export class SandboxStore extends SimulatorStore<SandboxChange> {
  private chosenByKey = new Map<string, StateValues>();
  private noticeList: Notice[] = [];
  private noticeCounter = 0;
  private readonly clockNow: () => number;

  constructor(options: { triggerTtlMs: number; now?: () => number }) {
    const now = options.now ?? Date.now;
    super({
      clock: () => new TsClock(now),
      complete: true,
      triggerTtlMs: options.triggerTtlMs,
      now,
      owner: { teamId: TEAM.id, appId: APP_ID, botId: BOT.botId },
      responseUrlPrefix: '/response-url/',
    });
    this.clockNow = now;
  }

  override updateMessage(channel: string, ts: string, patch: MessagePatch): StoredMessage | undefined {
    const message = this.message(channel, ts);
    if (!message) return undefined;
    // Choices made in elements that no longer exist would otherwise be sent with the next click.
    for (const [key, values] of this.chosenByKey) {
      if (key.endsWith(`|${messageContainer(channel, ts)}`)) this.chosenByKey.set(key, pruneChosen(values, patch.blocks ?? message.blocks));
    }
    return super.updateMessage(channel, ts, patch);
  }

  protected override closed(views: StoredView[]): void {
    for (const view of views) this.dropChosen(viewContainer(view.id));
    super.closed(views);
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
    const notice: Notice = { id: this.noticeCounter, level, text, at: new Date(this.clockNow()).toISOString() };
    this.noticeList = [...this.noticeList.slice(-(MAX_NOTICES - 1)), notice];
    this.emit({ kind: 'notice', notice });
    return notice;
  }

  notices(): Notice[] {
    return [...this.noticeList];
  }

  override reset(): void {
    this.chosenByKey.clear();
    this.noticeList = [];
    super.reset();
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
