import type { Button, KnownBlock, ConfirmationDialog } from '@slack/types';
import { escapeMrkdwn, inlineCode, slackDate } from '../kit/mrkdwn/escape-mrkdwn.js';
import { LIMITS, truncate, truncateMrkdwn, fitMessage, scaled, context, section, oneLine, plainText } from '../kit/limits.js';
import { ACTION_IDS, cardBlockId, actionButtonValue, approvalButtonValue } from '../kit/action-ids.js';
import type { ApprovalCardData, OverLimit, CardAskedAgainWhy, CardBound, CardPreview, CardToolChange, CardUnattended, RememberedUnusedNote } from './card-types.js';
import { humanizeWords } from '../kit/format-arg-value.js';
import { callFieldBlocks, describeArgs } from '../kit/describe-args.js';
import { humanList, mention, whoDecides } from '../kit/mention.js';
import { unreachable } from '../../unreachable.js';

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

interface ApproveButtonOptions {
  /** The button's value (request id + fingerprint prefix). */
  value: string;
  /** What is being approved, in words (the card's title). */
  title: string;
  /** `high`: Slack asks the clicker to confirm before the click is sent. */
  risk?: 'low' | 'high';
  /** The click opens a modal asking for the reason instead of approving at once. */
  requireReason?: boolean;
}

/**
 * The card's Approve button. A high-risk call is confirmed in Slack's own dialog first; one whose
 * policy wants a reason has its own action id, so the click opens the reason modal and never
 * decides on its own (the runtime refuses an approval without a reason anyway).
 */
function approveButton(options: ApproveButtonOptions): Button {
  const button: Button = {
    type: 'button',
    action_id: options.requireReason ? ACTION_IDS.approveWithReason : ACTION_IDS.approve,
    text: plainText(options.requireReason ? 'Approve…' : 'Approve'),
    style: 'primary',
    value: options.value,
  };
  if (options.risk === 'high') button.confirm = highRiskConfirm(options.title);
  return button;
}

/** Slack's own "are you sure?" before a high-risk approval is sent, naming the action. */
export function highRiskConfirm(title: string): ConfirmationDialog {
  const what = truncate(oneLine(title), 200);
  return {
    title: plainText('Approve a high-risk action?', LIMITS.confirmTitle),
    text: plainText(`You are approving: ${what}. This is marked high-risk; it runs as soon as the approval is complete.`, LIMITS.confirmText),
    confirm: plainText('Approve', LIMITS.confirmButton),
    deny: plainText('Cancel', LIMITS.confirmButton),
    style: 'danger',
  };
}

/**
 * Why a card asks more than usual, one line per limit the request went over, e.g.
 * "*Over the limit:* $1,350.00 of `issue_refund` by @bob in the last 24h exceeds $1,000.00 → 2 approvals".
 * An amount whose argument is named in cents (`amountCents`) is shown as dollars.
 */
function limitReasonText(hit: OverLimit, toolName: string, quorum: number): string {
  const money = hit.sum !== undefined && /cents$/i.test(hit.sum.split('.').pop() ?? '');
  const amount = (n: number) =>
    money
      ? `$${(n / 100).toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`
      : n.toLocaleString('en-US', { maximumFractionDigits: 2 });
  const what =
    hit.sum !== undefined
      ? `${amount(hit.total)} of ${inlineCode(truncate(toolName, 100))}${money ? '' : ` ${inlineCode(truncate(hit.sum, 100))}`}`
      : `${amount(hit.total)} ${hit.total === 1 ? 'call' : 'calls'} of ${inlineCode(truncate(toolName, 100))}`;
  const by = hit.requester === undefined ? ' by everyone' : hit.requester === '' ? '' : ` by ${mention(hit.requester)}`;
  const then = quorum > 1 ? `${quorum} approvals` : 'approval required';
  return `*Over the limit:* ${what}${by} in the last ${windowText(hit.overMs)} exceeds ${amount(hit.above)} → ${then}`;
}

/** The window as a policy would write it: the largest unit that divides it ("24h" rather than "1d"). */
function windowText(ms: number): string {
  for (const [unit, size] of [['d', 86_400_000], ['h', 3_600_000], ['m', 60_000]] as const) {
    if (ms >= (unit === 'd' ? 2 * size : size) && ms % size === 0) return `${ms / size}${unit}`;
  }
  return `${Math.round(ms / 1000)}s`;
}

/**
 * What a request's approval is bound to and what holds it, drawn for the people deciding: why it
 * was asked again, a tool its MCP server changed meanwhile, a deny the policy now has for it, the
 * change freezes in force, the agent's stated reason (its words, labelled as such) and the tool's
 * preview. Everything that
 * came from the model, the tool or its server is escaped and cut to a budget that shrinks with
 * `scale` (see fitMessage). `pending`: what holds a request is said only while it waits.
 */
