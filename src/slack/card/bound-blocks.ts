import type { KnownBlock } from '@slack/types';
import { escapeMrkdwn } from '../kit/mrkdwn/escape-mrkdwn.js';
import { inlineCode } from '../kit/mrkdwn/inline-code.js';
import { LIMITS, truncate, truncateMrkdwn } from '../kit/limits.js';
import { scaled } from '../kit/fit-message.js';
import { section } from '../kit/layout.js';
import { slackDate } from '../kit/slack-date.js';
import { oneLine } from '../kit/text-objects.js';
import type { CardAskedAgainWhy, CardBound, CardPreview, CardToolChange, CardUnattended } from './card-types.js';

/**
 * What a request's approval is bound to and what holds it, drawn for the people deciding: why it
 * was asked again, a tool its MCP server changed meanwhile, a deny the policy now has for it, the
 * change freezes in force, the agent's stated reason (its words, labelled as such) and the tool's
 * preview. Everything that
 * came from the model, the tool or its server is escaped and cut to a budget that shrinks with
 * `scale` (see fitMessage). `pending`: what holds a request is said only while it waits.
 */
export function boundBlocks(bound: CardBound, pending: boolean, scale: number): KnownBlock[] {
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

export function askedAgainText(again: NonNullable<CardBound['askedAgain']>, scale: number): string {
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
export function deniedNowText(reason: string, max: number): string {
  return `:no_entry: *The approval policy now denies this call:* ${escapeMrkdwn(truncate(oneLine(reason), max))}. Approving it will not run it.`;
}

/** Which change freezes hold the request, and until when. */
export function freezeText(freezes: NonNullable<CardBound['freezes']>): string {
  const each = freezes.slice(0, 3).map((f) => `${inlineCode(truncate(f.name, 80))} ${f.until ? `until ${slackDate(f.until)}` : 'with no end set'}`);
  const more = freezes.length > 3 ? ` and ${freezes.length - 3} more` : '';
  return `:snowflake: *Change freeze in force:* ${each.join(', ')}${more}. Approving follows the freeze's rules; an approval given before it began does not run during it.`;
}

/** The model's words for why it makes the call, quoted and labelled as its own. */
export function statedReasonText(reason: string, max: number): string {
  const quoted = escapeMrkdwn(truncate(reason.trim(), max)).split('\n').map((line) => `>${line}`).join('\n');
  return `:speech_balloon: *The agent's stated reason* (its own words, not checked):\n${quoted}`;
}

/** The tool's preview: fields as they are now, the diff as now → after; or that it failed. */
export function previewBlocks(preview: CardPreview, scale: number): KnownBlock[] {
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
