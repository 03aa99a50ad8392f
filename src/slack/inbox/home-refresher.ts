import type { Logger } from '../../logger.js';
import type { HomeTabs, SlackDb } from '../context.js';
import type { BlockAction, ButtonAction, RespondFn } from '@slack/bolt';
import { sql } from 'kysely';
import { homeView, HOME_FIT, inboxListModal, LIST_PAGE, type InboxListPage, parseInboxListValue, type InboxList } from './inbox-blocks.js';
import { isActionId } from '../../db/is-action-id.js';
import { actorOf, type SlackContext, personOf, type Person } from '../context.js';
import { outsideWorkspaceMessage } from '../../approvals/workspace.js';
import { approvalsList, emptyInbox, loadInbox, inboxItems, inboxRequestOf, rememberedItems } from './load-inbox.js';
import { inboxListPage } from '../../db/inbox-requests.js';

interface HomeRefresherOptions {
  /** Republishes one person's Home (with a notice on top when given). */
  publish: (user: string, notice?: string) => Promise<void>;
  /** Records that `user` opened their Home (kept across instances). */
  recordViewer: (user: string) => Promise<void>;
  /** Of these people, those who have a Home to keep current; 'everyone': all who do. */
  viewersAmong: (users: string[] | 'everyone') => Promise<string[]>;
  logger: Logger;
  /** Changes within this window are coalesced into one publish per person (default 1 s). */
  debounceMs?: number;
  /**
   * Least time between two views.publish calls of this process (default 650 ms, about 92 a
   * minute): Slack allows Tier 4 methods about 100 a minute per workspace.
   */
  minIntervalMs?: number;
  /**
   * Most people waiting for a background refresh (default 1000, about eleven minutes of
   * publishes at the default spacing). Past it the oldest waiting refresh is dropped (logged),
   * and that Home is drawn afresh when next opened; an open or a notice is never dropped.
   */
  maxWaiting?: number;
}

/** One person's next publish: a person waits in the queue once, however often they are asked for. */
interface Waiting {
  /** Opened or clicked on by the person (never dropped), rather than changed by someone else's work. */
  explicit: boolean;
  notice?: string;
  done: Array<() => void>;
}

const HOME_MAX_WAITING = 1000;

/**
 * Keeps Home tabs current without flooding Slack or letting one person crowd out another.
 *
 * Every publish goes through one queue of people, served one call at a time and spaced to stay
 * under views.publish's rate limit. A person is in the queue at most once: asking again while
 * they wait changes nothing but the notice (the newest one wins), since a publish draws the inbox
 * as it is when it goes out. People are served in the order they started waiting, and someone
 * asked for again after being served goes to the back, so a flood of opens by one person costs
 * everyone else at most one publish of theirs. Opening the Home (and a notice answering a
 * click) joins the queue at once; people whose inbox changed are collected for a quiet moment
 * first, and only those who have a Home (they opened it once; Slack shows none before) join.
 * Publishing runs after the work that changed something, never before a click's
 * acknowledgement, and costs nothing on the runtime's path.
 */
export class HomeRefresher implements HomeTabs {
  /** Insertion order is who has waited longest. */
  private readonly waiting = new Map<string, Waiting>();
  private readonly due = new Set<string>();
  private everyoneDue = false;
  private timer: NodeJS.Timeout | undefined;
  private resolving: Promise<void> | undefined;
  private pumping: Promise<void> | undefined;
  private lastPublishAt = Number.NEGATIVE_INFINITY;
  private dropped = 0;
  private stopped = false;
  private readonly debounceMs: number;
  private readonly minIntervalMs: number;
  private readonly maxWaiting: number;

  constructor(private readonly options: HomeRefresherOptions) {
    this.debounceMs = options.debounceMs ?? 1000;
    this.minIntervalMs = options.minIntervalMs ?? 650;
    this.maxWaiting = options.maxWaiting ?? HOME_MAX_WAITING;
  }

