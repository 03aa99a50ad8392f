/**
 * A `<!date^…>` token: Slack shows it in each reader's own time zone, and clients that cannot
 * render it show the ISO fallback.
 */
export function slackDate(date: Date, format = '{date_short_pretty} {time}'): string {
  const ms = date.getTime();
  if (!Number.isFinite(ms)) return 'an unknown time';
  return `<!date^${Math.floor(ms / 1000)}^${format}|${date.toISOString()}>`;
}
