/**
 * A request made under a policy whose quorum can never be met (too few listed approvers, or a
 * user group too small right now) says so on its card, over the real Slack front end and the
 * fake Slack Web API.
 */
import { expect, it } from 'vitest';
import type { PolicyInput } from '../../src/approvals/policy-schema.js';
import { ACTION_IDS } from '../../src/slack/kit/action-ids.js';
import { describeOnOneBackend } from '../helpers/needs.js';
import { viewSubmissionPayload } from '../../src/simulator/index.js';
import {
  clickButton,
  mention,
  recordingDeleteTool,
  slackHarness,
  textOf,
  updatesOf,
  waitForCard,
  waitForUpdate,
  type PostedCard,
} from '../helpers/slack-bot.js';
import { startDeleteBot } from '../helpers/start-delete-bot.js';
import { CHANNEL, REQUESTER, ALICE, BOB } from '../helpers/test-workspace.js';

const WARNING = /:warning: \*This request can never be approved:\* it needs (\d+) approvals? but (only \d+ (person|people)|nobody) may approve it/;

describeOnOneBackend('a quorum that can never be met is on the card, on %s', (backend) => {
  const h = slackHarness(backend);

  async function requestUnder(policy: PolicyInput): Promise<PostedCard> {
    const tool = recordingDeleteTool();
    h.bot = await startDeleteBot(h, policy, { tool });
    const thread = await mention(h.bot, { user: REQUESTER, channel: CHANNEL, text: 'delete abc' });
    const card = await waitForCard(h.fake, thread, 'approval');
    expect(tool.deleted).toEqual([]);
    return card;
  }

  it('too few listed approvers: the card says how many may approve, the log names the request, and it can still be declined', async () => {
    const card = await requestUnder({ tools: { delete_record: { requireApproval: true, approvers: [ALICE, BOB], quorum: 3 } } });
    expect(textOf(card.call)).toMatch(WARNING);
    expect(textOf(card.call)).toContain('it needs 3 approvals but only 2 people may approve it');
    const warned = h.bot!.logs.map((l) => JSON.parse(l)).find((l) => l.msg?.startsWith('request can never be approved'));
    expect(warned).toMatchObject({ level: 40, actionId: card.actionId, toolName: 'delete_record', quorum: 3, eligible: 2 });

    await clickButton(h.bot!, card, REQUESTER, ACTION_IDS.decline);
    const view = (await h.fake.waitFor('views.open')).args.view as { private_metadata: string; callback_id: string };
    await h.bot!.send.interaction(
      viewSubmissionPayload({ user: REQUESTER, callbackId: view.callback_id, privateMetadata: view.private_metadata, stateValues: { reason: { reason: 'fix the policy first' } } }),
    );
    const declined = await waitForUpdate(h.fake, card, `Declined by <@${REQUESTER}>`);
    expect(textOf(declined)).not.toMatch(/:warning:/);
  });

  it('a group too small at request time, counting neither the bot nor the requester who may not approve their own request', async () => {
    h.fake.setUsergroup('S0LEADS', [REQUESTER, ALICE]);
    const card = await requestUnder({
      tools: { delete_record: { requireApproval: true, allowSelfApproval: false, approvers: ['S0LEADS'], quorum: 2 } },
    });
    expect(textOf(card.call)).toContain('it needs 2 approvals but only 1 person may approve it');
  });

  it('stays on the card through a vote that cannot complete it, and goes once the request is decided', async () => {
    const card = await requestUnder({ tools: { delete_record: { requireApproval: true, approvers: [ALICE], quorum: 2 } } });
    expect(textOf(card.call)).toContain('it needs 2 approvals but only 1 person may approve it');
    await clickButton(h.bot!, card, ALICE, ACTION_IDS.approve);
    const vote = await waitForUpdate(h.fake, card, '1 of 2 approvals');
    expect(textOf(vote)).toMatch(WARNING);
  });

  it('a quorum that can be met shows no warning, posted or redrawn', async () => {
    h.fake.setUsergroup('S0LEADS', [ALICE, BOB]);
    const card = await requestUnder({ tools: { delete_record: { requireApproval: true, approvers: ['S0LEADS'], quorum: 2 } } });
    expect(textOf(card.call)).not.toMatch(/:warning:/);
    await clickButton(h.bot!, card, ALICE, ACTION_IDS.approve);
    await waitForUpdate(h.fake, card, '1 of 2 approvals');
    await clickButton(h.bot!, card, BOB, ACTION_IDS.approve);
    await waitForUpdate(h.fake, card, 'Approved by');
    expect(updatesOf(h.fake, card).some((u) => /:warning:/.test(textOf(u)))).toBe(false);
  });
});
