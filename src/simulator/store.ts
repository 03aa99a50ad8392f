/**
 * What the simulated Slack remembers: messages with their thread bookkeeping and reactions,
 * ephemerals, views (modals and published Home tabs), used trigger ids and user groups. Tests
 * and the Web API methods read and change it; the bot keeps its own state elsewhere.
 */
import { SLACK_IDS } from './ids.js';
import { clone } from './json.js';
import { MessageStore, type TsSource } from './message-store.js';
import { microsToTs, tsToMicros } from './slack-ts.js';
import type { SlackSimulatorOptions, StoredEphemeral, StoredMessage, StoredView } from './types.js';

const TS_STEP = 100n;
const DEFAULT_FIRST_TS = '1726133700.000100';

/** ts values 100 µs apart from a fixed start, so a test's ts are the same on every run. */
class StepClock implements TsSource {
  private nextMicros: bigint;

  constructor(firstTs: string) {
    this.nextMicros = tsToMicros(firstTs);
  }

  next(): string {
    const ts = microsToTs(this.nextMicros);
    this.nextMicros += TS_STEP;
    return ts;
  }

  advancePast(ts: string): void {
    const micros = tsToMicros(ts);
    if (micros >= this.nextMicros) this.nextMicros = micros + TS_STEP;
  }
}

export class SimulatorStore {
  messages: MessageStore;
  ephemerals: StoredEphemeral[] = [];
  views = new Map<string, StoredView>();
  /** user id → the view id of their published Home tab. */
  homeViews = new Map<string, string>();
  usedTriggers = new Set<string>();
  /** Every assistant.threads.setStatus, in order ('' clears a thread's status). */
  assistantStatuses: Array<{ channel: string; threadTs: string; status: string }> = [];
  /** `channel ts` of messages chat.startStream began and chat.stopStream has not ended. */
  streaming = new Set<string>();
  usergroups: Map<string, string[]>;
  expiredTriggers: 'all' | Set<string>;
  private clock: StepClock;
  private viewCounter = 0;

  constructor(private readonly options: SlackSimulatorOptions) {
    this.clock = new StepClock(options.firstTs ?? DEFAULT_FIRST_TS);
    this.messages = new MessageStore(this.clock);
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
    this.clock = new StepClock(this.options.firstTs ?? DEFAULT_FIRST_TS);
    this.messages = new MessageStore(this.clock);
    this.ephemerals = [];
    this.views = new Map();
    this.homeViews = new Map();
    this.usedTriggers = new Set();
    this.assistantStatuses = [];
    this.streaming = new Set();
    this.usergroups = this.initialUsergroups();
    this.expiredTriggers = this.initialExpired();
    this.viewCounter = 0;
  }

  /** Unique, increasing ts values; later ones than any seeded message. */
  nextTs(): string {
    return this.clock.next();
  }

  newViewId(): string {
    this.viewCounter += 1;
    return `V0VIEW${String(this.viewCounter).padStart(5, '0')}`;
  }

  /** The author fields of a message the bot posts. */
  botAuthor(): Pick<StoredMessage, 'user' | 'bot_id' | 'app_id' | 'team'> {
    return { user: SLACK_IDS.botUserId, bot_id: SLACK_IDS.botId, app_id: SLACK_IDS.appId, team: SLACK_IDS.teamId };
  }

  seedMessage(m: { channel: string; text: string; user?: string; ts?: string; threadTs?: string; botId?: string; blocks?: unknown[] }): StoredMessage {
    return this.messages.add({
      channel: m.channel,
      ...(m.ts !== undefined ? { ts: m.ts } : {}),
      text: m.text,
      ...(m.user !== undefined ? { user: m.user } : {}),
      ...(m.botId !== undefined ? { bot_id: m.botId } : {}),
      team: SLACK_IDS.teamId,
      ...(m.blocks !== undefined ? { blocks: clone(m.blocks) } : {}),
      ...(m.threadTs !== undefined ? { thread_ts: m.threadTs } : {}),
    });
  }

  /** The status assistant.threads.setStatus last gave a thread ('' when cleared, undefined when never set). */
  assistantStatus(channel: string, threadTs: string): string | undefined {
    return this.assistantStatuses.findLast((s) => s.channel === channel && s.threadTs === threadTs)?.status;
  }

  homeView(user: string): StoredView | undefined {
    const id = this.homeViews.get(user);
    return id === undefined ? undefined : this.views.get(id);
  }
}
