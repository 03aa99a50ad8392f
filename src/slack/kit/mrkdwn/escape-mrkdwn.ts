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