  /**
   * `user` opened their Home: it is published in its turn (resolves once it is), and kept current
   * from here on (on every instance). Opens while one is waiting join it.
   */
  async opened(user: string): Promise<void> {
    const joined = this.waiting.get(user)?.explicit === true;
    const published = this.enqueue(user, { explicit: true });
    // An open that joins a waiting one was recorded by that one.
    const recorded = joined
      ? undefined
      : this.options.recordViewer(user).catch((error: unknown) => this.options.logger.warn({ err: error, user }, 'Home viewer could not be recorded'));
    await Promise.all([published, recorded]);
  }

  /** These people's inboxes changed (with `everyone`: everyone's who may decide): republish each once, after the debounce. */
  refresh(users: Iterable<string>, everyone = false): void {
    if (this.stopped) return;
    for (const user of users) this.due.add(user);
    if (everyone) this.everyoneDue = true;
    if ((this.due.size === 0 && !this.everyoneDue) || this.timer || this.resolving) return;
    // The first change starts the window; later ones within it join the same publish.
    this.timer = setTimeout(() => void this.resolveDue(), this.debounceMs);
    this.timer.unref();
  }

  /** Publishes `user`'s Home in their turn, as they asked (the next page, say); resolves once it is published. */
  async republish(user: string): Promise<void> {
    await this.enqueue(user, { explicit: true });
  }

  /** Answers a click from the Home tab on the Home tab itself (a refusal, say), in the person's turn. */
  async notice(user: string, text: string): Promise<void> {
    await this.enqueue(user, { explicit: true, notice: text });
  }

  /** Publishes everything due now (tests, shutdown) and resolves when nothing waits. */
  async flushNow(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.resolveDue();
    while (this.pumping) await this.pumping;
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.due.clear();
    this.everyoneDue = false;
    for (const entry of this.waiting.values()) entry.done.forEach((resolve) => resolve());
    this.waiting.clear();
  }

  /** Puts `user` in the queue, or updates their place in it; resolves when their publish is done (or dropped). */
  private enqueue(user: string, request: { explicit: boolean; notice?: string }): Promise<void> {
    if (this.stopped) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const entry = this.waiting.get(user);
      if (entry) {
        entry.explicit ||= request.explicit;
        if (request.notice !== undefined) entry.notice = request.notice;
        entry.done.push(resolve);
        return;
      }
      if (this.waiting.size >= this.maxWaiting && !this.makeRoom(user, request.explicit)) return resolve();
      this.waiting.set(user, { explicit: request.explicit, ...(request.notice !== undefined ? { notice: request.notice } : {}), done: [resolve] });
      this.pump();
    });
  }

  /**
   * The queue is full: drops the longest-waiting background refresh to let `user` in. Returns
   * false (and `user`'s refresh is the one dropped) when only opens and notices wait and this is
   * a background refresh; an open or a notice is let in even then.
   */
  private makeRoom(user: string, explicit: boolean): boolean {
    let victim: string | undefined;
    for (const [waitingUser, entry] of this.waiting) {
      if (!entry.explicit) {
        victim = waitingUser;
        break;
      }
    }
    if (victim === undefined && explicit) return true;
    const droppedUser = victim ?? user;
    if (victim !== undefined) {
      this.waiting.get(victim)!.done.forEach((resolve) => resolve());
      this.waiting.delete(victim);
    }
    this.dropped += 1;
    // The first drop of a flood is logged at once, the total when the queue has drained.
    if (this.dropped === 1) {
      this.options.logger.warn({ user: droppedUser, maxWaiting: this.maxWaiting }, 'Home refresh dropped: too many people waiting; that Home is drawn afresh when next opened');
    }
    return victim !== undefined;
  }

  private pump(): void {
    if (this.pumping || this.stopped) return;
    this.pumping = this.serve().finally(() => {
      this.pumping = undefined;
      if (this.waiting.size > 0) this.pump();
    });
  }

  private async serve(): Promise<void> {
    while (this.waiting.size > 0 && !this.stopped) {
      // Waited out before choosing, so whoever asks meanwhile joins their place in the queue.
      const wait = this.lastPublishAt + this.minIntervalMs - Date.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait).unref());
      const next = this.waiting.entries().next();
      if (next.done || this.stopped) return;
      const [user, entry] = next.value;
      this.waiting.delete(user);
      this.lastPublishAt = Date.now();
      try {
        await this.options.publish(user, entry.notice);
      } catch (error) {
        this.options.logger.warn({ err: error, user }, 'Home tab could not be published');
      }
      entry.done.forEach((resolve) => resolve());
    }
    if (this.dropped > 1) this.options.logger.warn({ dropped: this.dropped, maxWaiting: this.maxWaiting }, 'Home refreshes dropped while too many people waited');
    this.dropped = 0;
  }

  /** Turns the people whose inbox changed into queued publishes for those of them who have a Home. */
  private async resolveDue(): Promise<void> {
    this.timer = undefined;
    if (this.resolving) return this.resolving;
    this.resolving = (async () => {
      while ((this.due.size > 0 || this.everyoneDue) && !this.stopped) {
        const asked = this.everyoneDue ? 'everyone' : [...this.due];
        this.due.clear();
        this.everyoneDue = false;
        let viewers: string[];
        try {
          viewers = await this.options.viewersAmong(asked);
        } catch (error) {
          this.options.logger.warn({ err: error }, 'Home viewers could not be read; Homes update when next opened');
          continue;
        }
        for (const user of viewers) void this.enqueue(user, { explicit: false });
      }
    })().finally(() => {
      this.resolving = undefined;
      // Someone whose inbox changed during the lookup is not left waiting for the next change.
      if (this.due.size > 0 || this.everyoneDue) this.refresh([]);
    });
    return this.resolving;
  }
}

