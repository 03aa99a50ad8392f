/**
 * Escapes the three characters Slack treats as control characters in mrkdwn.
 *
 * `&` goes first so the entities produced for `<` and `>` are not escaped twice.
 * Without a raw `<`, no `<!channel>`, `<!here>`, `<@U…>` or `<!subteam^…>` token can
 * form, so model- or user-controlled text can never notify anyone.
 */
export function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * Renders text as an inline code span. Slack has no way to escape a backtick inside one, so
 * backticks become a look-alike rather than ending the span early.
 */
export function inlineCode(text: string): string {
  return '`' + escapeMrkdwn(text.replace(/`/g, 'ˋ').replace(/\n/g, ' ')) + '`';
}

/**
 * Wraps raw text in a Slack code block, escaped.
 *
 * Slack ends a code block at the next ``` wherever it appears, so a run of backticks in the
 * content (a JSON string holding Markdown, say) would end the block early and turn the rest
 * into formatted text. A zero-width space between the backticks keeps them visible and inert.
 */
export function codeFence(raw: string): string {
  const body = escapeMrkdwn(raw).replace(/`{3,}/g, (run) => run.split('').join('\u200b'));
  return '```\n' + body + '\n```';
}

/**
 * A `<!date^…>` token: Slack shows it in each reader's own time zone, and clients that cannot
 * render it show the ISO fallback.
 */
export function slackDate(date: Date, format = '{date_short_pretty} {time}'): string {
  const ms = date.getTime();
  if (!Number.isFinite(ms)) return 'an unknown time';
  return `<!date^${Math.floor(ms / 1000)}^${format}|${date.toISOString()}>`;
}
