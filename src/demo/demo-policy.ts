import { definePolicy } from '../approvals/define-policy.js';
import type { Policy } from '../approvals/policy-types.js';
import { findUserByName, findUsergroup } from '../sandbox/workspace.js';

/** Above this many cents a refund needs a second pair of eyes. */
const LARGE_REFUND_CENTS = 100_000;

/**
 * Who may approve what in the demo. `approvers` is left empty everywhere so the demo
 * works in any workspace (anyone but the bot may approve); a real deployment would
 * list Slack user or user-group ids here or in a POLICY_FILE.
 */
export const demoPolicy = demoPolicyWith('demo', []);

/**
 * The demo policy behind the local sandbox, whose people are known: refunds go to the finance
 * group and bob, production deploys to bob and carol, so one asked in a DM with the bot (where
 * nobody else sees the card) is sent to them instead of waiting unseen.
 */
export const sandboxDemoPolicy = demoPolicyWith('demo-sandbox', [findUsergroup('finance')!.id, findUserByName('bob')!.id], [
  findUserByName('bob')!.id,
  findUserByName('carol')!.id,
]);

function demoPolicyWith(version: string, refundApprovers: string[], deployApprovers: string[] = []): Policy {
  return definePolicy({
    version,
    defaults: {
      requireApproval: false,
      allowSelfApproval: true,
      expiresIn: '24h',
    },
    tools: {
      // A deletion is soft and the requester usually owns the record, so their own click is enough.
      // The tool itself calls each deletion high-risk (its describe()), so Approve asks to confirm;
      // not the policy, whose high risk would give each deletion a card of its own instead of the
      // batch card parallel deletions share.
      delete_record: {
        requireApproval: true,
        allowSelfApproval: true,
      },
      // Money leaves the company: never on the requester's word alone, and two people for large amounts.
      issue_refund: {
        requireApproval: true,
        allowSelfApproval: false,
        ...(refundApprovers.length > 0 ? { approvers: refundApprovers } : {}),
        rules: [{ when: { arg: 'amountCents', op: 'gt', value: LARGE_REFUND_CENTS }, then: { quorum: 2, risk: 'high' } }],
      },
      // Staging is anyone's to deploy; production goes out only once someone other than the
      // requester approves it (the tool then asks the requester to confirm the moment itself).
      deploy_service: {
        rules: [
          {
            when: { arg: 'environment', op: 'eq', value: 'production' },
            then: { requireApproval: true, allowSelfApproval: false, ...(deployApprovers.length > 0 ? { approvers: deployApprovers } : {}) },
          },
        ],
      },
    },
  });
}