/**
 * Draws `user`'s inbox, at the page of waiting requests they are on, and publishes it as their
 * Home tab, with `notice` on top when given. The event that opens a Home does not say whose team
 * the viewer is in: users.info does (cached), and someone outside the workspace gets a Home that
 * lists nothing and says why.
 */
export async function showHome(ctx: SlackContext, user: string, notice?: string): Promise<void> {
  const who = { user, teamId: await ctx.userTeams(user) };
  if (ctx.agent.isOutsider(actorOf(who))) {
    ctx.logger.info({ user, teamId: who.teamId }, 'Home of someone outside the workspace: nothing listed');
    await ctx.client.views.publish({ user_id: user, view: homeView({ ...emptyInbox, notice: outsideWorkspaceMessage }) });
    return;
  }
  const inbox = await loadInbox(ctx, who, HOME_FIT, await homePageOf(ctx.slackDb, user));
  await ctx.client.views.publish({ user_id: user, view: homeView({ ...inbox, ...(notice ? { notice } : {}) }) });
}

/**
 * "Next page" or "First page" in the inbox: on the Home tab the page is kept for the person (every
 * instance draws it from then on, until they open the Home again) and the Home republished; in
 * an /approvals answer the answer is replaced by that page. The button only names where the page
 * starts; what is on it is read for the clicker as any inbox is.
 */
export async function showInboxPage(ctx: SlackContext, body: BlockAction<ButtonAction>, action: ButtonAction, respond: RespondFn): Promise<void> {
  const user = body.user?.id;
  const page = parseInboxPage(action.value);
  if (!user || !page) return void ctx.logger.warn({ user, value: action.value }, 'inbox page click that names no page');
  if ((body.container as { type?: unknown }).type === 'view') {
    await setHomePage(ctx.slackDb, user, page.after);
    await ctx.home?.republish(user);
    return;
  }
  const answer = await approvalsList(ctx, personOf(body), page.after);
  await respond({ replace_original: true, response_type: 'ephemeral', text: answer.text, ...(answer.blocks ? { blocks: answer.blocks } : {}) });
}

/** The page a page button asks for: `{}` for the first, `{ after }` for the one after request `after`; undefined when the value is not one of ours. */
export function parseInboxPage(value: string | undefined): { after?: number } | undefined {
  if (value === 'first') return {};
  const m = /^after:([1-9]\d{0,9})$/.exec(value ?? '');
  const after = Number(m?.[1]);
  return m && isActionId(after) ? { after } : undefined;
}

/** Where a list button was clicked: the inbox (a modal opens) or the list's own modal (it turns the page). */
interface ListClick extends Person {
  value: string | undefined;
  triggerId?: string;
  /** Set when the click came from a modal: the one to draw the page in. */
  modalId?: string;
}

