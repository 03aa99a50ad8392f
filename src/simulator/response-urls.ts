/**
 * response_url: the per-interaction webhook Bolt's `respond()` posts to, each one tied to where
 * the interaction happened (channel, message, the person). Like Slack's, a URL works five times
 * within thirty minutes. What a post does is methods/response-url.ts.
 */
import { SlackApiError } from './api-error.js';
import { randomHex } from './random-ids.js';

export interface ResponseUrlTarget {
  channel: string;
  /** The message the interaction came from; `replace_original`/`delete_original` act on it. */
  messageTs?: string;
  /** The message is an ephemeral (only `user` sees it), replaced or deleted as such. */
  isEphemeral?: boolean;
  /** Who clicked: ephemeral responses go to them. */
  user?: string;
  threadTs?: string;
}

const USES = 5;
const LIFETIME_MS = 30 * 60_000;

export class ResponseUrls {
  private targets = new Map<string, ResponseUrlTarget & { uses: number; createdAt: number }>();
  private counter = 0;

  /** `prefix`: the path the URLs live under, e.g. `/actions/` as on hooks.slack.com. */
  constructor(
    readonly prefix: string,
    private readonly teamId: string,
    private readonly now: () => number = Date.now,
  ) {}

  create(origin: string, target: ResponseUrlTarget): string {
    this.counter += 1;
    const path = `${this.prefix}${this.teamId}/${String(this.counter).padStart(13, '0')}/${randomHex(12)}`;
    this.targets.set(path, { ...target, uses: 0, createdAt: this.now() });
    return `${origin}${path}`;
  }

  /** The target of a post to `path`, counting the use; refused once spent or too old (or never handed out). */
  use(path: string): ResponseUrlTarget {
    const target = this.targets.get(path);
    if (!target || this.now() - target.createdAt > LIFETIME_MS) throw new SlackApiError('expired_url');
    if (++target.uses > USES) throw new SlackApiError('used_url');
    return target;
  }

  clear(): void {
    this.targets.clear();
  }
}
