import { request } from 'node:http';
import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { askUserTool } from '../../src/agent/ask-user.js';
import { findAction } from '../../src/db/pending-actions.js';
import { suspendedRunsRoute } from '../../src/http/suspended-runs-route.js';
import { silentLogger } from '../../src/logger.js';
import { ACTION_IDS, CALLBACK_IDS } from '../../src/slack/kit/action-ids.js';
import { describeOnOneBackend } from '../helpers/needs.js';
import { opsAgent } from '../helpers/ops-agent.js';
import { scriptedModel, type ScriptStep } from '../helpers/scripted-model.js';
import { cardActions, clickButton, freshTs, mention, SIGNING_SECRET, startBot, recordingDeleteTool, updatesOf, waitForCard, waitForEphemeral, waitForText, waitForUpdate, type Bot, slackHarness } from '../helpers/slack-bot.js';
import { appMentionEnvelope, blockActionsPayload, formBody, nowSeconds, sendSigned, signRequest, SLACK_IDS, urlVerificationBody, viewSubmissionPayload } from '../../src/simulator/index.js';

const CHANNEL = 'C0CHANNEL01';
const REQUESTER = 'U0REQUESTER';
const ALICE = 'U0ALICE';
const ADMIN_TOKEN = 'admin-token-for-the-listing';

/** Just past what PostgreSQL's `integer` (pending_actions.id) holds, and far past it. */
const JUST_OUT_OF_RANGE = 2_147_483_648;
const FAR_OUT_OF_RANGE = 999_999_999_999_999;

/** A POST with no Content-Type at all (fetch always adds one to a string body). */
function postWithoutContentType(url: string, body: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) } }, (res) => {
      res.resume();
      res.once('end', () => resolve(res.statusCode ?? 0));
    });
    req.once('error', reject);
    req.end(body);
  });
}

