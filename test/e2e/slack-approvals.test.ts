import { sql } from 'kysely';
import { expect, it, vi } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../src/agent/agent.js';
import { createTool } from '../../src/agent/tool.js';
import { definePolicy } from '../../src/approvals/define-policy.js';
import type { PolicyInput } from '../../src/approvals/policy-schema.js';
import { ACTION_IDS, CALLBACK_IDS } from '../../src/slack/kit/action-ids.js';
import { describeOnOneBackend } from '../helpers/needs.js';
import { lastToolResults, scriptedModel, type ScriptStep } from '../helpers/scripted-model.js';
import { blocksOf, cardActions, clickButton, mention, startBot, recordingDeleteTool, textOf, updatesOf, waitForCard, waitForEphemeral, waitForText, waitForUpdate, type AgentDeps, slackHarness } from '../helpers/slack-bot.js';
import { SLACK_IDS, viewSubmissionPayload } from '../../src/simulator/index.js';
import { CHANNEL, REQUESTER, ALICE, BOB, CAROL, MALLORY } from '../helpers/test-workspace.js';

function recordTools() {
  const { deleteRecord, deleted } = recordingDeleteTool();
  const refunds: unknown[] = [];
  const issueRefund = createTool({
    id: 'issue_refund',
    description: 'Refund an order',
    inputSchema: z.object({ orderId: z.string(), amountCents: z.number() }),
    execute: async (input: { orderId: string; amountCents: number }) => {
      refunds.push(input);
      return { refunded: input.amountCents };
    },
  });
  return { deleteRecord, issueRefund, deleted, refunds };
}

