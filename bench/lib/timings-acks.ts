/**
 * How long the Slack front end takes to acknowledge what people do: a mention, a click on
 * Approve, a click on Decline and its modal's submission. The real Bolt HTTP endpoint in this
 * process, the Slack simulator on loopback, PostgreSQL, the bench's zero-latency model; each
 * request signed and timed from send to response.
 */
import { definePolicy } from '../../src/approvals/define-policy.js';
import { createLogger } from '../../src/logger.js';
import { appMentionEnvelope, blockActionsPayload, FAKE_BOT_TOKEN, type RecordedCall, SLACK_IDS, slackSender, startSlackSimulator, viewSubmissionPayload } from '../../src/simulator/index.js';
import { ACTION_IDS, CALLBACK_IDS } from '../../src/slack/kit/action-ids.js';
import { createSlackApp } from '../../src/slack/app.js';
import { openBenchDatabase } from './bench-db.js';
import { benchAgent, toolName } from './fixture.js';
import type { SuiteContext } from './suite.js';

const SECRET = 'bench-timings-signing-secret';
const CHANNEL = 'C0CHANNEL01';
const REQUESTER = 'U0REQUESTER';
const APPROVER = 'U0ALICE';

type Block = { type: string; block_id?: string; elements?: Array<{ action_id?: string; value?: string }> };

export async function measureAcks(ctx: SuiteContext): Promise<Array<{ what: string; ms: number[] }>> {
  const rounds = ctx.quick ? 5 : 50;
  const bench = await openBenchDatabase(ctx.databaseUrl);
  const fake = await startSlackSimulator({});
  const agent = benchAgent(bench.db, () => {}, {
    botUserId: SLACK_IDS.botUserId,
    policy: definePolicy({ tools: { [toolName]: { requireApproval: true, approvers: [APPROVER] } } }),
  });
  const slack = createSlackApp({
    config: { botToken: FAKE_BOT_TOKEN, signingSecret: SECRET, apiUrl: fake.apiUrl, port: 0 },
    agent,
    db: bench.db,
    logger: createLogger({ level: 'silent', name: 'bench' }),
    sweepIntervalMs: 0,
    workingReactionDelayMs: 0,
  });
  const acks = { mention: [] as number[], approve: [] as number[], decline: [] as number[], submission: [] as number[] };
  try {
    const { port } = await slack.start();
    const send = slackSender(`http://127.0.0.1:${port}/slack/events`, SECRET);
    const ok = (what: string, r: { status: number; elapsedMs: number }) => {
      if (r.status !== 200) throw new Error(`${what}: HTTP ${r.status}`);
      return r.elapsedMs;
    };
    for (let i = 0; i < 2 * rounds; i++) {
      const ts = `1726140000.${String(100000 + i).padStart(6, '0')}`;
      const text = `<@${SLACK_IDS.botUserId}> delete record r${i}`;
      fake.seedMessage({ channel: CHANNEL, text, user: REQUESTER, ts });
      acks.mention.push(ok('mention', await send.event(appMentionEnvelope({ text, user: REQUESTER, channel: CHANNEL, ts }))));
      const isCard = (c: RecordedCall) => c.method === 'chat.postMessage' && c.ok && c.args.thread_ts === ts && (c.args.blocks as Block[] | undefined)?.some((b) => b.block_id?.startsWith('approval:')) === true;
      const card = await fake.waitFor(isCard, { timeoutMs: 30_000 });
      const actions = (card.args.blocks as Block[]).find((b) => b.block_id?.startsWith('approval:'))!;
      const click = (actionId: string) =>
        blockActionsPayload({ user: APPROVER, channel: CHANNEL, messageTs: String(card.response?.ts), threadTs: ts, actionId, blockId: actions.block_id, value: actions.elements?.find((e) => e.action_id === actionId)?.value });
      const answered = (c: RecordedCall) => c.method === 'chat.update' && c.args.ts === card.response?.ts && /(Approved|Declined) by/.test(JSON.stringify(c.args));
      if (i % 2 === 0) {
        acks.approve.push(ok('approve', await send.interaction(click(ACTION_IDS.approve))));
      } else {
        const opened = fake.callsTo('views.open').length;
        acks.decline.push(ok('decline', await send.interaction(click(ACTION_IDS.decline))));
        const view = (await fake.waitFor((c) => c.method === 'views.open' && fake.callsTo('views.open').length > opened, { timeoutMs: 30_000 })).args.view as { private_metadata: string };
        const submission = viewSubmissionPayload({ user: APPROVER, callbackId: CALLBACK_IDS.declineModal, privateMetadata: view.private_metadata, stateValues: { reason: { reason: 'not this one' } } });
        acks.submission.push(ok('modal submission', await send.interaction(submission)));
      }
      await fake.waitFor(answered, { timeoutMs: 30_000 });
      await slack.idle();
    }
  } finally {
    await slack.stop();
    await fake.close();
    await bench.close();
  }
  return [
    { what: 'mention (Events API)', ms: acks.mention },
    { what: 'click on Approve', ms: acks.approve },
    { what: 'click on Decline (opens the modal)', ms: acks.decline },
    { what: 'decline modal submitted with a reason', ms: acks.submission },
  ];
}
