import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { MockLanguageModelV3 } from 'ai/test';
import { expect, it } from 'vitest';
import { Agent } from '../../src/agent/agent.js';
import { askUserTool } from '../../src/agent/ask-user.js';
import { definePolicy } from '../../src/approvals/define-policy.js';
import { findAction, recordApprovalVote } from '../../src/db/pending-actions.js';
import { ACTION_IDS } from '../../src/slack/kit/action-ids.js';
import { recordThread } from '../../src/slack/card/cards.js';
import { describeOnOneBackend } from '../helpers/needs.js';
import { opsAgent } from '../helpers/ops-agent.js';
import { openSlowDelivery } from '../helpers/slow-delivery.js';
import { scriptedModel, type ScriptStep } from '../helpers/scripted-model.js';
import { buttonClick, clickButton, freshTs, mention, SIGNING_SECRET, startBot, recordingDeleteTool, textOf, updatesOf, waitForCard, waitForEphemeral, waitForText, waitForUpdate, type AgentDeps, type Bot, slackHarness } from '../helpers/slack-bot.js';
import { appMentionEnvelope, messageEnvelope, nowSeconds, sendSigned, SLACK_IDS, urlVerificationBody } from '../../src/simulator/index.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const CHANNEL = 'C0CHANNEL01';
const DM = 'D0DMCHAN001';
const REQUESTER = 'U0REQUESTER';
const ALICE = 'U0ALICE';

