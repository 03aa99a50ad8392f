import type { webApi, BlockAction } from '@slack/bolt';
import type { KnownBlock } from '@slack/types';
import type { Agent } from '../agent/agent.js';
import type { Actor, AgentStream, Decision, RememberedCall } from '../agent/api-types.js';
import { requestOf, type Request } from '../agent/request.js';
import type { Logger } from '../logger.js';
import type { BackgroundTasks } from './transport/background-tasks.js';
import type { UserTeams } from './transport/slack-web-client.js';
import type { Generated, Kysely } from 'kysely';
import type { Db } from '../db/database.js';
import type { DB } from '../db/schema.js';
import type { CardKind } from './kit/action-ids.js';

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
  /** What this process is doing with its cards (posting, redrawing, deciding): the one owner of its in-flight state. */
  readonly cards: CardsInFlight;
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
  readonly home?: HomeTabs;
  /** A person's team from users.info, cached (for the Home tab, whose event does not name it). */
  readonly userTeams: UserTeams;
  /** Slack's AI-app methods (status, streaming), when SLACK_ASSISTANT allows them; absent: never used. */
  readonly assistant?: AssistantThreads;
  /**
   * Says in a run's thread that a call ran under a remembered approval (remembered/), passed in
   * so that showing a run (thread/) imports no other feature.
   */
  readonly showRememberedUse: (target: ThreadTarget, call: RememberedCall) => Promise<void>;
  /**
   * Says in the thread where a run goes on that its approval was remembered (remembered/), passed
   * in so that showing a decision (approval/) imports no other feature.
   */
  readonly showRememberedCreated: (target: ThreadTarget, decision: Decision) => Promise<void>;
  /**
   * The batch card (batch/), which the card lifecycle posts for a step's parallel calls and redraws
   * when any member changes: passed in by the app, so that card/ imports no other feature. Each
   * takes the context it runs on (the sweep's has a client of its own).
   */
  readonly batches: BatchCards;
  /**
   * A run shown in its thread as it goes on, and the working reaction taken off the message that
   * asked for it (thread/): passed in by the app, so that what carries a run on besides a message
   * (a decision, an expiry, a card the sweep posts) imports no thread/ file. Each takes the
   * context it runs on (the sweep's has a client of its own).
   */
  readonly runs: RunsInThreads;
  /**
   * Copies of an approval card just posted (or adopted) sent where its policy routes them, and the
   * thread told (routing/): passed in by the app, so that card/ imports no other feature. Takes
   * the context it runs on (the sweep's has a client of its own).
   */
  readonly routeCard: (ctx: SlackContext, action: Request, target: ThreadTarget, card: { blocks: KnownBlock[]; text: string }) => Promise<void>;
}

/** What card/ asks of the batch card: see SlackContext.batches. */
interface BatchCards {
  post(
    ctx: SlackContext,
    actionIds: readonly number[],
    target: ThreadTarget,
    onCancelled: (stream: AgentStream) => Promise<void>,
    stored: ReadonlyArray<Request | undefined>,
  ): Promise<void>;
  /** Redraws the batch card of run `runId` whose members were `members` when the caller read them. */
  redraw(ctx: SlackContext, members: readonly number[], runId: string): Promise<void>;
}

/** A card (or batch card) this process is posting: see CardsInFlight.startPosting. */
export interface CardPosting {
  /** A redraw in this process waited for the post: the poster need not redraw itself. */
  readonly redrawWaiting: boolean;
  /** The post is over (posted and stored, or failed): redraws no longer wait for it. */
  finish(): void;
}

/** What features ask of SlackContext.cards; card/lifecycle.ts's CardLifecycle is it. */
export interface CardsInFlight {
  /**
   * These requests' card is being posted: `done` settles when the post (and its routing) is over,
   * `stored` when where it went is stored (or could not be). Call finish() when the post is over.
   */
  startPosting(actionIds: readonly number[], done: Promise<unknown>, stored: Promise<unknown>): CardPosting;
  /** A redraw waits for a post of the card under way here (and tells the poster it will redraw); whether there was one. */
  redrawAfterPost(actionId: number): Promise<boolean>;
  /** Waits until these requests' cards being posted here are stored. */
  whenStored(actionIds: readonly number[]): Promise<void>;
  /** Marks a request as being decided in this process until the returned function is called. */
  markDeciding(actionId: number): () => void;
  /** Whether a decision of this request is under way in this process (see markDeciding). */
  isDeciding(actionId: number): boolean;
  /** Runs a redraw of this request's card after any under way here; `waited`: there was one. */
  redrawInTurn<T>(actionId: number, work: (waited: boolean) => Promise<T>): Promise<T>;
  /**
   * Runs a redraw of the batch card of this run after any under way here. Keyed by the run, not a
   * member: an edit replaces a member's request, so two redraws of one batch may name different ids.
   */
  batchRedrawInTurn<T>(runId: string, work: () => Promise<T>): Promise<T>;
  /** Runs a lookup of this run's thread (for cards to adopt) after any under way here. */
  threadLookupInTurn<T>(rootRunId: string, work: () => Promise<T>): Promise<T>;
}