/** A click on a list button, or a Revoke in a list's modal (value: the page the modal shows). */
export function listClickOf(body: { user: { id: string; team_id?: string }; team?: { id?: string } | null; trigger_id?: string; view?: { id: string; type?: string } }, value: string | undefined): ListClick {
  return {
    ...personOf(body),
    value,
    ...(body.trigger_id ? { triggerId: body.trigger_id } : {}),
    ...(body.view?.type === 'modal' ? { modalId: body.view.id } : {}),
  };
}

/**
 * "Show all" under a list of the inbox, and Newer / Older in its modal: the page the button
 * names, of the clicker's own list, read for them as the inbox is (someone outside the
 * workspace is shown nothing), in a modal opened over the inbox or drawn in place.
 */
export async function showInboxList(ctx: SlackContext, click: ListClick): Promise<void> {
  const asked = parseInboxListValue(click.value);
  if (!asked) return void ctx.logger.warn({ user: click.user, value: click.value }, 'inbox list click that names no list');
  if (ctx.agent.isOutsider(actorOf(click))) return void ctx.logger.info({ user: click.user, teamId: click.teamId }, 'inbox list refused: not a member of this workspace');
  const view = inboxListModal(await listPage(ctx, click, asked.list, asked.offset));
  try {
    if (click.modalId) await ctx.client.views.update({ view_id: click.modalId, view });
    else if (click.triggerId) await ctx.client.views.open({ trigger_id: click.triggerId, view });
    else ctx.logger.warn({ user: click.user }, 'inbox list click without a trigger');
  } catch (error) {
    ctx.logger.warn({ err: error, user: click.user, list: asked.list }, 'inbox list could not be shown');
  }
}

/** One page of the person's list: their requests or decisions (newest first), or the remembered approvals they may revoke. */
async function listPage(ctx: SlackContext, who: Person, list: InboxList, offset: number): Promise<InboxListPage> {
  if (list === 'remembered') {
    const grants = await ctx.agent.listRememberedGrants(actorOf(who));
    return { list, offset, total: grants.length, items: rememberedItems(ctx, grants.slice(offset, offset + LIST_PAGE)) };
  }
  const page = await inboxListPage(ctx.slackDb, ctx.agent.id, who.user, list, offset, LIST_PAGE);
  const items = await inboxItems(ctx, page.rows.map(inboxRequestOf));
  return { list, offset, total: page.total, items: page.rows.map((r) => items.get(r.id)!) };
}

/** Viewers kept current for a request anyone may decide: the most recent this many. */
const EVERYONE_MAX = 1000;

/** `user` opened their Home tab (on this instance or any other): it shows the oldest waiting requests first again. */
export async function recordHomeViewer(db: SlackDb, user: string): Promise<void> {
  await sql`
    INSERT INTO slack_home_viewers (user_id) VALUES (${user})
    ON CONFLICT (user_id) DO UPDATE SET opened_at = now(), waiting_after = NULL
  `.execute(db);
}

/** The page of waiting requests `user`'s Home shows from now on: those after request `after` (undefined: the oldest). */
async function setHomePage(db: SlackDb, user: string, after: number | undefined): Promise<void> {
  await sql`
    INSERT INTO slack_home_viewers (user_id, waiting_after) VALUES (${user}, ${after ?? null})
    ON CONFLICT (user_id) DO UPDATE SET waiting_after = EXCLUDED.waiting_after
  `.execute(db);
}

/** Where `user`'s Home page of waiting requests starts (undefined: the oldest). */
async function homePageOf(db: SlackDb, user: string): Promise<number | undefined> {
  const row = await db.selectFrom('slack_home_viewers').select('waiting_after').where('user_id', '=', user).executeTakeFirst();
  return row?.waiting_after ?? undefined;
}

/** Of `users`, those who have opened their Home; 'everyone': the most recent viewers. */
export async function homeViewersAmong(db: SlackDb, users: readonly string[] | 'everyone'): Promise<string[]> {
  if (users !== 'everyone' && users.length === 0) return [];
  const rows =
    users === 'everyone'
      ? await db.selectFrom('slack_home_viewers').select('user_id').orderBy('opened_at', 'desc').limit(EVERYONE_MAX).execute()
      : await db.selectFrom('slack_home_viewers').select('user_id').where('user_id', 'in', [...new Set(users)]).execute();
  return rows.map((r) => r.user_id);
}