describeOnOneBackend('Slack approvals end to end on %s', (backend) => {
  const h = slackHarness(backend);

  function opsAgent(deps: AgentDeps, steps: ScriptStep[], policy: PolicyInput = {}, extra: Partial<ConstructorParameters<typeof Agent>[0]> = {}) {
    const tools = recordTools();
    const model = scriptedModel(steps);
    const agent = new Agent({
      id: 'ops',
      instructions: 'test',
      model,
      tools: { delete_record: tools.deleteRecord },
      storage: h.database,
      policy: definePolicy(policy),
      ...deps,
      ...extra,
    });
    return { agent, model, tools };
  }

  async function boot(make: (deps: AgentDeps) => Agent, options: { workingReactionDelayMs?: number } = {}) {
    h.bot = await startBot({ fake: h.fake, db: h.database.db, makeAgent: make, ...options });
    return h.bot;
  }

  it('the working reaction shows only on work that takes longer than its delay, and goes when the card is up', async () => {
    let lookups = 0;
    const lookup = createTool({
      id: 'lookup_record',
      description: 'Look a record up (slowly)',
      inputSchema: z.object({ id: z.string() }),
      execute: async (input: { id: string }) => {
        lookups += 1;
        // Slow: still working once the delay has passed, until the 👀 is on its message.
        if (input.id === 'slow') await h.fake.waitFor((c) => c.method === 'reactions.add' && c.args.name === 'eyes');
        return { found: input.id };
      },
    });
    const b = await boot(
      (deps) =>
        opsAgent(
          deps,
          [
            { toolCalls: [{ toolName: 'lookup_record', args: { id: 'fast' } }] },
            { toolCalls: [{ toolName: 'delete_record', args: { id: 'fast' } }] },
            { toolCalls: [{ toolName: 'lookup_record', args: { id: 'slow' } }] },
            { toolCalls: [{ toolName: 'delete_record', args: { id: 'slow' } }] },
          ],
          {},
          { tools: { lookup_record: lookup, delete_record: recordingDeleteTool().deleteRecord } },
        ).agent,
      // Far above what a scripted run takes even on a loaded machine.
      { workingReactionDelayMs: 600 },
    );
    const reactionsOn = (ts: string) => h.fake.calls.filter((c) => c.method.startsWith('reactions.') && c.args.timestamp === ts).map((c) => c.method);

    // Done well within the delay: the card is the feedback, no reaction comes and goes.
    const fast = await mention(b, { user: REQUESTER, channel: CHANNEL, text: 'delete fast' });
    await waitForCard(h.fake, fast, 'approval');
    await b.slack.idle();

    // Still working after the delay: 👀 on the mention until the card is posted.
    const slow = await mention(b, { user: REQUESTER, channel: CHANNEL, text: 'delete slow' });
    const added = await h.fake.waitFor((c) => c.method === 'reactions.add' && c.args.timestamp === slow.ts && c.args.name === 'eyes');
    const card = await waitForCard(h.fake, slow, 'approval');
    await b.slack.idle();
    expect(h.fake.calls.indexOf(added)).toBeLessThan(h.fake.calls.indexOf(card.call));
    expect(reactionsOn(slow.ts)).toEqual(['reactions.add', 'reactions.remove']);
    // The fast mention's delay ran out before the slow one's, which was made after it: none came for it.
    expect(reactionsOn(fast.ts)).toEqual([]);
    expect(lookups).toBe(2);
  });

  it('mention → approval card → another user approves → the tool runs once → the answer is in the thread', async () => {
    let made!: ReturnType<typeof opsAgent>;
    const b = await boot((deps) => {
      made = opsAgent(deps, [
        { text: 'Deleting abc <!channel>.', toolCalls: [{ toolName: 'delete_record', args: { id: 'abc <!here>' } }] },
        { text: 'Deleted **abc**. <!channel>' },
      ]);
      return made.agent;
    });
    const thread = await mention(b, { user: REQUESTER, channel: CHANNEL, text: 'please delete abc' });
    await h.fake.waitFor((c) => c.method === 'reactions.add' && c.args.timestamp === thread.ts && c.args.name === 'eyes');

    const card = await waitForCard(h.fake, thread, 'approval');
    const text = textOf(card.call);
    expect(text).toContain('Approval needed: Delete record');
    expect(card.blocks[0]).toEqual({ type: 'header', text: { type: 'plain_text', text: 'Delete record' } });
    expect(text).toContain('*Tool:* `delete_record`');
    expect(text).toContain(`<@${REQUESTER}>`);
    expect(text).toContain('&lt;!here&gt;');
    expect(text).toMatch(/Fingerprint `[0-9a-f]{12}`/);
    const buttons = card.blocks.find((b) => b.type === 'actions')!.elements as Array<Record<string, unknown>>;
    expect(buttons.map((e) => [e.action_id, e.style])).toEqual([
      [ACTION_IDS.approve, 'primary'],
      [ACTION_IDS.edit, undefined],
      [ACTION_IDS.decline, 'danger'],
      [ACTION_IDS.showArguments, undefined],
    ]);
    // Text the model wrote before the tool call comes first, escaped.
    const intro = await waitForText(h.fake, thread, 'Deleting abc');
    expect(h.fake.calls.indexOf(intro)).toBeLessThan(h.fake.calls.indexOf(card.call));
    expect(made.tools.deleted).toEqual([]);

    await clickButton(b, card, ALICE, ACTION_IDS.approve);
    await waitForUpdate(h.fake, card, `Approved by <@${ALICE}>`);
    const answer = await waitForText(h.fake, thread, 'Deleted *abc*');
    expect(textOf(answer)).toContain('&lt;!channel&gt;');
    expect(made.tools.deleted).toEqual([{ id: 'abc <!here>' }]);
    await h.fake.waitFor((c) => c.method === 'reactions.remove' && c.args.timestamp === thread.ts);
    const update = updatesOf(h.fake, card)[0]!;
    expect(update.args.blocks).not.toContainEqual(expect.objectContaining({ type: 'actions' }));
  });

  it("each step's text is its own paragraph in the thread, though the stream runs them together (Mastra's text)", async () => {
    const lookup = createTool({
      id: 'lookup_record',
      description: 'Look a record up',
      inputSchema: z.object({ id: z.string() }),
      execute: async (input: { id: string }) => ({ found: input.id }),
    });
    const b = await boot(
      (deps) =>
        opsAgent(deps, [{ text: 'Let me check.', toolCalls: [{ toolName: 'lookup_record', args: { id: 'p1' } }] }, { text: 'It exists.' }], {}, { tools: { lookup_record: lookup } })
          .agent,
    );
    const thread = await mention(b, { user: REQUESTER, channel: CHANNEL, text: 'is p1 there?' });
    const answer = await waitForText(h.fake, thread, 'It exists.');
    expect(textOf(answer)).toMatch(/Let me check\.\n\nIt exists\./);
  });

  it('decline through the modal with a reason: the card says so and the model receives the reason', async () => {
    let made!: ReturnType<typeof opsAgent>;
    const b = await boot((deps) => {
      made = opsAgent(deps, [{ toolCalls: [{ toolName: 'delete_record', args: { id: 'x1' } }] }, { text: 'Understood, not deleting x1.' }]);
      return made.agent;
    });
    const thread = await mention(b, { user: REQUESTER, channel: CHANNEL, text: 'delete x1' });
    const card = await waitForCard(h.fake, thread, 'approval');

    await clickButton(b, card, ALICE, ACTION_IDS.decline);
    const opened = await h.fake.waitFor('views.open');
    const view = opened.args.view as { private_metadata: string; callback_id: string };
    expect(view.callback_id).toBe(CALLBACK_IDS.declineModal);

    const submitted = await b.send.interaction(
      viewSubmissionPayload({
        user: ALICE,
        callbackId: CALLBACK_IDS.declineModal,
        privateMetadata: view.private_metadata,
        stateValues: { reason: { reason: 'wrong record <!everyone>' } },
      }),
    );
    expect(submitted.status).toBe(200);
    await waitForUpdate(h.fake, card, `Declined by <@${ALICE}>: wrong record &lt;!everyone&gt;`);
    await waitForText(h.fake, thread, 'Understood, not deleting x1.');
    expect(made.tools.deleted).toEqual([]);
    expect(lastToolResults(made.model)).toEqual([
      expect.objectContaining({
        output: { type: 'execution-denied', reason: `Tool call declined by ${ALICE}; delete_record did not run. Their reason, in their own words: "wrong record <!everyone>".` },
      }),
    ]);
  });

  it('a request nobody decides expires: the card says so and the model is told it expired, not that it was declined', async () => {
    let made!: ReturnType<typeof opsAgent>;
    const b = await boot((deps) => {
      made = opsAgent(deps, [{ toolCalls: [{ toolName: 'delete_record', args: { id: 'x9' } }] }, { text: 'Nobody approved it in time.' }], { tools: { delete_record: { requireApproval: true, expiresIn: 1 } } });
      return made.agent;
    });
    const thread = await mention(b, { user: REQUESTER, channel: CHANNEL, text: 'delete x9' });
    const card = await waitForCard(h.fake, thread, 'approval');
    await b.slack.idle();
    // Its second is up.
    await sql`UPDATE pending_actions SET expires_at = now() - interval '1 second' WHERE id = ${card.actionId}`.execute(h.database.db);
    await b.slack.sweepExpired();
    await waitForUpdate(h.fake, card, 'Expired');
    await waitForText(h.fake, thread, 'Nobody approved it in time.');
    expect(made.tools.deleted).toEqual([]);
    expect(lastToolResults(made.model)).toEqual([
      expect.objectContaining({ output: { type: 'execution-denied', reason: 'Tool call expired; delete_record did not run: nobody approved it before its approval request expired.' } }),
    ]);
  });

  it('decline still works without a reason when the modal cannot open (expired trigger)', async () => {
    let made!: ReturnType<typeof opsAgent>;
    const b = await boot((deps) => {
      made = opsAgent(deps, [{ toolCalls: [{ toolName: 'delete_record', args: { id: 'x2' } }] }, { text: 'Not deleted.' }]);
      return made.agent;
    });
    h.fake.setExpiredTriggerIds('all');
    const thread = await mention(b, { user: REQUESTER, channel: CHANNEL, text: 'delete x2' });
    const card = await waitForCard(h.fake, thread, 'approval');
    await clickButton(b, card, BOB, ACTION_IDS.decline);
    await h.fake.waitFor((c) => c.method === 'views.open' && c.error === 'expired_trigger_id');
    await waitForUpdate(h.fake, card, `Declined by <@${BOB}>`);
    await waitForText(h.fake, thread, 'Not deleted.');
    expect(lastToolResults(made.model)).toEqual([expect.objectContaining({ output: expect.objectContaining({ type: 'execution-denied' }) })]);
    h.fake.setExpiredTriggerIds([]);
  });

  it('four eyes through a supervisor: quorum 2, the path on the card, refusals by ephemeral, one refund', async () => {
    const tools = recordTools();
    const b = await boot((deps) => {
      const model = scriptedModel([
        { toolCalls: [{ toolName: 'agent-billing', args: { prompt: 'Refund 150000 cents on order 1042' } }] },
        { toolCalls: [{ toolName: 'issue_refund', args: { orderId: '1042', amountCents: 150_000 } }] },
        { text: 'Refunded 150000 cents.' },
        { text: 'Billing refunded $1,500.00 on order 1042.' },
      ]);
      const billing = new Agent({ id: 'billing', model, tools: { issue_refund: tools.issueRefund } });
      return new Agent({
        id: 'ops',
        model,
        agents: { billing },
        storage: h.database,
        policy: definePolicy({
          tools: { issue_refund: { requireApproval: true, quorum: 2, allowSelfApproval: false, approvers: [ALICE, BOB, CAROL] } },
        }),
        ...deps,
      });
    });
    const thread = await mention(b, { user: ALICE, channel: CHANNEL, text: 'refund order 1042' });
    const card = await waitForCard(h.fake, thread, 'approval');
    const text = textOf(card.call);
    expect(text).toContain('*Path:* ops → billing → issue_refund');
    expect(text).toContain('*Quorum:* 2 approvals');
    expect(text).toContain(`<@${BOB}>`);

    await clickButton(b, card, ALICE, ACTION_IDS.approve);
    await waitForEphemeral(h.fake, ALICE, 'someone else has to approve');
    await clickButton(b, card, MALLORY, ACTION_IDS.approve);
    await waitForEphemeral(h.fake, MALLORY, 'Only listed approvers');
    await clickButton(b, card, BOB, ACTION_IDS.approve);
    await waitForUpdate(h.fake, card, `1 of 2 approvals: <@${BOB}>`);
    await clickButton(b, card, BOB, ACTION_IDS.approve);
    await waitForEphemeral(h.fake, BOB, 'already counted');
    expect(tools.refunds).toEqual([]);

    await clickButton(b, card, CAROL, ACTION_IDS.approve);
    await waitForUpdate(h.fake, card, `Approved by <@${BOB}> and <@${CAROL}>`);
    await waitForText(h.fake, thread, 'Billing refunded $1,500.00');
    await b.slack.idle();
    expect(tools.refunds).toEqual([{ orderId: '1042', amountCents: 150_000 }]);
    expect(updatesOf(h.fake, card)).toHaveLength(2);
  });

  it('a sub-agent call blocked at the gate after approval: the card says Blocked, not Approved', async () => {
    const tools = recordTools();
    const b = await boot((deps) => {
      const model = scriptedModel([
        { toolCalls: [{ toolName: 'agent-billing', args: { prompt: 'Refund 500 cents on order 1042' } }] },
        { toolCalls: [{ toolName: 'issue_refund', args: { orderId: '1042', amountCents: 500 } }] },
        { text: 'The refund was blocked.' },
        { text: 'Billing could not refund.' },
      ]);
      const billing = new Agent({
        id: 'billing',
        model,
        tools: { issue_refund: tools.issueRefund },
        // Runs right before execute, inside the sub-agent, and raises the amount: the grant no longer matches.
        hooks: { beforeToolCall: ({ args }) => ({ args: { ...(args as object), amountCents: 99_999 } }) },
      });
      return new Agent({
        id: 'ops',
        model,
        agents: { billing },
        storage: h.database,
        policy: definePolicy({ tools: { issue_refund: { requireApproval: true, approvers: [BOB] } } }),
        ...deps,
      });
    });
    const thread = await mention(b, { user: ALICE, channel: CHANNEL, text: 'refund order 1042' });
    const card = await waitForCard(h.fake, thread, 'approval');
    await clickButton(b, card, BOB, ACTION_IDS.approve);
    await waitForText(h.fake, thread, 'Billing could not refund.');
    await b.slack.idle();
    expect(tools.refunds).toEqual([]);
    const updates = updatesOf(h.fake, card);
    expect(updates.length).toBeGreaterThan(0);
    expect(textOf(updates[updates.length - 1]!)).toContain('Blocked: arguments changed');
  });

  it('approvers given as a user group are checked with usergroups.users.list', async () => {
    h.fake.setUsergroup('S0OPSTEAM', [CAROL]);
    let made!: ReturnType<typeof opsAgent>;
    const b = await boot((deps) => {
      made = opsAgent(deps, [{ toolCalls: [{ toolName: 'delete_record', args: { id: 'g1' } }] }, { text: 'Deleted g1.' }], {
        tools: { delete_record: { approvers: ['S0OPSTEAM'] } },
      });
      return made.agent;
    });
    const thread = await mention(b, { user: REQUESTER, channel: CHANNEL, text: 'delete g1' });
    const card = await waitForCard(h.fake, thread, 'approval');
    expect(textOf(card.call)).toContain('<!subteam^S0OPSTEAM>');
    await clickButton(b, card, MALLORY, ACTION_IDS.approve);
    await waitForEphemeral(h.fake, MALLORY, 'Only listed approvers');
    await clickButton(b, card, CAROL, ACTION_IDS.approve);
    await waitForUpdate(h.fake, card, `Approved by <@${CAROL}>`);
    await waitForText(h.fake, thread, 'Deleted g1.');
    expect(h.fake.callsTo('usergroups.users.list').length).toBeGreaterThanOrEqual(1);
    expect(made.tools.deleted).toEqual([{ id: 'g1' }]);
  });

  it('20 concurrent Approve clicks on one card: one execution, one card update', async () => {
    let made!: ReturnType<typeof opsAgent>;
    const b = await boot((deps) => {
      made = opsAgent(deps, [{ toolCalls: [{ toolName: 'delete_record', args: { id: 'race' } }] }, { text: 'Deleted race.' }]);
      return made.agent;
    });
    const thread = await mention(b, { user: REQUESTER, channel: CHANNEL, text: 'delete race' });
    const card = await waitForCard(h.fake, thread, 'approval');
    const clickers = Array.from({ length: 20 }, (_, i) => `U0CLICK${String(i).padStart(2, '0')}`);
    const responses = await Promise.all(clickers.map((user) => clickButton(b, card, user, ACTION_IDS.approve)));
    expect(responses.every((r) => r.status === 200)).toBe(true);
    await waitForText(h.fake, thread, 'Deleted race.');
    await b.slack.idle();
    expect(made.tools.deleted).toEqual([{ id: 'race' }]);
    const updates = updatesOf(h.fake, card);
    expect(updates).toHaveLength(1);
    expect(textOf(updates[0]!)).toMatch(/Approved by <@U0CLICK\d\d>/);
    expect(h.fake.callsTo('chat.postEphemeral').filter((c) => String(c.args.text).includes('already approved'))).toHaveLength(19);
  });

  it('a restart between the card and the click loses nothing', async () => {
    const first = await boot((deps) => opsAgent(deps, [{ toolCalls: [{ toolName: 'delete_record', args: { id: 'r1' } }] }]).agent);
    const thread = await mention(first, { user: REQUESTER, channel: CHANNEL, text: 'delete r1' });
    const card = await waitForCard(h.fake, thread, 'approval');
    await first.stop();
    h.bot = undefined;

    let made!: ReturnType<typeof opsAgent>;
    const second = await boot((deps) => {
      made = opsAgent(deps, [{ text: 'Deleted r1 after a restart.' }]);
      return made.agent;
    });
    await clickButton(second, card, ALICE, ACTION_IDS.approve);
    await waitForUpdate(h.fake, card, `Approved by <@${ALICE}>`);
    await waitForText(h.fake, thread, 'Deleted r1 after a restart.');
    expect(made.tools.deleted).toEqual([{ id: 'r1' }]);
  });

  it('with two instances, a card decided on the other one before its location was stored is still redrawn', async () => {
    const poster = await boot((deps) => opsAgent(deps, [{ toolCalls: [{ toolName: 'delete_record', args: { id: 'm1' } }] }]).agent);
    let made!: ReturnType<typeof opsAgent>;
    const other = await startBot({
      fake: h.fake,
      db: h.database.db,
      makeAgent: (deps) => (made = opsAgent(deps, [{ text: 'Deleted m1 on the other instance.' }])).agent,
    });
    try {
      // The card is on Slack, but the instance that posted it has not heard back yet, so has not stored where it is.
      const release = h.fake.holdResponseNext('chat.postMessage');
      const thread = await mention(poster, { user: REQUESTER, channel: CHANNEL, text: 'delete m1' });
      const card = await waitForCard(h.fake, thread, 'approval');

      await clickButton(other, card, ALICE, ACTION_IDS.approve);
      await waitForText(h.fake, thread, 'Deleted m1 on the other instance.');
      await other.slack.idle();
      expect(made.tools.deleted).toEqual([{ id: 'm1' }]);
      // The deciding instance finds the card in the thread by its metadata, and redraws it at once.
      await waitForUpdate(h.fake, card, `Approved by <@${ALICE}>`);

      release();
      await poster.slack.idle();
      // The poster's late save finds the request decided and draws the card again: as decided, never back to pending.
      const updates = updatesOf(h.fake, card);
      expect(updates.length).toBeLessThanOrEqual(2);
      expect(updates.every((c) => c.ok && textOf(c).includes(`Approved by <@${ALICE}>`))).toBe(true);
      expect(h.fake.callsTo('chat.postMessage').filter((c) => c.args.thread_ts === thread.threadTs && cardActions(blocksOf(c), 'approval'))).toHaveLength(1);
    } finally {
      await other.stop();
    }
  });

  it('Decline and Edit open no form on a stale button, a decided request or an expired one: the clicker is told why', async () => {
    let made!: ReturnType<typeof opsAgent>;
    const b = await boot((deps) => {
      made = opsAgent(deps, [{ toolCalls: [{ toolName: 'delete_record', args: { id: 'f1' } }] }, { text: 'Deleted f1.' }, { toolCalls: [{ toolName: 'delete_record', args: { id: 'f2' } }] }]);
      return made.agent;
    });
    const toldAlice = async (expected: string) => {
      const before = h.fake.callsTo('chat.postEphemeral').length;
      return async () => {
        await h.fake.waitFor(() => h.fake.callsTo('chat.postEphemeral').length > before);
        expect(String(h.fake.callsTo('chat.postEphemeral').at(-1)!.args.text)).toContain(expected);
      };
    };
    const thread = await mention(b, { user: REQUESTER, channel: CHANNEL, text: 'delete f1' });
    const card = await waitForCard(h.fake, thread, 'approval');
    // A button for other arguments than the request's (a stale card, or a forged value).
    let told = await toldAlice('does not match the pending request');
    await clickButton(b, card, ALICE, ACTION_IDS.decline, { value: JSON.stringify({ a: card.actionId, f: '0123456789abcdef' }) });
    await told();
    await clickButton(b, card, ALICE, ACTION_IDS.approve);
    await waitForText(h.fake, thread, 'Deleted f1.');
    for (const button of [ACTION_IDS.decline, ACTION_IDS.edit]) {
      told = await toldAlice(`This request was already approved by <@${ALICE}>`);
      await clickButton(b, card, ALICE, button);
      await told();
    }

    const second = await mention(b, { user: REQUESTER, channel: CHANNEL, text: 'delete f2' });
    const late = await waitForCard(h.fake, second, 'approval');
    // Past its time, before the sweep got to it.
    await sql`UPDATE pending_actions SET expires_at = now() - interval '1 second' WHERE id = ${late.actionId}`.execute(h.database.db);
    for (const button of [ACTION_IDS.decline, ACTION_IDS.edit]) {
      told = await toldAlice('This request has expired');
      await clickButton(b, late, ALICE, button);
      await told();
    }
    await b.slack.idle();
    expect(h.fake.callsTo('views.open')).toEqual([]);
    expect(made.tools.deleted).toEqual([{ id: 'f1' }]);
  });

  it('a click in the bot’s own name (a forged payload) approves nothing, under "anyone may approve"', async () => {
    let made!: ReturnType<typeof opsAgent>;
    const b = await boot((deps) => {
      made = opsAgent(deps, [{ toolCalls: [{ toolName: 'delete_record', args: { id: 'bot1' } }] }, { text: 'Deleted bot1.' }], { tools: { delete_record: { approvers: [] } } });
      return made.agent;
    });
    const thread = await mention(b, { user: REQUESTER, channel: CHANNEL, text: 'delete bot1' });
    const card = await waitForCard(h.fake, thread, 'approval');
    await clickButton(b, card, SLACK_IDS.botUserId, ACTION_IDS.approve);
    await waitForEphemeral(h.fake, SLACK_IDS.botUserId, 'The bot cannot approve delete_record');
    await b.slack.idle();
    expect(updatesOf(h.fake, card)).toEqual([]);
    expect(made.tools.deleted).toEqual([]);
    await clickButton(b, card, ALICE, ACTION_IDS.approve);
    await waitForText(h.fake, thread, 'Deleted bot1.');
    expect(made.tools.deleted).toEqual([{ id: 'bot1' }]);
  });

  it('a click that comes before the bot has stored where its card is is judged on its card: the refusal says why, the approval redraws it once', async () => {
    let made!: ReturnType<typeof opsAgent>;
    const b = await boot((deps) => {
      made = opsAgent(deps, [{ toolCalls: [{ toolName: 'delete_record', args: { id: 'w1' } }] }, { text: 'Deleted w1.' }], { tools: { delete_record: { approvers: [CAROL] } } });
      return made.agent;
    });
    // Slack shows the card, but its answer to chat.postMessage (the card's ts) has not reached the bot yet.
    const release = h.fake.holdResponseNext('chat.postMessage');
    const thread = await mention(b, { user: REQUESTER, channel: CHANNEL, text: 'delete w1' });
    const card = await waitForCard(h.fake, thread, 'approval');
    const waitsForPlace = vi.spyOn(b.slack.context.cards, 'whenStored');
    const clicked = clickButton(b, card, MALLORY, ACTION_IDS.approve);
    // The click waits for where its card is; the card's answer is let through only then, and the
    // click is acknowledged once its refusal is on record.
    await vi.waitFor(() => expect(waitsForPlace).toHaveBeenCalledWith([card.actionId]), { timeout: 10_000, interval: 5 });
    release();
    await clicked;
    await waitForEphemeral(h.fake, MALLORY, 'Only listed approvers');
    await clickButton(b, card, CAROL, ACTION_IDS.approve);
    await waitForText(h.fake, thread, 'Deleted w1.');
    await b.slack.idle();
    expect(h.fake.callsTo('chat.postEphemeral').map((c) => String(c.args.text))).toEqual([expect.stringContaining('Only listed approvers')]);
    expect(updatesOf(h.fake, card).map(textOf)).toEqual([expect.stringContaining(`Approved by <@${CAROL}>`)]);
    expect(made.tools.deleted).toEqual([{ id: 'w1' }]);
  });

  it('a policy change between card and click supersedes the card and asks again, when someone the new policy lets decide clicks', async () => {
    const first = await boot(
      (deps) => opsAgent(deps, [{ toolCalls: [{ toolName: 'delete_record', args: { id: 'p1' } }] }], { version: 'v1' }).agent,
    );
    const thread = await mention(first, { user: REQUESTER, channel: CHANNEL, text: 'delete p1' });
    const card = await waitForCard(h.fake, thread, 'approval');
    await first.stop();
    h.bot = undefined;

    let made!: ReturnType<typeof opsAgent>;
    const second = await boot((deps) => {
      made = opsAgent(deps, [{ text: 'Deleted p1.' }], { version: 'v2', tools: { delete_record: { approvers: [BOB] } } });
      return made.agent;
    });
    // Alice may not decide it under the new policy: she is told so, and the old card stays as it is.
    await clickButton(second, card, ALICE, ACTION_IDS.approve);
    await waitForEphemeral(h.fake, ALICE, 'Only listed approvers');
    await second.slack.idle();
    expect(updatesOf(h.fake, card)).toHaveLength(0);
    await clickButton(second, card, BOB, ACTION_IDS.approve);
    await waitForEphemeral(h.fake, BOB, 'policy changed');
    await waitForUpdate(h.fake, card, 'Superseded');
    const again = await waitForCard(h.fake, thread, 'approval', 1);
    expect(textOf(again.call)).toContain(`*Approvers:* <@${BOB}>`);
    await clickButton(second, again, BOB, ACTION_IDS.approve);
    await waitForText(h.fake, thread, 'Deleted p1.');
    expect(made.tools.deleted).toEqual([{ id: 'p1' }]);
  });

  it('an approved call whose arguments change before it runs is blocked, and the card says so', async () => {
    let made!: ReturnType<typeof opsAgent>;
    const b = await boot((deps) => {
      made = opsAgent(deps, [{ toolCalls: [{ toolName: 'delete_record', args: { id: 'b1' } }] }, { text: 'It was blocked.' }], {}, {
        // The hook runs right before execute and swaps the target: the grant no longer matches.
        hooks: { beforeToolCall: () => ({ args: { id: 'other' } }) },
      });
      return made.agent;
    });
    const thread = await mention(b, { user: REQUESTER, channel: CHANNEL, text: 'delete b1' });
    const card = await waitForCard(h.fake, thread, 'approval');
    await clickButton(b, card, ALICE, ACTION_IDS.approve);
    await waitForUpdate(h.fake, card, 'Blocked: arguments changed');
    await waitForText(h.fake, thread, 'It was blocked.');
    expect(made.tools.deleted).toEqual([]);
  });
});