function boundBlocks(bound: CardBound, pending: boolean, scale: number): KnownBlock[] {
  const blocks: KnownBlock[] = [];
  if (bound.askedAgain) blocks.push(section(askedAgainText(bound.askedAgain, scale)));
  if (pending && bound.toolChanged?.length) {
    blocks.push(section(`:warning: *The MCP server changed this tool since it was asked for:* ${changesText(bound.toolChanged, scaled(1500, scale, 200))}. Approving it asks again under the new definition.`));
  }
  if (pending && bound.deniedNow !== undefined) blocks.push(section(deniedNowText(bound.deniedNow, scaled(500, scale, 80))));
  if (pending && bound.freezes?.length) blocks.push(section(freezeText(bound.freezes)));
  if (bound.statedReason !== undefined) blocks.push(section(statedReasonText(bound.statedReason, scaled(1000, scale, 120))));
  if (bound.preview) blocks.push(...previewBlocks(bound.preview, scale));
  return blocks;
}

/** Why a request replaces an approved one whose call did not run, in words. */
const askedAgainWords: Record<CardAskedAgainWhy, string> = {
  'state-changed': 'the record changed since it was approved',
  'preview-failed': 'the preview failed right before it ran',
  'not-previewed': 'it was approved without the preview it has now',
  'tool-changed': 'the MCP server changed this tool since it was approved',
  freeze: 'a change freeze began after it was approved, and the freeze decides now',
  'policy-changed': 'the approval policy changed after it was approved',
};

function askedAgainText(again: NonNullable<CardBound['askedAgain']>, scale: number): string {
  const what = again.changes?.length ? `: ${changesText(again.changes, scaled(1500, scale, 200))}` : '';
  return `:arrows_counterclockwise: *Asked again:* ${askedAgainWords[again.why]}${what}. Request #${again.fromActionId} was approved, but its call did not run.`;
}

/** What changed in a tool's definition: each part, before → after, escaped and cut to share `budget`. */
function changesText(changes: readonly CardToolChange[], budget: number): string {
  const each = Math.max(40, Math.floor(budget / Math.max(1, changes.length) / 2) - 20);
  const side = (text: string | undefined) => (text === undefined ? '(none)' : `“${escapeMrkdwn(truncate(oneLine(text), each))}”`);
  const text = changes.slice(0, 5).map((c) => `${escapeMrkdwn(truncate(c.part, 40))} ${side(c.before)} → ${side(c.after)}`).join('; ');
  return truncateMrkdwn(text + (changes.length > 5 ? `; and ${changes.length - 5} more` : ''), budget);
}

/** The policy changed to deny the call while it waited: approving it runs nothing. */
function deniedNowText(reason: string, max: number): string {
  return `:no_entry: *The approval policy now denies this call:* ${escapeMrkdwn(truncate(oneLine(reason), max))}. Approving it will not run it.`;
}

/** Which change freezes hold the request, and until when. */
function freezeText(freezes: NonNullable<CardBound['freezes']>): string {
  const each = freezes.slice(0, 3).map((f) => `${inlineCode(truncate(f.name, 80))} ${f.until ? `until ${slackDate(f.until)}` : 'with no end set'}`);
  const more = freezes.length > 3 ? ` and ${freezes.length - 3} more` : '';
  return `:snowflake: *Change freeze in force:* ${each.join(', ')}${more}. Approving follows the freeze's rules; an approval given before it began does not run during it.`;
}

/** The model's words for why it makes the call, quoted and labelled as its own. */
function statedReasonText(reason: string, max: number): string {
  const quoted = escapeMrkdwn(truncate(reason.trim(), max)).split('\n').map((line) => `>${line}`).join('\n');
  return `:speech_balloon: *The agent's stated reason* (its own words, not checked):\n${quoted}`;
}

/** The tool's preview: fields as they are now, the diff as now → after; or that it failed. */
function previewBlocks(preview: CardPreview, scale: number): KnownBlock[] {
  if ('failed' in preview) {
    return [section(`:warning: *The preview failed:* ${escapeMrkdwn(truncate(oneLine(preview.failed), scaled(500, scale, 80)))}. Decide without it, or decline.`)];
  }
  const value = scaled(300, scale, 40);
  const lines: string[] = [];
  for (const f of preview.fields ?? []) lines.push(`*${escapeMrkdwn(truncate(oneLine(f.label), 80))}:* ${shownValue(f.value, value)}`);
  for (const d of preview.diff ?? []) lines.push(`*${escapeMrkdwn(truncate(oneLine(d.label), 80))}:* ${shownValue(d.before, value, '(none)')} → ${shownValue(d.after, value, '(removed)')}`);
  if (lines.length === 0) return [];
  const head = preview.diff?.length ? "*Preview* (the tool's, now → after the call):" : "*Preview* (the tool's, as it is now):";
  return [section(truncateMrkdwn(`${head}\n${lines.join('\n')}`, scaled(LIMITS.sectionText - 100, scale, 400)))];
}