describeOnOneBackend('Slack front end under bad input and failures on %s', (backend) => {
  const h = slackHarness(backend);

  async function boot(steps: ScriptStep[], options: { ackFirstMaxHoldMs?: number } = {}) {
    const { deleteRecord, deleted } = recordingDeleteTool();
    const model = scriptedModel(steps);
    h.bot = await startBot({ fake: h.fake, db: h.database.db, ...options,
      makeAgent: opsAgent({ model, tools: { delete_record: deleteRecord, ask_user: askUserTool }, storage: h.database, memory: true }),
    });
    return { b: h.bot, model, deleted };
  }

  const deleteStep = (id: string): ScriptStep => ({ toolCalls: [{ toolName: 'delete_record', args: { id } }] });
  const logged = (b: Bot, pattern: RegExp) => b.logs.some((line) => pattern.test(line));
  const slackWork = () => h.fake.calls.filter((c) => c.method !== 'auth.test');

  it('answers url_verification and refuses bad signatures, stale timestamps, malformed and oversized bodies', async () => {
    const { b } = await boot([{ text: 'never' }]);
    const challenge = await b.send.event(urlVerificationBody('challenge-xyz'));
    expect(challenge.status).toBe(200);
    expect(challenge.body).toContain('challenge-xyz');

    const envelope = appMentionEnvelope({ text: `<@${SLACK_IDS.botUserId}> hi`, user: REQUESTER, channel: CHANNEL, ts: freshTs() });
    const forged = await sendSigned(b.url, { secret: 'not-the-secret', body: envelope, contentType: 'json' });
    expect(forged.status).toBe(401);
    const stale = await sendSigned(b.url, { secret: SIGNING_SECRET, body: envelope, contentType: 'json', timestamp: nowSeconds() - 10 * 60 });
    expect(stale.status).toBe(401);
    const unsigned = await fetch(b.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(envelope) });
    expect(unsigned.status).toBe(401);
    const malformed = await sendSigned(b.url, { secret: SIGNING_SECRET, body: '{"type":"event_callback",', contentType: 'json' });
    expect(malformed.status).toBe(400);
    const huge = await sendSigned(b.url, { secret: SIGNING_SECRET, body: JSON.stringify({ type: 'event_callback', pad: 'x'.repeat(2 * 1024 * 1024) }), contentType: 'json' });
    expect(huge.status).toBe(413);

    await b.slack.idle();
    expect(slackWork()).toEqual([]);
    const events = await sql<{ n: number }>`SELECT count(*)::int AS n FROM slack_events`.execute(h.database.db);
    expect(events.rows[0]!.n).toBe(0);
    expect(logged(b, /Failed to parse and verify/)).toBe(true);
    expect(logged(b, /Malformed request body/)).toBe(true);
  });

  it('a retried event_id starts one run; the bot ignores its own messages, other bots and edits', async () => {
    const { b, model } = await boot([deleteStep('dup'), { text: 'done' }]);
    const ts = freshTs();
    h.fake.seedMessage({ channel: CHANNEL, text: 'delete dup', user: REQUESTER, ts });
    const envelope = appMentionEnvelope({ text: `<@${SLACK_IDS.botUserId}> delete dup`, user: REQUESTER, channel: CHANNEL, ts });
    const first = await b.send.event(envelope);
    const retry = await b.send.event(envelope, { retryNum: 1, retryReason: 'http_timeout' });
    expect([first.status, retry.status]).toEqual([200, 200]);
    const thread = { channel: CHANNEL, threadTs: ts };
    await waitForCard(h.fake, thread, 'approval');

    const own = messageEnvelope({ channel: CHANNEL, ts: freshTs(), threadTs: ts, user: SLACK_IDS.botUserId, botId: SLACK_IDS.botId, text: 'cancel' });
    const otherBot = messageEnvelope({ channel: CHANNEL, ts: freshTs(), threadTs: ts, botId: 'B0OTHERBOT1', subtype: 'bot_message', text: 'cancel' });
    const edited = messageEnvelope({
      channel: CHANNEL,
      ts: freshTs(),
      subtype: 'message_changed',
      message: { ts: freshTs(), text: 'cancel', user: REQUESTER, threadTs: ts },
    });
    for (const e of [own, otherBot, edited]) expect((await b.send.event(e)).status).toBe(200);
    await b.slack.idle();
    expect(model.doStreamCalls).toHaveLength(1);
    expect(h.fake.callsTo('chat.postMessage')).toHaveLength(1);
    expect(logged(b, /duplicate event delivery ignored/)).toBe(true);
    const { runs } = await b.agent.listSuspendedRuns({ threadId: `${CHANNEL}:${ts}`, resourceId: SLACK_IDS.teamId });
    expect(runs).toHaveLength(1);
    // The thread is recorded with the claim of the first delivery, for that run only.
    const threads = await sql<{ run_id: string }>`SELECT run_id FROM slack_threads WHERE channel = ${CHANNEL} AND thread_ts = ${ts}`.execute(h.database.db);
    expect(threads.rows).toEqual([{ run_id: runs[0]!.runId }]);
  });

  it('editing a message that mentions the bot (Slack sends app_mention again, same ts, new event id) starts nothing', async () => {
    const { b, model } = await boot([{ text: 'First answer.' }, { text: 'Second answer.' }]);
    const thread = await mention(b, { user: REQUESTER, channel: CHANNEL, text: 'what is up' });
    await waitForText(h.fake, thread, 'First answer.');
    await b.slack.idle();
    const edit = appMentionEnvelope({
      text: `<@${SLACK_IDS.botUserId}> what is up now`,
      user: REQUESTER,
      channel: CHANNEL,
      ts: thread.ts,
      edited: { user: REQUESTER, ts: freshTs() },
    });
    expect((await b.send.event(edit)).status).toBe(200);
    await b.slack.idle();
    expect(model.doStreamCalls).toHaveLength(1);
    expect(h.fake.callsTo('chat.postMessage')).toHaveLength(1);
    expect(logged(b, /edited mention ignored/)).toBe(true);
  });

  it('unknown action ids and tampered button values get an ephemeral refusal and change nothing', async () => {
    const { b, deleted } = await boot([deleteStep('t1'), { text: 'done' }]);
    const thread = await mention(b, { user: REQUESTER, channel: CHANNEL, text: 'delete t1' });
    const card = await waitForCard(h.fake, thread, 'approval');

    await clickButton(b, card, ALICE, 'approval.self_destruct');
    await waitForEphemeral(h.fake, ALICE, 'not one I know');

    const tampered = JSON.stringify({ a: card.actionId, f: '0000000000000000' });
    await clickButton(b, card, ALICE, ACTION_IDS.approve, { value: tampered });
    await waitForEphemeral(h.fake, ALICE, 'does not match the pending request');

    const otherRequest = JSON.stringify({ a: card.actionId + 1000, f: '0000000000000000' });
    await clickButton(b, card, ALICE, ACTION_IDS.approve, { value: otherRequest });
    await waitForEphemeral(h.fake, ALICE, 'does not belong to a request');

    await clickButton(b, card, ALICE, ACTION_IDS.approve, { value: 'not json' });
    await b.slack.idle();
    expect(h.fake.callsTo('chat.postEphemeral')).toHaveLength(4);

    // The card's own value without its fingerprint, or with less of it than every card carries, binds to no arguments.
    const { f } = JSON.parse(String(buttonClick(card, ALICE, ACTION_IDS.approve).button?.value)) as { f: string };
    for (const value of [{ a: card.actionId }, { a: card.actionId, f: '' }, { a: card.actionId, f: f.slice(0, 4) }]) {
      const before = h.fake.callsTo('chat.postEphemeral').length;
      await clickButton(b, card, ALICE, ACTION_IDS.approve, { value: JSON.stringify(value) });
      await h.fake.waitFor(() => h.fake.callsTo('chat.postEphemeral').length > before);
      expect(String(h.fake.callsTo('chat.postEphemeral').at(-1)!.args.text)).toContain('does not belong to a request');
    }
    await b.slack.idle();
    expect(h.fake.callsTo('chat.postEphemeral')).toHaveLength(7);
    expect(updatesOf(h.fake, card)).toEqual([]);
    expect((await findAction(h.database.db, card.actionId))?.status).toBe('pending');
    expect(deleted).toEqual([]);
    expect(logged(b, /fingerprint does not match/)).toBe(true);
    expect(logged(b, /unknown interaction ignored/)).toBe(true);

    // The real button still works afterwards.
    await clickButton(b, card, ALICE, ACTION_IDS.approve);
    await waitForUpdate(h.fake, card, 'Approved by');
    await waitForText(h.fake, thread, 'done');
  });

  it('a click is acknowledged at once, but its work waits until requests already received are answered', async () => {
    const { b, deleted } = await boot([deleteStep('q1'), { text: 'done' }], { ackFirstMaxHoldMs: 60_000 });
    const thread = await mention(b, { user: REQUESTER, channel: CHANNEL, text: 'delete q1' });
    const card = await waitForCard(h.fake, thread, 'approval');
    await b.slack.idle();

    // Another delivery still on its way in: connected, headers sent, body not yet.
    const slow = await openSlowDelivery(b.url);
    // Connections are accepted in order: once a later one is answered, the slow one has been taken in.
    expect((await fetch(new URL('/healthz', b.url))).status).toBe(200);

    const click = await clickButton(b, card, ALICE, ACTION_IDS.approve);
    expect(click.status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(deleted).toEqual([]);
    expect(updatesOf(h.fake, card)).toEqual([]);

    // The slow request ends (here, its client gives up): the click's work starts.
    slow.destroy();
    await waitForUpdate(h.fake, card, 'Approved by');
    await waitForText(h.fake, thread, 'done');
    expect(deleted).toEqual([{ id: 'q1' }]);
  });

  it('a new mention while the run waits says so instead of starting another run; "cancel" stops it', async () => {
    const { b, model, deleted } = await boot([deleteStep('w1'), { text: 'should not run' }]);
    const thread = await mention(b, { user: REQUESTER, channel: CHANNEL, text: 'delete w1' });
    const card = await waitForCard(h.fake, thread, 'approval');
    await mention(b, { user: ALICE, channel: CHANNEL, threadTs: thread.threadTs, text: 'also delete w2' });
    await waitForText(h.fake, thread, 'still waiting for a decision');
    expect(model.doStreamCalls).toHaveLength(1);

    await b.send.event(messageEnvelope({ channel: CHANNEL, ts: freshTs(), threadTs: thread.threadTs, user: ALICE, text: 'cancel' }));
    await waitForEphemeral(h.fake, ALICE, 'Only the person who started this run can cancel');
    await b.send.event(messageEnvelope({ channel: CHANNEL, ts: freshTs(), threadTs: thread.threadTs, user: REQUESTER, text: 'Cancel' }));
    await waitForText(h.fake, thread, `Cancelled by <@${REQUESTER}>`);
    await waitForUpdate(h.fake, card, 'Cancelled');
    expect((await findAction(h.database.db, card.actionId))?.status).toBe('cancelled');
    const { runs } = await b.agent.listSuspendedRuns({ threadId: `${CHANNEL}:${thread.threadTs}` });
    expect(runs).toEqual([]);
    await clickButton(b, card, ALICE, ACTION_IDS.approve);
    await waitForEphemeral(h.fake, ALICE, 'cancelled');
    expect(model.doStreamCalls).toHaveLength(1);
    expect(deleted).toEqual([]);
  });

  it('Web API rate limits and 5xx are retried', async () => {
    const { b } = await boot([deleteStep('r1'), { text: 'done' }]);
    h.fake.failNext('chat.postMessage', { status: 429, retryAfter: 0 });
    h.fake.failNext('chat.postMessage', { status: 503 }, 2);
    const thread = await mention(b, { user: REQUESTER, channel: CHANNEL, text: 'delete r1' });
    const card = await waitForCard(h.fake, thread, 'approval');
    h.fake.failNext('chat.update', { status: 500 });
    await clickButton(b, card, ALICE, ACTION_IDS.approve);
    await waitForUpdate(h.fake, card, 'Approved by');
    await waitForText(h.fake, thread, 'done');
    expect(h.fake.callsTo('chat.postMessage').map((c) => c.status)).toEqual([429, 503, 503, 200, 200]);
    expect(h.fake.callsTo('chat.update').map((c) => c.status)).toEqual([500, 200]);
  });

  it('a card that cannot be posted falls back to a notice, and without even that the request is cancelled', async () => {
    const { b } = await boot([deleteStep('f1'), deleteStep('f2'), { text: 'The second request could not be shown.' }]);
    h.fake.failNext('chat.postMessage', { error: 'invalid_blocks' });
    const first = await mention(b, { user: REQUESTER, channel: CHANNEL, text: 'delete f1' });
    const notice = await waitForText(h.fake, first, 'could not post its card');
    const ref = /reference `([0-9a-f]{8})`/.exec(textOf(notice))?.[1];
    expect(ref).toBeDefined();
    expect(logged(b, new RegExp(`"ref":"${ref}"`))).toBe(true);

    h.fake.failNext('chat.postMessage', { error: 'invalid_blocks' }, 2);
    const second = await mention(b, { user: REQUESTER, channel: 'C0OTHER0001', text: 'delete f2' });
    await waitForText(h.fake, second, 'The second request could not be shown.');
    const cancelled = await sql<{ status: string }>`
      SELECT status FROM pending_actions WHERE args->>'id' = 'f2'
    `.execute(h.database.db);
    expect(cancelled.rows.map((r) => r.status)).toEqual(['cancelled']);
    expect(logged(b, /neither card nor notice could be posted/)).toBe(true);
  });

  it('an internal error becomes a short message with a reference that is in the logs', async () => {
    const { b } = await boot([
      () => {
        throw new Error('model exploded with secret xoxb-1234-abcd');
      },
    ]);
    const thread = await mention(b, { user: REQUESTER, channel: CHANNEL, text: 'do something' });
    const message = await waitForText(h.fake, thread, 'Something went wrong');
    const ref = /Reference: `([0-9a-f]{8})`/.exec(textOf(message))?.[1];
    expect(ref).toBeDefined();
    expect(textOf(message)).not.toContain('exploded');
    expect(logged(b, new RegExp(`"ref":"${ref}"`))).toBe(true);
    expect(b.logs.join('')).not.toContain('xoxb-1234-abcd');
  });

  it('the expiry sweep redraws the card as Expired and the run carries on', async () => {
    const { b, deleted } = await boot([deleteStep('e1'), { text: 'Nobody approved in time.' }]);
    const thread = await mention(b, { user: REQUESTER, channel: CHANNEL, text: 'delete e1' });
    const card = await waitForCard(h.fake, thread, 'approval');
    await sql`UPDATE pending_actions SET expires_at = now() - interval '1 second' WHERE id = ${card.actionId}`.execute(h.database.db);
    // The run is shown (card location stored) once its working reaction is gone; until then the
    // slack_cards insert holds a key-share lock on the request row, which the sweep's SKIP LOCKED skips.
    await h.fake.waitFor((c) => c.method === 'reactions.remove' && c.args.timestamp === thread.ts);
    expect(await b.slack.sweepExpired()).toBe(1);
    await waitForUpdate(h.fake, card, 'Expired');
    await waitForText(h.fake, thread, 'Nobody approved in time.');
    await clickButton(b, card, ALICE, ACTION_IDS.approve);
    await waitForEphemeral(h.fake, ALICE, 'expired');
    expect(deleted).toEqual([]);
  });

  it('a run whose instance stopped right after the approval goes on in its thread after the sweep; nothing runs twice', async () => {
    const { b, deleted } = await boot([deleteStep('c1'), { text: 'The deletion was interrupted.' }]);
    const thread = await mention(b, { user: REQUESTER, channel: CHANNEL, text: 'delete c1' });
    const card = await waitForCard(h.fake, thread, 'approval');
    await h.fake.waitFor((c) => c.method === 'reactions.remove' && c.args.timestamp === thread.ts);
    // What an instance that stopped right after its approving vote leaves behind: the run claimed, the grant spent.
    const action = (await findAction(h.database.db, card.actionId))!;
    expect((await recordApprovalVote(h.database.db, { actionId: action.id, actor: ALICE, policyVersion: action.policy_version!, grantTtlMs: 60_000 }))?.leased).toBeDefined();
    expect(await b.slack.sweepExpired()).toBe(0);
    await sql`UPDATE run_snapshots SET claimed_at = now() - interval '1 hour' WHERE run_id = ${action.root_run_id}`.execute(h.database.db);
    await b.slack.sweepExpired();
    await waitForText(h.fake, thread, 'The deletion was interrupted.');
    await b.slack.idle();
    expect(deleted).toEqual([]);
  });

  it('a run whose instance stopped while the model was still thinking is answered in its thread after the sweep, once', async () => {
    let release!: () => void;
    const stuck = new Promise<void>((r) => (release = r));
    const stoppedAnswer = scriptedModel([{ text: 'from the stopped instance' }]);
    const takeoverAnswer = scriptedModel([{ text: 'Record abc-123 is active.' }]);
    let first = true;
    const model = new MockLanguageModelV3({
      doStream: async (options) => {
        if (!first) return takeoverAnswer.doStream(options);
        // This model call is in flight when its instance "stops"; it only returns after the takeover.
        first = false;
        await stuck;
        return stoppedAnswer.doStream(options);
      },
    });
    h.bot = await startBot({
      fake: h.fake,
      db: h.database.db,
      // On record at once; a short lease so the "stopped" instance, once it wakes, finds out it was taken over.
      makeAgent: (deps: AgentDeps) =>
        new Agent({ id: 'ops', model, storage: h.database, policy: definePolicy({}), memory: true, recordRunAfterMs: 0, runLeaseMs: 200, ...deps }),
    });
    const b = h.bot;
    try {
      await stoppedWhileThinking(b, model, release);
    } finally {
      release();
    }
  });

  async function stoppedWhileThinking(b: Bot, model: MockLanguageModelV3, release: () => void) {
    const thread = await mention(b, { user: REQUESTER, channel: CHANNEL, text: 'status of abc-123?' });
    await h.fake.waitFor((c) => c.method === 'reactions.add' && c.args.timestamp === thread.ts);
    const recording = async () => (await b.agent.listSuspendedRuns({ threadId: `${CHANNEL}:${thread.threadTs}` })).runs;
    let runs = await recording();
    for (const until = Date.now() + 5_000; runs.length === 0 && Date.now() < until; ) runs = (await sleep(5), await recording());
    expect(runs.map((r) => ({ status: r.status, calls: r.toolCalls.length }))).toEqual([{ status: 'running', calls: 0 }]);

    // Meanwhile, a new mention and a "cancel" in the thread are told the run is at work; neither starts nor stops anything.
    await mention(b, { user: ALICE, channel: CHANNEL, threadTs: thread.threadTs, text: 'and def-456?' });
    await waitForText(h.fake, thread, 'still working on the earlier request here');
    await b.send.event(messageEnvelope({ channel: CHANNEL, ts: freshTs(), threadTs: thread.threadTs, user: REQUESTER, text: 'cancel' }));
    await waitForEphemeral(h.fake, REQUESTER, 'still working and waits on nobody');

    // What a stopped instance leaves behind: the run on record, its claim no longer renewed. (This
    // instance still renews it until the takeover, so the claim is aged until a sweep takes it.)
    const epoch = async () =>
      (await sql<{ e: number }>`SELECT claim_epoch AS e FROM run_snapshots WHERE run_id = ${runs[0]!.runId}`.execute(h.database.db)).rows[0]?.e;
    const before = await epoch();
    for (let i = 0; i < 50 && (await epoch()) === before; i++) {
      await sql`UPDATE run_snapshots SET claimed_at = now() - interval '1 hour' WHERE run_id = ${runs[0]!.runId}`.execute(h.database.db);
      await b.slack.sweepExpired();
    }
    await waitForText(h.fake, thread, 'Record abc-123 is active.');
    await h.fake.waitFor((c) => c.method === 'reactions.remove' && c.args.timestamp === thread.ts);
    // The "stopped" instance wakes up, long after its last renewal: its answer is not posted, and nothing says it failed.
    await sleep(250);
    release();
    await b.slack.idle();
    const posted = h.fake.calls.filter((c) => c.method === 'chat.postMessage' && c.args.thread_ts === thread.threadTs).map((c) => c.args.text);
    expect(posted).toEqual([expect.stringContaining('still working on the earlier request here'), 'Record abc-123 is active.']);
    expect(model.doStreamCalls).toHaveLength(2);
    expect(await b.agent.listSuspendedRuns({ threadId: `${CHANNEL}:${thread.threadTs}` })).toEqual({ runs: [] });
  }

  it('a card its instance stopped before posting is posted by the next sweep, once; the approval then works', async () => {
    const { b, deleted } = await boot([deleteStep('u1'), { text: 'Deleted u1.' }]);
    // What an instance leaves behind when it stops between writing the request and posting its card:
    // the run's thread on record, the request pending, no card, and its 👀 on the message.
    const ts = freshTs();
    h.fake.seedMessage({ channel: CHANNEL, text: `<@${SLACK_IDS.botUserId}> delete u1`, user: REQUESTER, ts });
    await b.slack.context.client.reactions.add({ channel: CHANNEL, timestamp: ts, name: 'eyes' });
    const runId = randomUUID();
    await recordThread(b.slack.context.slackDb, { run_id: runId, channel: CHANNEL, thread_ts: ts, team_id: SLACK_IDS.teamId, requester: REQUESTER, message_ts: ts });
    const paused = await b.agent.generate('delete u1', { runId, threadId: `${CHANNEL}:${ts}`, resourceId: SLACK_IDS.teamId, requester: REQUESTER });
    expect(paused.finishReason).toBe('suspended');
    const thread = { channel: CHANNEL, threadTs: ts };
    const postedInThread = () => h.fake.calls.filter((c) => c.method === 'chat.postMessage' && c.args.thread_ts === ts);

    // A request this young may still be having its card posted: the sweep leaves it alone.
    await b.slack.sweepExpired();
    await b.slack.idle();
    expect(postedInThread()).toEqual([]);

    await sql`UPDATE pending_actions SET created_at = now() - interval '1 hour' WHERE root_run_id = ${runId}`.execute(h.database.db);
    await b.slack.sweepExpired();
    const card = await waitForCard(h.fake, thread, 'approval');
    await h.fake.waitFor((c) => c.method === 'reactions.remove' && c.args.timestamp === ts && c.ok);
    // LeasedRun once: later sweeps (any instance's) post it no second time.
    await b.slack.sweepExpired();
    await b.slack.idle();
    expect(postedInThread()).toHaveLength(1);

    await clickButton(b, card, ALICE, ACTION_IDS.approve);
    await waitForUpdate(h.fake, card, `Approved by <@${ALICE}>`);
    await waitForText(h.fake, thread, 'Deleted u1.');
    expect(deleted).toEqual([{ id: 'u1' }]);
  });

  it('a long answer is split into several messages, each within Slack limits', async () => {
    const long = Array.from({ length: 40 }, (_, i) => `## Part ${i}\n${'All **good** <!here> & fine. '.repeat(25)}`).join('\n\n');
    const { b } = await boot([{ text: long }]);
    const thread = await mention(b, { user: REQUESTER, channel: CHANNEL, text: 'write a lot' });
    await waitForText(h.fake, thread, 'Part 39');
    await b.slack.idle();
    const posts = h.fake.callsTo('chat.postMessage').filter((c) => c.args.thread_ts === thread.threadTs);
    expect(posts.length).toBeGreaterThan(1);
    expect(posts.every((c) => c.ok)).toBe(true);
    expect(posts.map(textOf).join('\n')).toContain('Part 0');
  });

  it('a DM starts a run and is answered in the DM; thread chatter without a run is ignored', async () => {
    const { b } = await boot([{ text: 'Hello from the DM.' }]);
    await b.send.event(messageEnvelope({ channel: DM, ts: freshTs(), user: REQUESTER, text: 'hi there' }));
    const answer = await waitForText(h.fake, { channel: DM }, 'Hello from the DM.');
    expect(answer.args.thread_ts).toBeUndefined();

    await b.send.event(messageEnvelope({ channel: CHANNEL, ts: freshTs(), threadTs: freshTs(), user: ALICE, text: 'just chatting' }));
    await b.slack.idle();
    expect(h.fake.calls.filter((c) => c.method === 'chat.postMessage' && c.args.channel === CHANNEL)).toEqual([]);
  });

  it('in a DM, a reply in a thread under the bot\'s question answers it, and starts no second run', async () => {
    const { b, model } = await boot([{ toolCalls: [{ toolName: 'ask_user', args: { question: 'Which region?' } }] }, { text: 'Using eu-west-1.' }]);
    await b.send.event(messageEnvelope({ channel: DM, ts: freshTs(), user: REQUESTER, text: 'set up the bucket' }));
    const question = await waitForText(h.fake, { channel: DM }, 'Which region?');
    expect(question.args.thread_ts).toBeUndefined();
    const questionTs = question.response!.ts as string;
    await b.send.event(
      messageEnvelope({ channel: DM, ts: freshTs(), threadTs: questionTs, parentUserId: SLACK_IDS.botUserId, user: REQUESTER, text: 'eu-west-1' }),
    );
    await waitForText(h.fake, { channel: DM }, 'Using eu-west-1.');
    await b.slack.idle();
    expect(model.doStreamCalls).toHaveLength(2);
    expect(h.fake.callsTo('chat.update').map(textOf).join('\n')).toContain('eu-west-1');
  });
});
