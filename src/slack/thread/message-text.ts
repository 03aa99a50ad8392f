

/**
 * The text a person wrote, as the model should read it: without the bot's own
 * mention, and with Slack's `&amp;`/`&lt;`/`&gt;` turned back into characters.
 */
export function messageText(raw: string, botUserId: string | undefined): string {
  let text = raw;
  if (botUserId) text = text.split(`<@${botUserId}>`).join(' ');
  return text
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')
    .replace(/[ \t]+/g, ' ')
    .trim();
}

/** "cancel" on its own (any case, optional punctuation) stops the thread's waiting run. */
export function isCancel(text: string): boolean {
  return /^cancel[.!]*$/i.test(text.trim());
}

export function threadIdOf(channel: string, threadTs: string | undefined): string {
  return threadTs ? `${channel}:${threadTs}` : channel;
}

const DECISION_WORDS = [
  'approve', 'approved', 'approving', 'lgtm', 'sgtm', 'yes', 'yep', 'yeah', 'y', 'ok', 'okay', 'go', 'go ahead', 'ship it',
  'do it', 'sure', 'confirmed', 'confirm', 'accept', 'accepted', 'no', 'nope', 'n', 'decline', 'declined', 'deny', 'denied',
  'reject', 'rejected', "don't", 'do not', 'stop',
];
const EMOJI = /^(:\+1:|:thumbsup:|:-1:|:thumbsdown:|:white_check_mark:|:heavy_check_mark:|:x:|:no_entry:|👍|👎|✅|❌)$/u;
const PATTERN = new RegExp(`^(${DECISION_WORDS.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})( it| this| that)?[.!]*$`, 'i');

/**
 * A short reply that reads as a decision ("approved", "lgtm", "no", 👍). Such a reply under a
 * pending card decides nothing (a decision needs the button's fingerprint), so its writer is
 * pointed to the buttons instead of being left to think it counted.
 */
export function looksLikeDecision(text: string): boolean {
  const t = text.trim().replace(/\s+/g, ' ');
  if (t.length === 0 || t.length > 40) return false;
  return PATTERN.test(t) || EMOJI.test(t);
}
