import { escapeMrkdwn } from './escape-mrkdwn.js';

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
