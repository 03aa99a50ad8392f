import type { webApi } from '@slack/bolt';
import type { Agent } from '../agent/agent.js';
import type { Logger } from '../logger.js';
import type { BackgroundTasks } from './transport/background-tasks.js';
import type { SlackDb } from './store/slack-tables.js';
import type { HomeRefresher } from './home/home-refresher.js';
import type { AssistantSupport } from './assistant-support.js';

/** What every listener and helper of the Slack front end works with. */
export interface SlackContext {
  readonly agent: Agent;
  /**
   * The Slack front end's own tables (events, cards, threads, locks, repairs), in the agent's database;
   * everything about runs and requests goes through the agent.
   */
  readonly slackDb: SlackDb;
  readonly logger: Logger;
  /** The app's Web API client (bot token, retries, SLACK_API_URL). */
  readonly client: webApi.WebClient;
  readonly tasks: BackgroundTasks;
  /**
   * Cards being posted by this process, by action id: a redraw that arrives
   * before the card's location is stored waits for it instead of finding nothing.
   */
  readonly cardsInFlight: Map<number, CardInFlight>;
  /** The redraw of each card under way in this process, by action id: the next one waits for it (see updateCard). */
  readonly cardRedraws: Map<number, Promise<unknown>>;
  /** Requests this process is deciding right now (see markDecisionInFlight), by action id. */
  readonly decisionsInFlight: Map<number, number>;
  /** How long work runs before its message gets the working reaction (see workingReaction). */
  readonly workingReactionDelayMs: number;
  /** Known once auth.test has answered at start. */
  botUserId?: string;
  /** The workspace's id (auth.test's `team_id`): read-only views are for its members. */
  teamId?: string;
  /** The workspace's web address (auth.test's `url`), for links to threads. */
  teamUrl?: string;
  /**
   * Channels conversations.info said are public, with when it said so (see routeCard): a busy
   * public channel is asked once in a while, not for every request. Absent: asked every time.
   */
  readonly publicChannels?: Map<string, number>;
  /** Republishes people's Home tabs when requests they see change (absent where no Home is kept). */
  readonly home?: HomeRefresher;
  /** Slack's AI-app methods (status, streaming), when SLACK_ASSISTANT allows them; absent: never used. */
  readonly assistant?: AssistantSupport;
}

/** A card this process is posting. */
export interface CardInFlight {
  /** Settles once the card is posted and its location stored (or that failed). */
  readonly done: Promise<unknown>;
  /** A redraw in this process is waiting for `done`; the poster need not redraw itself. */
  redrawWaiting: boolean;
}

/** A place to post: a channel and, unless it is a DM's top level, a thread. */
export interface ThreadTarget {
  channel: string;
  threadTs?: string;
}

/** Who clicked where. Only `user` is vouched for by Slack's signature; the rest locates the reply. */
export interface Click extends ThreadTarget {
  user: string;
  /**
   * Where to tell the clicker something, when not beside the card: a click from the inbox is
   * answered on their Home tab, or in the conversation where they typed /approvals.
   */
  answerAt?: 'home' | ThreadTarget;
  messageTs?: string;
  triggerId?: string;
  teamId?: string;
}