/** What features ask of SlackContext.home; inbox/home-refresher.ts's HomeRefresher is it. */
export interface HomeTabs {
  /** `user` opened their Home: published in its turn, and kept current from here on. */
  opened(user: string): Promise<void>;
  /** These people's inboxes changed (with `everyone`: everyone's who may decide): republished after a quiet moment. */
  refresh(users: Iterable<string>, everyone?: boolean): void;
  /** Publishes `user`'s Home in their turn, as they asked (the next page, say). */
  republish(user: string): Promise<void>;
  /** Answers a click from the Home tab on the Home tab itself, in the person's turn. */
  notice(user: string, text: string): Promise<void>;
}

/** An AI-app method the bot may use: assistant.threads.setStatus, or the chat streaming methods. */
export type AssistantFeature = 'status' | 'stream';

/** What features ask of SlackContext.assistant; thread/assistant-status.ts's AssistantSupport is it. */
export interface AssistantThreads {
  /** Display names of approvers for the status line, by user or group id. */
  readonly names: Map<string, string>;
  /** Whether to try `feature` in this place: configured, not refused for good, and a thread to do it in. */
  tries(feature: AssistantFeature, target: ThreadTarget): boolean;
  /** A call of `feature` failed with `code`; the permanent ones stop every later try in this process. */
  failed(feature: AssistantFeature, code: string | undefined): void;
  /** This process gave the thread a "waiting for approval" status. */
  markWaiting(target: ThreadTarget): void;
  /** Whether this process left the thread waiting (and forgets it). */
  takeWaiting(target: ThreadTarget): boolean;
}

/** What approval/ and card/ ask of thread/: see SlackContext.runs. */
interface RunsInThreads {
  /**
   * Shows `stream` in its thread (thread/'s runInThread); resolves when it has ended. `drawn`:
   * cards the caller drew whose marks ride on the run's last statement; `recipient`: whom a
   * streamed answer outside a DM is for.
   */
  show(ctx: SlackContext, stream: AgentStream, target: ThreadTarget, options?: { drawn?: DrawnMark[]; recipient?: StreamRecipient }): Promise<void>;
  /** Takes the working reaction off a message, also one another process left behind. */
  clearWorkingReaction(ctx: SlackContext, message: { channel: string; ts: string }): Promise<void>;
}

/** A card drawn whose `drawn` mark is left to ride on a later statement (markRunShown) instead of one of its own. */
export interface DrawnMark {
  actionId: number;
  key: string;
}

/** Who an answer streamed outside a DM is for (Slack requires it there). */
export interface StreamRecipient {
  userId: string;
  teamId?: string;
}

/** The run's requester as the recipient of its streamed answer (team from the click, when it says). */
export function recipientOf(requester: string | null | undefined, click: { user: string; teamId?: string }): { recipient?: StreamRecipient } {
  return requester ? { recipient: { userId: requester, ...(click.teamId ? { teamId: click.teamId } : {}) } } : {};
}

/** A place to post: a channel and, unless it is a DM's top level, a thread. */
export interface ThreadTarget {
  channel: string;
  threadTs?: string;
}

/**
 * A person acting in Slack, as the signed payload names them: their id and their own team
 * (`user.team_id` of a click or submission, the message's `user_team`/`team`, a command's
 * `team_id`), `''` when Slack said none. The runtime refuses a team outside the workspace.
 */
export interface Person {
  user: string;
  teamId: string;
  /** Only where the payload says it reliably (see TeamOfActor.enterpriseId). */
  enterpriseId?: string;
}

/** The runtime's actor for a person acting in Slack: always with their team (see Person). */
export function actorOf(person: Person): Actor {
  return { userId: person.user, teamId: person.teamId, ...(person.enterpriseId ? { enterpriseId: person.enterpriseId } : {}) };
}

/**
 * The clicker's own team: `user.team_id`. In a Slack Connect channel `team` is the app's
 * workspace whoever clicks, so it is only a fallback for payloads without the user's team.
 */
export function teamOfClicker(body: { user?: { team_id?: string }; team?: { id?: string } | null }): string {
  return body.user?.team_id ?? body.team?.id ?? '';
}

/** The person a signed interaction payload (a click, a modal submission) comes from. */
export function personOf(body: { user: { id: string; team_id?: string }; team?: { id?: string } | null }): Person {
  return { user: body.user.id, teamId: teamOfClicker(body) };
}

