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
