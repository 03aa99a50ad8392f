/**
 * Edit on a batch card: the edited call stays on its batch card. The batch is redrawn whole, the
 * edited call's line says what changed, with the new request's buttons, and Approve all then
 * decides the edited request; the membership is stored with the new request, so a redraw after a
 * restart and the sweep's repair draw the batch, not a card of one call.
 */
import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { Agent } from '../../src/agent/agent.js';
import { definePolicy } from '../../src/approvals/define-policy.js';
import { ACTION_IDS, CALLBACK_IDS } from '../../src/slack/kit/action-ids.js';
import { viewSubmissionPayload, type RecordedCall } from '../../src/simulator/index.js';
import { eventually } from '../helpers/mcp.js';
import { describeOnOneBackend, twoConnections } from '../helpers/needs.js';
import { recordingRefundTool } from '../helpers/recording-refund-tool.js';
import { scriptedModel } from '../helpers/scripted-model.js';
import { blocksOf, buttonClick, inThread, mention, slackHarness, startBot, textOf, updatesOf, waitForText, type Bot, type PostedCard } from '../helpers/slack-bot.js';
import { BOB, CAROL, CHANNEL, DAVE, REQUESTER } from '../helpers/test-workspace.js';

type Block = Record<string, any>;

describeOnOneBackend('Slack: edit on a batch card, on %s', (backend) => {
  const h = slackHarness(backend);

  async function boot(options: { cardRepairAfterMs?: number } = {}) {
    const { issueRefund, refunds } = recordingRefundTool();
    // By the prompt, not by turn: a restarted process's model must pick up where the run is.
    const model = scriptedModel([
      (call) =>
        call.prompt.some((m) => m.role === 'tool')
          ? { text: 'Both refunds done.' }
          : {
              toolCalls: [
                { toolName: 'issue_refund', args: { orderId: '1042', amountCents: 2500 } },
                { toolName: 'issue_refund', args: { orderId: '1043', amountCents: 4000 } },
              ],
            },
    ]);
    h.bot = await startBot({
      fake: h.fake,
      db: h.database.db,
      cardRepairAfterMs: options.cardRepairAfterMs ?? 60_000,
      makeAgent: (deps) =>
        new Agent({
          id: 'ops',
          instructions: 'test',
          model,
          tools: { issue_refund: issueRefund },
          storage: h.database,
          policy: definePolicy({ tools: { issue_refund: { requireApproval: true, approvers: [BOB, CAROL, DAVE], quorum: 2 } } }),
          ...deps,
        }),
    });
    return { b: h.bot, refunds };
  }

  const isBatch = (c: RecordedCall) => textOf(c).includes('actions need approval');
  /** The batch message as last drawn. */
  const latest = (card: PostedCard): RecordedCall => updatesOf(h.fake, card).at(-1) ?? card.call;
  const actionBlocks = (call: RecordedCall) => blocksOf(call).filter((x) => x.type === 'actions');
  const memberIds = (call: RecordedCall) => actionBlocks(call).flatMap((x) => (/^approval:\d+$/.test(String(x.block_id)) ? [Number(String(x.block_id).split(':')[1])] : []));

  async function click(b: Bot, card: PostedCard, user: string, blockId: string, actionId: string) {
    const block = blocksOf(latest(card)).find((x) => x.block_id === blockId);
    const button = (block?.elements as Block[] | undefined)?.find((e) => e.action_id === actionId);
    expect(button, `${actionId} in ${blockId}`).toBeDefined();
    const response = await b.send.interaction(buttonClick(card, user, actionId, { blockId, value: button!.value }).payload);
    expect(response.status).toBe(200);
  }

  /** A run whose one step asks for two refunds: its batch card as posted, and the two requests on it. */
  /** Carol submits the Edit modal with the amount lowered to 2000, and the card shows her edit. */
  async function submitEditTo2000(b: Bot, card: PostedCard, privateMetadata: string) {
    const submitted = await b.send.interaction(
      viewSubmissionPayload({
        user: CAROL,
        callbackId: CALLBACK_IDS.editModal,
        privateMetadata,
        stateValues: { f0: { value: { type: 'plain_text_input', value: '1042' } }, f1: { value: { type: 'number_input', value: '2000' } } },
      }),
    );
    expect(submitted.status).toBe(200);
    await h.fake.waitFor((c) => c.method === 'chat.update' && c.args.ts === card.ts && textOf(c).includes(`Edited by <@${CAROL}>`));
    await b.slack.idle();
  }

  async function batchOfTwo() {
    const { b } = await boot();
    const thread = await mention(b, { user: REQUESTER, channel: CHANNEL, text: 'refund 1042 and 1043' });
    const posted = await h.fake.waitFor((c) => c.method === 'chat.postMessage' && c.ok && inThread(c, CHANNEL, thread.threadTs) && isBatch(c));
    const card: PostedCard = { call: posted, actionId: Number.NaN, ts: String(posted.response?.ts), channel: CHANNEL, threadTs: thread.threadTs, blocks: blocksOf(posted) };
    await b.slack.idle();
    const [first, second] = memberIds(posted);
    return { b, thread, posted, card, first: first!, second: second! };
  }

  const batchRows = async () =>
    (await sql<{ action_id: number; batch: number[] | null; settled: boolean }>`SELECT action_id, batch, settled FROM slack_cards ORDER BY action_id`.execute(h.database.db)).rows;

  it('the edited call stays on the batch card with its change and its new buttons, also after a restart and the sweep’s repair; Approve all decides the edited request', async () => {
    const { b, thread, posted, card, first, second } = await batchOfTwo();
    // Each call of the batch offers Edit, as a single card does.
    expect(actionBlocks(posted).find((x) => x.block_id === `approval:${first}`)!.elements.map((e: Block) => e.action_id)).toEqual([ACTION_IDS.approve, ACTION_IDS.edit, ACTION_IDS.decline]);

    await click(b, card, CAROL, `approval:${first}`, ACTION_IDS.edit);
    const opened = await h.fake.waitFor('views.open');
    const view = opened.args.view as { private_metadata: string; blocks: Block[] };
    expect(view.blocks.filter((x) => x.type === 'input').map((x) => x.element.initial_value)).toEqual(['1042', '2500', undefined]);
    await submitEditTo2000(b, card, view.private_metadata);

    const edited = (await b.agent.findRequest(first!))!;
    expect(edited.status).toBe('edited');
    const replacement = (await b.agent.latestApprovalId(edited.run_id, edited.tool_call_id))!;
    expect(replacement).toBeGreaterThan(second!);
    const expectBatchWithEdit = (call: RecordedCall) => {
      const text = textOf(call);
      expect(text).toContain('2 actions need approval');
      expect(text).toContain(`Edited by <@${CAROL}>: Amount $25.00 → $20.00`);
      expect(text).toContain(`Pending, 1 of 2 approvals: <@${CAROL}>`);
      expect(text).toContain('Waiting for 2 of 2 decisions');
      expect(actionBlocks(call).map((x) => x.block_id)).toEqual([`approval:${replacement}`, `approval:${second}`, `batch:${replacement}`]);
      expect(actionBlocks(call)[0]!.elements.map((e: Block) => e.action_id)).toEqual([ACTION_IDS.approve, ACTION_IDS.edit, ACTION_IDS.decline]);
      expect(JSON.parse(actionBlocks(call)[0]!.elements[0].value)).toMatchObject({ a: replacement });
      const all = actionBlocks(call)[2]!.elements.find((e: Block) => e.action_id === ACTION_IDS.batchApproveAll);
      expect((JSON.parse(all.value) as { m: Array<[number, string]> }).m.map(([id]) => id)).toEqual([replacement, second]);
    };
    expectBatchWithEdit(latest(card));
    // Nothing else was posted: no card of one call over or beside the batch.
    const cards = h.fake.calls.filter((c) => c.method === 'chat.postMessage' && c.ok && inThread(c, CHANNEL, thread.threadTs) && blocksOf(c).some((x) => String(x.block_id).startsWith('approval:')));
    expect(cards).toEqual([posted]);
    // The membership went with the new request, in every member's row (the edited one's too, settled).
    expect((await batchRows()).filter((r) => [first, second, replacement].includes(r.action_id))).toEqual([
      { action_id: first, batch: [replacement, second], settled: true },
      { action_id: second, batch: [replacement, second], settled: false },
      { action_id: replacement, batch: [replacement, second], settled: false },
    ]);

    // A new process, with the card out of date (its redraw lost): the sweep repairs it as the batch.
    await h.bot!.stop();
    await sql`UPDATE slack_cards SET drawn = 'lost' WHERE action_id = ${replacement}`.execute(h.database.db);
    const before = updatesOf(h.fake, card).length;
    const again = await boot({ cardRepairAfterMs: 0 });
    await again.b.slack.sweepExpired();
    await again.b.slack.idle();
    expect(updatesOf(h.fake, card).length).toBe(before + 1);
    expectBatchWithEdit(latest(card));

    // Approve all by another approver decides the edited request (and the other call), as they are now.
    await click(again.b, card, DAVE, `batch:${replacement}`, ACTION_IDS.batchApproveAll);
    await h.fake.waitFor((c) => c.method === 'chat.update' && c.args.ts === card.ts && textOf(c).includes(`Approved by <@${CAROL}> and <@${DAVE}>`));
    await again.b.slack.idle();
    expect((await again.b.agent.findRequest(replacement))!.status).toBe('approved');
    expect((await again.b.agent.findRequest(second!))!).toMatchObject({ status: 'pending', approvals: [expect.objectContaining({ userId: DAVE })] });
    expect(again.refunds).toEqual([]);

    await click(again.b, card, BOB, `batch:${replacement}`, ACTION_IDS.batchApproveAll);
    await waitForText(h.fake, thread, 'Both refunds done.');
    await again.b.slack.idle();
    expect(again.refunds).toEqual(expect.arrayContaining([{ orderId: '1042', amountCents: 2000 }, { orderId: '1043', amountCents: 4000 }]));
    expect(again.refunds).toHaveLength(2);
    const final = textOf(latest(card));
    expect(final).toContain('All decided: the run continues');
    expect(final).toContain(`Edited by <@${CAROL}>: Amount $25.00 → $20.00`);
    expect(actionBlocks(latest(card))).toEqual([]);
  });

  it('a redraw that read the batch before an edit draws it as it is after: the edited call with its new buttons, Approve all on the new request', async () => {
    const { b, card, first, second } = await batchOfTwo();
    await click(b, card, CAROL, `approval:${first}`, ACTION_IDS.edit);
    const view = (await h.fake.waitFor('views.open')).args.view as { private_metadata: string };
    await submitEditTo2000(b, card, view.private_metadata);
    const edited = (await b.agent.findRequest(first))!;
    const replacement = (await b.agent.latestApprovalId(edited.run_id, edited.tool_call_id))!;

    // A change to the other call whose redraw read the batch before the edit (a vote on it made at
    // the same moment, say) gets its turn only now, with the members it read.
    await sql`UPDATE slack_cards SET drawn = NULL WHERE action_id = ${second}`.execute(h.database.db);
    await b.slack.context.batches.redraw(b.slack.context, [first, second], edited.run_id);
    const call = latest(card);
    expect(textOf(call)).toContain(`Edited by <@${CAROL}>: Amount $25.00 → $20.00`);
    expect(actionBlocks(call).map((x) => x.block_id)).toEqual([`approval:${replacement}`, `approval:${second}`, `batch:${replacement}`]);
  });

  it('two calls of one batch edited at once: each takes its own place, neither undoes the other', async () => {
    const { b, card, first, second } = await batchOfTwo();

    const views: Array<{ private_metadata: string }> = [];
    for (const [user, id] of [[CAROL, first], [DAVE, second]] as const) {
      const before = h.fake.callsTo('views.open').length;
      await click(b, card, user, `approval:${id}`, ACTION_IDS.edit);
      await h.fake.waitFor((c) => c.method === 'views.open' && h.fake.callsTo('views.open').length > before);
      views.push(h.fake.callsTo('views.open').at(-1)!.args.view as { private_metadata: string });
    }
    const submit = (user: string, meta: string, orderId: string, amount: string) =>
      b.send.interaction(
        viewSubmissionPayload({
          user,
          callbackId: CALLBACK_IDS.editModal,
          privateMetadata: meta,
          stateValues: { f0: { value: { type: 'plain_text_input', value: orderId } }, f1: { value: { type: 'number_input', value: amount } } },
        }),
      );
    const responses = await Promise.all([submit(CAROL, views[0]!.private_metadata, '1042', '2000'), submit(DAVE, views[1]!.private_metadata, '1043', '3000')]);
    expect(responses.map((r) => r.status)).toEqual([200, 200]);
    await b.slack.idle();

    const ids = [first!, second!];
    const replacements: number[] = [];
    for (const id of ids) {
      const row = (await b.agent.findRequest(id))!;
      replacements.push((await b.agent.latestApprovalId(row.run_id, row.tool_call_id))!);
    }
    const mine = new Set([...ids, ...replacements]);
    const rows = (await batchRows()).filter((r) => mine.has(r.action_id));
    expect(rows).toHaveLength(4);
    expect(rows.map((r) => r.batch)).toEqual(rows.map(() => replacements));
    const text = textOf(latest(card));
    expect(text).toContain(`Edited by <@${CAROL}>: Amount $25.00 → $20.00`);
    expect(text).toContain(`Edited by <@${DAVE}>: Amount $40.00 → $30.00`);
    expect(actionBlocks(latest(card)).map((x) => x.block_id)).toEqual([...replacements.map((id) => `approval:${id}`), `batch:${replacements[0]}`]);
  });

  // A card row the other edit inserted is one the carry did not lock: PostgreSQL can end the
  // carry to break a deadlock. Staged here with a second connection that holds the second member's
  // row, waits until the carry waits on it, then asks for the first's, which the carry holds.
  it('an edit whose card move PostgreSQL ends to break a deadlock is moved again: the edited call keeps its place on the batch', twoConnections(backend), async () => {
    const { b, card, first, second } = await batchOfTwo();
    await click(b, card, CAROL, `approval:${first}`, ACTION_IDS.edit);
    const view = (await h.fake.waitFor('views.open')).args.view as { private_metadata: string };

    const other = await h.database.reopen();
    let carryWaits!: () => void;
    const waiting = new Promise<void>((resolve) => (carryWaits = resolve));
    try {
      let holding!: (pid: number) => void;
      const held = new Promise<number>((resolve) => (holding = resolve));
      const race = other.db.connection().execute(async (conn) => {
        await sql`BEGIN`.execute(conn);
        // This side looks for a deadlock only after 30 s: the carry's side (1 s) finds it first and is the one ended.
        await sql`SET LOCAL deadlock_timeout = '30s'`.execute(conn);
        await sql`SELECT action_id FROM slack_cards WHERE action_id = ${second} FOR UPDATE`.execute(conn);
        holding((await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.execute(conn)).rows[0]!.pid);
        await waiting;
        await sql`SELECT action_id FROM slack_cards WHERE action_id = ${first} FOR UPDATE`.execute(conn);
        await sql`COMMIT`.execute(conn);
      });
      const pid = await held;
      const edited = submitEditTo2000(b, card, view.private_metadata);
      // The carry holds the first member's row and waits for the second's.
      await eventually(async () => {
        const blocked = await sql<{ pid: number }>`SELECT pid FROM pg_stat_activity WHERE ${pid}::integer = ANY(pg_blocking_pids(pid))`.execute(h.database.db);
        expect(blocked.rows).not.toHaveLength(0);
      });
      carryWaits();
      await Promise.all([race, edited]);
    } finally {
      carryWaits();
      await other.close();
    }
    const row = (await b.agent.findRequest(first))!;
    const replacement = (await b.agent.latestApprovalId(row.run_id, row.tool_call_id))!;
    expect(replacement).not.toBe(first);
    const rows = (await batchRows()).filter((r) => [first, second, replacement].includes(r.action_id));
    expect(rows).toEqual([
      { action_id: first, batch: [replacement, second], settled: true },
      { action_id: second, batch: [replacement, second], settled: false },
      { action_id: replacement, batch: [replacement, second], settled: false },
    ]);
  });
});
