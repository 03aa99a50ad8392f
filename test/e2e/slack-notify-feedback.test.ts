/**
 * Who hears about a request, over the real Slack front end and the Slack simulator: the card
 * mentions its approvers (users and groups) unless the policy says not to, the approvers still
 * needed after a vote are told what is left, a reply that reads like a decision gets a pointer
 * to the buttons (and decides nothing), and refused clicks are on the audit trail.
 */
import { expect, it } from 'vitest';
import type { PolicyInput } from '../../src/approvals/policy-schema.js';
import { listAuditEvents } from '../../src/db/audit.js';
import { ACTION_IDS } from '../../src/slack/kit/action-ids.js';
import { messageEnvelope } from '../../src/simulator/index.js';
import { describeOnOneBackend } from '../helpers/needs.js';
import { clickButton, freshTs, mention, recordingDeleteTool, slackHarness, waitForCard, waitForEphemeral, waitForText, waitForUpdate, type PostedCard } from '../helpers/slack-bot.js';
import { startDeleteBot } from '../helpers/start-delete-bot.js';
import { CHANNEL, REQUESTER, ALICE, BOB, CAROL } from '../helpers/test-workspace.js';

describeOnOneBackend('notify and feedback, on %s', (backend) => {
  const h = slackHarness(backend);

  async function requestUnder(policy: PolicyInput): Promise<{ card: PostedCard; deleted: unknown[]; runId: string }> {
    const tool = recordingDeleteTool();
    h.bot = await startDeleteBot(h, policy, { tool });
    const thread = await mention(h.bot, { user: REQUESTER, channel: CHANNEL, text: 'delete abc' });
    const card = await waitForCard(h.fake, thread, 'approval');
    const runId = (await h.bot.agent.findRequest(card.actionId))!.run_id;
    return { card, deleted: tool.deleted, runId };
  }

  it('the notification text mentions the approvers, users and groups, and the card says cancel is a reply', async () => {
    h.fake.setUsergroup('S0FINANCE', [ALICE]);
    const { card } = await requestUnder({ tools: { delete_record: { requireApproval: true, approvers: [BOB, 'S0FINANCE'] } } });
    expect(card.call.args.text).toBe(`Approval needed: Delete record (request #${card.actionId}) for <!subteam^S0FINANCE> or <@${BOB}>`);
    const context = JSON.stringify(card.blocks.filter((b) => b.type === 'context'));
    expect(context).toContain(`<@${REQUESTER}> can reply \`cancel\` in the thread to withdraw it`);
    // Once decided, the redrawn card pings nobody again.
    await clickButton(h.bot!, card, BOB, ACTION_IDS.approve);
    const approved = await waitForUpdate(h.fake, card, 'Approved by');
    expect(approved.args.text).toBe(`Approval needed: Delete record (request #${card.actionId})`);
  });

  it('notify: none mentions nobody, in the text or on the card', async () => {
    const { card } = await requestUnder({ tools: { delete_record: { requireApproval: true, approvers: [BOB, 'S0FINANCE'], notify: 'none' } } });
    expect(card.call.args.text).toBe(`Approval needed: Delete record (request #${card.actionId})`);
    const shown = JSON.stringify(card.blocks);
    expect(shown).not.toContain('<!subteam^');
    expect(shown).not.toContain(`<@${BOB}>`);
    expect(shown).toContain('`S0FINANCE` or `U0BOB`');
  });

  it('after the first of two approvals the thread says who approved and who is still needed', async () => {
    const { card, deleted } = await requestUnder({ tools: { delete_record: { requireApproval: true, approvers: [ALICE, BOB, CAROL], quorum: 2 } } });
    await clickButton(h.bot!, card, BOB, ACTION_IDS.approve);
    const progress = await waitForText(h.fake, { channel: CHANNEL, threadTs: card.threadTs }, '1 of 2:');
    expect(progress.args.text).toBe(`1 of 2: <@${BOB}> approved \`delete_record\` (request #${card.actionId}); one more needed from <@${ALICE}> or <@${CAROL}>.`);
    expect(deleted).toEqual([]);
    await clickButton(h.bot!, card, ALICE, ACTION_IDS.approve);
    await waitForUpdate(h.fake, card, 'Approved by');
    await waitForText(h.fake, { channel: CHANNEL, threadTs: card.threadTs }, 'finished');
    // The vote that completed the quorum posts no progress line.
    expect(h.fake.callsTo('chat.postMessage').filter((c) => String(c.args.text).includes(' of 2:'))).toHaveLength(1);
  });

  it('a reply that reads like a decision gets an ephemeral pointer to the buttons and decides nothing', async () => {
    const { card, deleted } = await requestUnder({ tools: { delete_record: { requireApproval: true, approvers: [ALICE] } } });
    const reply = messageEnvelope({ channel: CHANNEL, ts: freshTs(), threadTs: card.threadTs, user: ALICE, text: 'LGTM!' });
    expect((await h.bot!.send.event(reply)).status).toBe(200);
    const hint = await waitForEphemeral(h.fake, ALICE, 'Replies do not decide requests');
    expect(hint.args.thread_ts).toBe(card.threadTs);
    expect(String(hint.args.text)).toContain(`request #${card.actionId}`);
    // Ordinary chatter in the thread gets nothing.
    await h.bot!.send.event(messageEnvelope({ channel: CHANNEL, ts: freshTs(), threadTs: card.threadTs, user: ALICE, text: 'checking the order first, one sec' }));
    await h.bot!.slack.idle();
    expect(h.fake.callsTo('chat.postEphemeral')).toHaveLength(1);
    expect((await h.bot!.agent.findRequest(card.actionId))!.status).toBe('pending');
    expect(deleted).toEqual([]);
  });

  it('refused clicks are audited as refusals: self-approval, not an approver, already decided', async () => {
    const { card, runId } = await requestUnder({
      tools: { delete_record: { requireApproval: true, approvers: [ALICE, REQUESTER], allowSelfApproval: false } },
    });
    await clickButton(h.bot!, card, REQUESTER, ACTION_IDS.approve);
    await waitForEphemeral(h.fake, REQUESTER, /someone else/);
    await clickButton(h.bot!, card, BOB, ACTION_IDS.approve);
    await waitForEphemeral(h.fake, BOB, /Only listed approvers/);
    await clickButton(h.bot!, card, ALICE, ACTION_IDS.approve);
    await waitForUpdate(h.fake, card, 'Approved by');
    await clickButton(h.bot!, card, ALICE, ACTION_IDS.approve);
    await h.bot!.slack.idle();
    const refusals = (await listAuditEvents(h.database.db, { runId })).filter((e) => e.event === 'refused');
    expect(refusals.map((e) => [e.actor, e.detail?.why, e.detail?.decision])).toEqual([
      [REQUESTER, 'self-approval', 'approve'],
      [BOB, 'not-an-approver', 'approve'],
      [ALICE, 'already-decided', 'approve'],
    ]);
    expect(refusals[0]).toMatchObject({ toolName: 'delete_record', detail: { actionId: card.actionId } });
  });
});
