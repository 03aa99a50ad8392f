import type { Button, KnownBlock } from '@slack/types';
import { escapeMrkdwn } from '../mrkdwn/escape-mrkdwn.js';
import { inlineCode } from '../mrkdwn/inline-code.js';
import { LIMITS, truncate, truncateMrkdwn } from './limits.js';
import { ACTION_IDS, cardBlockId } from './action-ids.js';
import { approvalButtonValue } from './button-value.js';
import type { ApprovalCardData } from './card-types.js';
import { fitMessage, scaled } from './fit-message.js';
import { jsonCodeBlock } from './json-code-block.js';
import { context, section } from './layout.js';
import { humanList, mention } from './mention.js';
import { whoDecides } from './who-decides.js';
import { slackDate } from './slack-date.js';
import { oneLine, plainText } from './text-objects.js';
import { unreachable } from '../../unreachable.js';
import { rememberButton } from './remember-button.js';
import { limitReasonText } from './limit-reason.js';

const ARGS_TITLE = '*Arguments*\n';

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
  const blocks: KnownBlock[] = [
    { type: 'header', text: plainText(oneLine(`Approval needed: ${d.toolName}`), LIMITS.headerText) },
  ];

  const facts: string[] = [];
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

  const args = jsonCodeBlock(d.args, scaled(LIMITS.sectionText - 200, scale, 300) - ARGS_TITLE.length);
  blocks.push(section(ARGS_TITLE + args.text));
  if (args.truncated) {
    blocks.push(context(`Arguments truncated: showing ${count(args.shown)} of ${count(args.total)} characters`));
  }

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
      const approve: Button = {
        type: 'button',
        action_id: ACTION_IDS.approve,
        text: plainText('Approve'),
        style: 'primary',
        value,
      };
      const decline: Button = {
        type: 'button',
        action_id: ACTION_IDS.decline,
        text: plainText('Decline'),
        style: 'danger',
        value,
      };
      const edit: Button = { type: 'button', action_id: ACTION_IDS.edit, text: plainText('Edit'), value };
      const remember = d.rememberFor !== undefined && d.requester !== undefined ? [rememberButton(value, d.rememberFor)] : [];
      blocks.push({ type: 'actions', block_id: cardBlockId('approval', d.actionId), elements: [approve, ...remember, ...(d.editable ? [edit] : []), decline] });
      return blocks;
    }
    case 'approved':
      return [
        section(`:white_check_mark: Approved by ${humanList(d.state.by.map(mention), { maxChars: listBudget })}`),
        context(`Decided ${slackDate(d.state.at)}`),
      ];
    case 'declined': {
      const reason = d.state.reason?.trim();
      const because = reason ? `: ${escapeMrkdwn(truncate(reason, scaled(2000, scale, 200)))}` : '';
      return [section(`:no_entry: Declined by ${mention(d.state.by)}${because}`), context(`Decided ${slackDate(d.state.at)}`)];
    }
    case 'expired':
      return [section(`:hourglass: Expired: nobody decided before ${slackDate(d.expiresAt)}`)];
    case 'blocked':
      return [section(':warning: Blocked: arguments changed since this card was posted, so the approval does not apply')];
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

function count(n: number): string {
  return n.toLocaleString('en-US');
}