function shownValue(text: string | undefined, max: number, absent = '(empty)'): string {
  if (text === undefined) return `_${absent}_`;
  return text.trim() === '' ? '_(empty)_' : inlineCode(truncate(oneLine(text), max));
}

/** One line for a call on a batch card or in the inbox: asked again, a freeze, the agent's reason, the diff. */
export function boundLine(bound: CardBound, pending: boolean, max: number): string {
  const parts: string[] = [];
  if (bound.askedAgain) parts.push(`:arrows_counterclockwise: asked again: ${askedAgainWords[bound.askedAgain.why]}`);
  if (pending && bound.toolChanged?.length) parts.push(':warning: the MCP server changed this tool since it was asked for');
  if (pending && bound.deniedNow !== undefined) parts.push(`:no_entry: the policy now denies it: ${escapeMrkdwn(truncate(oneLine(bound.deniedNow), 150))}`);
  if (pending && bound.freezes?.length) {
    const f = bound.freezes[0]!;
    parts.push(`:snowflake: freeze ${inlineCode(truncate(f.name, 60))}${f.until ? ` until ${slackDate(f.until)}` : ''}`);
  }
  if (bound.statedReason !== undefined) parts.push(`:speech_balloon: the agent says: “${escapeMrkdwn(truncate(oneLine(bound.statedReason), 200))}”`);
  const preview = bound.preview;
  if (preview && 'failed' in preview) parts.push(':warning: the preview failed');
  else if (preview?.diff?.length) {
    parts.push(preview.diff.slice(0, 3).map((d) => `${escapeMrkdwn(truncate(oneLine(d.label), 40))}: ${shownValue(d.before, 60, '(none)')} → ${shownValue(d.after, 60, '(removed)')}`).join(' · '));
  }
  return truncateMrkdwn(parts.join('\n'), max);
}

/** "no person — by agent `ops` (nightly-cleanup)": who asked when nobody did. */
export function unattendedText(u: CardUnattended): string {
  return `no person — by agent ${inlineCode(truncate(u.agent, 80))}${u.caller !== undefined ? ` (${escapeMrkdwn(truncate(oneLine(u.caller), 100))})` : ''}`;
}

/**
 * Why a card was posted although a remembered approval matched the call, e.g. "*Remembered
 * approval not used:* @alice's remembered approval #3 (until …) stands for 1 approval; this
 * call needs 2 approvals now". `quorum` is the request's.
 */
function rememberedUnusedText(d: RememberedUnusedNote, quorum: number): string {
  const needs = d.why.map((why) => {
    switch (why) {
      case 'quorum':
        return `${quorum} approvals (it stands for ${d.approvals})`;
      case 'approvers':
        return 'approval by the approvers listed above';
      case 'self-approval':
        return 'approval by someone other than the requester';
      case 'reason':
        return 'a reason with each approval';
      case 'risk':
        return 'the care of a high-risk action';
      case 'limits':
        return 'approval under the cumulative limits it goes over';
      default:
        return unreachable(why, 'remembered approval refusal');
    }
  });
  return (
    `:repeat: *Remembered approval not used:* ${mention(d.allowedBy)}'s remembered approval #${d.rememberedGrantId} ` +
    `(until ${slackDate(d.expiresAt)}) does not cover this call, which now needs ${needs.length > 0 ? needs.join(', ') : 'more'}.`
  );
}

/** The card's "Approve and allow for 1 hour": the Approve button's value, a different action id. */
function rememberButton(value: string, rememberForMs: number): Button {
  return {
    type: 'button',
    action_id: ACTION_IDS.approveRemember,
    text: plainText(`Approve and allow for ${rememberDuration(rememberForMs)}`, LIMITS.buttonText),
    value,
  };
}

/**
 * A remembered approval's length in words for the button and the thread: "1 hour", "30 minutes",
 * "1 day", "90 seconds"; the largest unit that divides it evenly, so it is never rounded up.
 */
export function rememberDuration(ms: number): string {
  const units: Array<[number, string]> = [
    [86_400_000, 'day'],
    [3_600_000, 'hour'],
    [60_000, 'minute'],
    [1000, 'second'],
  ];
  for (const [size, name] of units) {
    if (ms >= size && ms % size === 0) {
      const n = ms / size;
      return `${n} ${name}${n === 1 ? '' : 's'}`;
    }
  }
  const seconds = Math.max(1, Math.round(ms / 1000));
  return `${seconds} second${seconds === 1 ? '' : 's'}`;
}
