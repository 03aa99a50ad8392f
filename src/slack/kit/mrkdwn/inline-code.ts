import { escapeMrkdwn } from './escape-mrkdwn.js';

/**
 * Renders text as an inline code span. Slack has no way to escape a backtick inside one, so
 * backticks become a look-alike rather than ending the span early.
 */
export function inlineCode(text: string): string {
  return '`' + escapeMrkdwn(text.replace(/`/g, 'ˋ').replace(/\n/g, ' ')) + '`';
}
