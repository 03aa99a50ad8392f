import type { Button, KnownBlock } from '@slack/types';
import { escapeMrkdwn } from '../kit/mrkdwn/escape-mrkdwn.js';
import { inlineCode } from '../kit/mrkdwn/inline-code.js';
import { LIMITS, truncate, truncateMrkdwn } from '../kit/limits.js';
import { ACTION_IDS, cardBlockId } from '../kit/action-ids.js';
import { actionButtonValue, approvalButtonValue } from '../kit/button-value.js';
import type { ApprovalCardData } from './card-types.js';
import { fitMessage, scaled } from '../kit/fit-message.js';
import { approveButton } from './approve-button.js';
import { humanizeWords } from '../kit/humanize.js';
import { callFieldBlocks, describeArgs } from '../kit/describe-args.js';
import { context, section } from '../kit/layout.js';
import { humanList, mention } from '../kit/mention.js';
import { whoDecides } from '../kit/who-decides.js';
import { slackDate } from '../kit/slack-date.js';
import { oneLine, plainText } from '../kit/text-objects.js';
import { unreachable } from '../../unreachable.js';
import { limitReasonText } from './limit-reason.js';
import { rememberButton, rememberedUnusedText } from './remember-blocks.js';
import { boundBlocks, unattendedText } from './bound-blocks.js';

/**
 * The approval card: what is about to run (tool, delegation path, arguments), who asked, who
 * may decide, until when, and – once decided – who decided. Buttons exist only while pending,
 * so an updated card cannot be clicked again.
 */
export function approvalCard(data: ApprovalCardData): KnownBlock[] {
  return fitMessage((scale) => render(data, scale));
}

function render(d: ApprovalCardData, scale: number): KnownBlock[] {
  const pending = d.state.kind === 'pending';
  const quorum = Number.isFinite(d.quorum) ? Math.max(1, Math.floor(d.quorum)) : 1;
  const title = titleOf(d);
  const blocks: KnownBlock[] = [{ type: 'header', text: plainText(oneLine(title), LIMITS.headerText) }];
  if (d.risk === 'high') {
    blocks.push(section(':warning: *High-risk action.* Check the details (and *Show arguments*) before approving.'));
  }
  // Without a description from the caller, the arguments are described without their schema.
  blocks.push(...callFieldBlocks(d.fields ?? describeArgs(d.toolName, d.args).fields, scale));
  if (d.bound) blocks.push(...boundBlocks(d.bound, pending, scale));

  const facts: string[] = [`*Tool:* ${inlineCode(truncate(d.toolName, 150))}`];
  if (d.path.length > 1) {
    const path = [...d.path, d.toolName].map((step) => escapeMrkdwn(truncate(step, 80))).join(' → ');
    facts.push(`*Path:* ${truncateMrkdwn(path, scaled(600, scale, 120))}`);
  }
  if (d.mcp !== undefined) {
    // What the server says about its own tool is a hint, and is shown as one.
    const hint = d.mcp.readOnlyHint === true ? ' (the server says it only reads)' : '';
    facts.push(`*MCP server:* ${inlineCode(truncate(d.mcp.server, 100))}, tool ${inlineCode(truncate(d.mcp.tool, 150))}${hint}`);
  }
  if (d.requester !== undefined) facts.push(`*Requested by:* ${mention(d.requester)}`);
  else if (d.unattended !== undefined) facts.push(`*Requested by:* ${unattendedText(d.unattended)}`);
  const approvers =
    d.approvers.length === 0
      ? 'anyone'
      : whoDecides(d.approvers, d.notify ?? 'mentions', { maxChars: scaled(1000, scale, 100) });
  facts.push(`*Approvers:* ${approvers}`);
  facts.push(`*Quorum:* ${quorum} ${quorum === 1 ? 'approval' : 'approvals'}`);
  for (const hit of (d.overLimit ?? []).slice(0, 3)) facts.push(limitReasonText(hit, d.toolName, quorum));
  if (pending) facts.push(`*Expires:* ${slackDate(d.expiresAt)}`);
  if (pending && d.routedTo !== undefined) facts.push(`*Sent to:* ${d.routedTo}`);
  blocks.push(section(facts.join('\n')));
  if (pending && d.unreachableQuorum !== undefined) blocks.push(section(unreachableWarning(quorum, d.unreachableQuorum.eligible)));
  if (d.rememberedUnused !== undefined) blocks.push(section(rememberedUnusedText(d.rememberedUnused, quorum)));

  if (d.editedLine !== undefined) blocks.push(section(truncateMrkdwn(d.editedLine, scaled(2000, scale, 200))));

  blocks.push(...stateBlocks(d, quorum, scale));

  const footer = [`Fingerprint ${inlineCode(d.fingerprint.slice(0, 12))}`];
  if (d.policyVersion !== undefined) footer.push(`Policy ${inlineCode(truncate(d.policyVersion, 40))}`);
  footer.push(`Request #${d.actionId}`);
  // Cancelling is a reply, not a button, so the card has to say it exists.
  if (pending && d.requester !== undefined) footer.push(`${mention(d.requester)} can reply \`cancel\` in the thread to withdraw it`);
  blocks.push(context(footer.join('  ·  ')));
  return blocks;
}