/** Who clicked where. Only `user` and `teamId` are vouched for by Slack's signature; the rest locates the reply. */
export interface Click extends ThreadTarget, Person {
  /**
   * Where to tell the clicker something, when not beside the card: a click from the inbox is
   * answered on their Home tab, or in the conversation where they typed /approvals.
   */
  answerAt?: 'home' | ThreadTarget;
  messageTs?: string;
  triggerId?: string;
}

/** A block action's click: who (and from which team), where (channel, message, thread), its trigger; undefined without a user or a channel. */
export function clickOf(body: BlockAction): Click | undefined {
  const container = body.container as { channel_id?: unknown; message_ts?: unknown; thread_ts?: unknown };
  const channel = body.channel?.id ?? (typeof container.channel_id === 'string' ? container.channel_id : undefined);
  if (!body.user?.id || !channel) return undefined;
  const messageTs = typeof container.message_ts === 'string' ? container.message_ts : body.message?.ts;
  const threadTs =
    typeof container.thread_ts === 'string'
      ? container.thread_ts
      : typeof body.message?.thread_ts === 'string'
        ? (body.message.thread_ts as string)
        : undefined;
  return {
    user: body.user.id,
    channel,
    ...(threadTs ? { threadTs } : {}),
    ...(messageTs ? { messageTs } : {}),
    ...(body.trigger_id ? { triggerId: body.trigger_id } : {}),
    teamId: teamOfClicker(body),
  };
}

/** The request with this id, in any status, as the front end reads requests (camelCase); undefined when there is none. */
export async function findRequest(ctx: Pick<SlackContext, 'agent'>, actionId: number): Promise<Request | undefined> {
  const row = await ctx.agent.findRequest(actionId);
  return row && requestOf(row);
}

/** The stored request behind a paused call this process announced, as the front end reads requests; undefined when it is not at hand. */
export function storedRequest(ctx: Pick<SlackContext, 'agent'>, payload: Parameters<Agent['storedRequestOf']>[0]): Request | undefined {
  const row = ctx.agent.storedRequestOf(payload);
  return row && requestOf(row);
}

/**
 * Kysely's view of the Slack tables (migrations 003, 007, 009, 011, 012, 013 and 018), kept beside the code that uses it.
 * A type alias, not an interface: withTables() wants a string index, which interfaces lack.
 */
export type SlackTables = {
  slack_events: { event_id: string; received_at: Generated<Date> };
  slack_cards: {
    action_id: number;
    channel: string;
    ts: string;
    thread_ts: string | null;
    kind: CardKind;
    created_at: Generated<Date>;
    /** The state key (cardStateKey) the card was last seen to show. */
    drawn: string | null;
    drawn_at: Generated<Date>;
    settled: Generated<boolean>;
    repair_claimed_at: Date | null;
    copies: Generated<{ channel: string; ts: string; user?: string }[]>;
    /** Every member of the batch card this request is on, in order (migration 018); null for a card of its own. */
    batch: number[] | null;
  };
  slack_threads: {
    run_id: string;
    channel: string;
    thread_ts: string | null;
    team_id: string | null;
    requester: string | null;
    message_ts: string | null;
    created_at: Generated<Date>;
  };
  slack_card_repairs: { action_id: number; claimed_at: Generated<Date> };
  slack_thread_locks: { agent_id: string; thread_id: string; resource_id: string; run_id: string; locked_at: Generated<Date> };
  slack_result_repairs: { run_id: string; claimed_at: Generated<Date> };
  slack_notices: { action_id: number; notice: string; claimed_at: Generated<Date>; sent_at: Date | null };
  slack_home_viewers: { user_id: string; opened_at: Generated<Date>; waiting_after: number | null };
};

export type SlackDb = Kysely<DB & SlackTables>;

export function slackDb(db: Db): SlackDb {
  return db.withTables<SlackTables>() as unknown as SlackDb;
}

/**
 * An ephemeral reply only `user` sees: how refusals are answered, so the thread stays clean.
 * A click from the inbox is answered where it was made (Click.answerAt).
 */
export async function tellUser(ctx: SlackContext, at: ThreadTarget & Pick<Click, 'user' | 'answerAt'>, text: string): Promise<void> {
  if (at.answerAt === 'home' && ctx.home) return ctx.home.notice(at.user, text);
  const where = at.answerAt && at.answerAt !== 'home' ? { ...at.answerAt, user: at.user } : at;
  try {
    await ctx.client.chat.postEphemeral({
      channel: where.channel,
      user: where.user,
      text,
      ...(where.threadTs ? { thread_ts: where.threadTs } : {}),
    });
  } catch (error) {
    ctx.logger.warn({ err: error, user: where.user }, 'ephemeral reply could not be posted');
  }
}