describeOnOneBackend('Slack requests the bot refuses on %s', (backend) => {
  const h = slackHarness(backend);

  async function boot(steps: ScriptStep[]) {
    const { deleteRecord, deleted } = recordingDeleteTool();
    const model = scriptedModel(steps);
    // The admin listing as main.ts mounts it: a custom route on the same server.
    let listing: ReturnType<typeof suspendedRunsRoute> | undefined;
    h.bot = await startBot({
      fake: h.fake,
      db: h.database.db,
      customRoutes: [{ path: '/agents/:agentId/suspended-runs', method: ['GET'], handler: (req, res) => void listing?.(req, res) }],
      makeAgent: opsAgent({ model, tools: { delete_record: deleteRecord, ask_user: askUserTool }, storage: h.database, memory: true }),
    });
    listing = suspendedRunsRoute({ agents: [h.bot.agent], adminToken: ADMIN_TOKEN, logger: silentLogger });
    return { b: h.bot, model, deleted };
  }

  const refusals = (b: Bot) => b.logs.filter((line) => /"msg":"Slack request refused"/.test(line));
  const slackWork = () => h.fake.calls.filter((c) => c.method !== 'auth.test');
  const eventsRecorded = async () => (await sql<{ n: number }>`SELECT count(*)::int AS n FROM slack_events`.execute(h.database.db)).rows[0]!.n;
  const mentionOf = (text: string) => appMentionEnvelope({ text: `<@${SLACK_IDS.botUserId}> ${text}`, user: REQUESTER, channel: CHANNEL, ts: freshTs() });

  it('refuses a request signed more than five minutes ahead, or without a usable timestamp, with 401; within five minutes either way it is taken', async () => {
    const { b, model } = await boot([{ text: 'never' }]);
    const envelope = mentionOf('run this later');
    const signed = (timestamp: number | string) => sendSigned(b.url, { secret: SIGNING_SECRET, body: envelope, contentType: 'json', timestamp });

    // A correctly signed request from the future: a captured copy of it would be replayable for as long.
    expect((await signed(nowSeconds() + 10 * 60)).status).toBe(401);
    expect((await signed(nowSeconds() + 330)).status).toBe(401);
    expect((await signed(nowSeconds() - 10 * 60)).status).toBe(401);
    for (const timestamp of ['soon', '', '1.7e9', `${nowSeconds()}, ${nowSeconds()}`]) expect((await signed(timestamp)).status).toBe(401);
    const rawBody = JSON.stringify(envelope);
    const { 'x-slack-request-timestamp': _, ...withoutTimestamp } = signRequest(SIGNING_SECRET, rawBody);
    expect((await fetch(b.url, { method: 'POST', headers: withoutTimestamp, body: rawBody })).status).toBe(401);

    await b.slack.idle();
    expect(slackWork()).toEqual([]);
    expect(await eventsRecorded()).toBe(0);
    expect(model.doStreamCalls).toHaveLength(0);
    // One warning per refusal, naming neither the signature nor anything from the body.
    const lines = refusals(b);
    expect(lines).toHaveLength(8);
    expect(lines.every((line) => /"level":40/.test(line))).toBe(true);
    expect(lines.join('')).not.toMatch(/run this later|v0=|e2e-signing-secret/);

    // Clocks disagree a little: four minutes either way is still Slack.
    const ahead = await sendSigned(b.url, { secret: SIGNING_SECRET, body: urlVerificationBody('ahead'), contentType: 'json', timestamp: nowSeconds() + 4 * 60 });
    expect([ahead.status, ahead.body]).toEqual([200, JSON.stringify({ challenge: 'ahead' })]);
    const behind = await sendSigned(b.url, { secret: SIGNING_SECRET, body: urlVerificationBody('behind'), contentType: 'json', timestamp: nowSeconds() - 4 * 60 });
    expect(behind.status).toBe(200);
    expect(refusals(b)).toHaveLength(8);
  });

  it('refuses a signed body that is neither JSON nor a form with 415, before anything runs; other routes are unaffected', async () => {
    const { b, model } = await boot([{ text: 'Hello over JSON with a charset.' }]);
    for (const contentType of ['text/plain', 'text/plain; charset=utf-8', 'multipart/form-data; boundary=x', 'application/json-patch+json', 'application/jsonx']) {
      const response = await sendSigned(b.url, { secret: SIGNING_SECRET, body: mentionOf('hello'), contentType: 'json', headers: { 'content-type': contentType } });
      expect(response.status, contentType).toBe(415);
    }
    const rawBody = JSON.stringify(mentionOf('hello'));
    const { 'content-type': _, ...withoutContentType } = signRequest(SIGNING_SECRET, rawBody);
    expect(await postWithoutContentType(b.url, rawBody, withoutContentType)).toBe(415);
    await b.slack.idle();
    expect(slackWork()).toEqual([]);
    expect(await eventsRecorded()).toBe(0);
    expect(model.doStreamCalls).toHaveLength(0);
    expect(refusals(b)).toHaveLength(6);

    // Parameters and the case of the media type do not matter.
    const thread = { channel: CHANNEL, threadTs: freshTs() };
    h.fake.seedMessage({ channel: CHANNEL, text: 'hello', user: REQUESTER, ts: thread.threadTs });
    const envelope = appMentionEnvelope({ text: `<@${SLACK_IDS.botUserId}> hello`, user: REQUESTER, channel: CHANNEL, ts: thread.threadTs });
    const json = await sendSigned(b.url, { secret: SIGNING_SECRET, body: envelope, contentType: 'json', headers: { 'content-type': 'Application/JSON; charset=utf-8' } });
    expect(json.status).toBe(200);
    await waitForText(h.fake, thread, 'Hello over JSON with a charset.');
    const challenge = await sendSigned(b.url, {
      secret: SIGNING_SECRET,
      body: formBody(urlVerificationBody('form-with-charset')),
      contentType: 'form',
      headers: { 'content-type': 'application/x-www-form-urlencoded; charset=UTF-8' },
    });
    expect([challenge.status, challenge.body]).toEqual([200, JSON.stringify({ challenge: 'form-with-charset' })]);

    expect((await fetch(new URL('/healthz', b.url))).status).toBe(200);
    const listing = await fetch(new URL('/agents/ops/suspended-runs', b.url), { headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'text/plain' } });
    expect(listing.status).toBe(200);
    expect(await listing.json()).toEqual({ runs: [] });
    expect(refusals(b)).toHaveLength(6);
  });

  it('an approval button naming a request id beyond the database’s integer range gets the tampered-button refusal', async () => {
    const { b, deleted } = await boot([{ toolCalls: [{ toolName: 'delete_record', args: { id: 'big-1' } }] }, { text: 'done' }]);
    const thread = await mention(b, { user: REQUESTER, channel: CHANNEL, text: 'delete big-1' });
    const card = await waitForCard(h.fake, thread, 'approval');
    const approve = (cardActions(card.blocks, 'approval')!.elements as Array<{ action_id: string; value: string }>).find((e) => e.action_id === ACTION_IDS.approve)!;
    const { f } = JSON.parse(approve.value) as { f: string };

    for (const [actionId, id] of [[ACTION_IDS.approve, FAR_OUT_OF_RANGE], [ACTION_IDS.decline, JUST_OUT_OF_RANGE]] as const) {
      await clickButton(b, card, ALICE, actionId, { value: JSON.stringify({ a: id, f }), blockId: `approval:${id}` });
    }
    await b.slack.idle();
    const ephemerals = h.fake.callsTo('chat.postEphemeral').map((c) => String(c.args.text));
    expect(ephemerals).toEqual([expect.stringContaining('does not belong to a request'), expect.stringContaining('does not belong to a request')]);
    expect(ephemerals.join('\n')).not.toContain('Something went wrong');
    expect(b.logs.filter((line) => /"level":50/.test(line))).toEqual([]);
    expect(updatesOf(h.fake, card)).toEqual([]);
    expect((await findAction(h.database.db, card.actionId))?.status).toBe('pending');

    // A decline modal submitted with such an id (it can only be forged) is ignored quietly too.
    const forged = await b.send.interaction(
      viewSubmissionPayload({ user: ALICE, callbackId: CALLBACK_IDS.declineModal, privateMetadata: JSON.stringify({ a: FAR_OUT_OF_RANGE, f }), stateValues: {} }),
    );
    expect(forged.status).toBe(200);
    await b.slack.idle();
    expect(b.logs.filter((line) => /"level":50/.test(line))).toEqual([]);
    expect(h.fake.callsTo('chat.postEphemeral')).toHaveLength(2);

    await clickButton(b, card, ALICE, ACTION_IDS.approve);
    await waitForUpdate(h.fake, card, 'Approved by');
    await waitForText(h.fake, thread, 'done');
    expect(deleted).toEqual([{ id: 'big-1' }]);
  });

  it('a question answer naming a request id beyond the integer range gets the tampered-button refusal', async () => {
    const { b } = await boot([
      { toolCalls: [{ toolName: 'ask_user', args: { question: 'Which region?', options: [{ label: 'eu' }, { label: 'us' }] } }] },
      { text: 'Using us.' },
    ]);
    const thread = await mention(b, { user: REQUESTER, channel: CHANNEL, text: 'set up the bucket' });
    const card = await waitForCard(h.fake, thread, 'question');
    const answer = (blockId: string) =>
      b.send.interaction(
        blockActionsPayload({
          user: REQUESTER,
          channel: card.channel,
          messageTs: card.ts,
          threadTs: card.threadTs,
          actionId: ACTION_IDS.questionAnswer,
          blockId,
          actionType: 'radio_buttons',
          selectedOption: { text: { type: 'plain_text', text: 'us' }, value: '1' },
        }),
      );
    expect((await answer(`question:${JUST_OUT_OF_RANGE}`)).status).toBe(200);
    await waitForEphemeral(h.fake, REQUESTER, 'does not belong to a request');
    await b.slack.idle();
    expect(b.logs.filter((line) => /"level":50/.test(line))).toEqual([]);

    expect((await answer(String(cardActions(card.blocks, 'question')!.block_id))).status).toBe(200);
    await waitForUpdate(h.fake, card, `Answered *us* by <@${REQUESTER}>`);
    await waitForText(h.fake, thread, 'Using us.');
  });
});