function stateBlocks(d: ApprovalCardData, quorum: number, scale: number): KnownBlock[] {
  const listBudget = scaled(1000, scale, 100);
  switch (d.state.kind) {
    case 'pending': {
      const blocks: KnownBlock[] = [];
      if (quorum > 1 && d.approvals.length > 0) {
        const who = humanList(d.approvals.map(mention), { maxChars: listBudget });
        blocks.push(section(`${d.approvals.length} of ${quorum} approvals: ${who}`));
      }
      const value = approvalButtonValue(d.actionId, d.fingerprint);
      const approve = approveButton({ value, title: titleOf(d), ...(d.risk ? { risk: d.risk } : {}), ...(d.requireReason ? { requireReason: true } : {}) });
      const decline: Button = {
        type: 'button',
        action_id: ACTION_IDS.decline,
        text: plainText('Decline'),
        style: 'danger',
        value,
      };
      const edit: Button = { type: 'button', action_id: ACTION_IDS.edit, text: plainText('Edit'), value };
      // Remembering approves with one click, so it is not offered where approving needs a reason.
      const remember = d.rememberFor !== undefined && d.requester !== undefined && !d.requireReason ? [rememberButton(value, d.rememberFor)] : [];
      // Read-only and checked on the server: the arguments exactly as they will run.
      const showArguments: Button = { type: 'button', action_id: ACTION_IDS.showArguments, text: plainText('Show arguments'), value: actionButtonValue(d.actionId) };
      if (d.requireReason) blocks.push(context('Approving asks for a reason, which is kept with the approval.'));
      blocks.push({
        type: 'actions',
        block_id: cardBlockId('approval', d.actionId),
        elements: [approve, ...remember, ...(d.editable ? [edit] : []), decline, showArguments],
      });
      return blocks;
    }
    case 'approved':
      return [section(approvedText(d.state.by, d.state.reasons ?? {}, listBudget, scale)), context(`Decided ${slackDate(d.state.at)}`)];
    case 'declined': {
      const reason = d.state.reason?.trim();
      const because = reason ? `: ${escapeMrkdwn(truncate(reason, scaled(2000, scale, 200)))}` : '';
      return [section(`:no_entry: Declined by ${mention(d.state.by)}${because}`), context(`Decided ${slackDate(d.state.at)}`)];
    }
    case 'expired':
      return [section(`:hourglass: Expired: nobody decided before ${slackDate(d.expiresAt)}`)];
    case 'blocked':
      return [section(`:warning: Blocked: ${d.state.reason !== undefined ? `it did not run because ${escapeMrkdwn(truncate(d.state.reason, 500))}` : 'arguments changed since this card was posted, so the approval does not apply'}`)];
    case 'superseded':
      return [section(':arrows_counterclockwise: Superseded: the approval policy changed, so the request was asked again')];
    case 'edited':
      return [section(`:pencil2: Edited by ${mention(d.state.by)}: the edited request replaced this one`)];
    case 'cancelled':
      return [section(`:heavy_multiplication_x: Cancelled${d.state.by !== undefined ? ` by ${mention(d.state.by)}` : ''}`)];
    default:
      return unreachable(d.state, 'approval card state');
  }
}

/** Said on the card itself: otherwise people click Approve until the request quietly expires. */
function unreachableWarning(quorum: number, eligible: number): string {
  const who = eligible === 0 ? 'nobody may approve it' : `only ${eligible} ${eligible === 1 ? 'person' : 'people'} may approve it`;
  return (
    `:warning: *This request can never be approved:* it needs ${quorum} ${quorum === 1 ? 'approval' : 'approvals'} but ${who} ` +
    'under the approval policy. It will expire unless the policy is changed; it can still be declined.'
  );
}

/** The header: the call in words (the tool's describe(), else its name in words). */
function titleOf(d: ApprovalCardData): string {
  return d.title?.trim() ? d.title : humanizeWords(d.toolName);
}

/** "Approved by @bob: reason" for each approver who gave one; the rest listed together. */
function approvedText(by: readonly string[], reasons: Readonly<Record<string, string>>, listBudget: number, scale: number): string {
  const withReason = by.filter((u) => reasons[u]?.trim());
  const without = by.filter((u) => !reasons[u]?.trim());
  const lines: string[] = [];
  if (without.length > 0 || withReason.length === 0) lines.push(`Approved by ${humanList(without.map(mention), { maxChars: listBudget })}`);
  const reasonBudget = Math.floor(scaled(2000, scale, 200) / Math.max(1, withReason.length));
  for (const u of withReason) lines.push(`Approved by ${mention(u)}: ${escapeMrkdwn(truncate(reasons[u]!.trim(), Math.max(50, reasonBudget)))}`);
  return `:white_check_mark: ${lines.join('\n')}`;
}
