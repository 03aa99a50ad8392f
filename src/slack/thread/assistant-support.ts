import type { AssistantFeature, AssistantThreads } from '../context.js';

/**
 * SLACK_ASSISTANT: whether the bot uses Slack's AI-app methods (assistant.threads.setStatus,
 * chat.startStream/appendStream/stopStream). `auto`: in threads of direct messages with the
 * app, where Slack shows an assistant's status and streams; `on`: in every thread; `off`: never.
 */
export type AssistantMode = 'auto' | 'on' | 'off';

/** Errors that will not go away while this process runs: the method is missing or the app lacks the scope. */
const PERMANENT = new Set(['unknown_method', 'missing_scope']);

/**
 * What this process knows about the AI-app methods: where to try them, and which of them
 * Slack has refused for good (then the bot keeps to its reaction and posted messages).
 */
export class AssistantSupport implements AssistantThreads {
  private readonly refused = new Set<AssistantFeature>();
  /** Display names of approvers for the status line, by user or group id. */
  readonly names = new Map<string, string>();
  /** Threads this process gave a "waiting for approval" status, so a continuation clears it as it starts. */
  private readonly waiting = new Set<string>();

  constructor(readonly mode: AssistantMode) {}

  /** Whether to try `feature` in this place: configured, not refused for good, and a thread to do it in. */
  tries(feature: AssistantFeature, target: { channel: string; threadTs?: string }): boolean {
    if (this.mode === 'off' || this.refused.has(feature) || target.threadTs === undefined) return false;
    return this.mode === 'on' || target.channel.startsWith('D');
  }

  /** A call of `feature` failed with `code`; the permanent ones stop every later try in this process. */
  failed(feature: AssistantFeature, code: string | undefined): void {
    if (code !== undefined && PERMANENT.has(code)) this.refused.add(feature);
  }

  isRefused(feature: AssistantFeature): boolean {
    return this.refused.has(feature);
  }

  markWaiting(target: { channel: string; threadTs?: string }): void {
    this.waiting.add(`${target.channel} ${target.threadTs ?? ''}`);
  }

  /** Whether this process left the thread waiting (and forgets it). */
  takeWaiting(target: { channel: string; threadTs?: string }): boolean {
    return this.waiting.delete(`${target.channel} ${target.threadTs ?? ''}`);
  }
}
