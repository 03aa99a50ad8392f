import type { LanguageModelV3Message } from '@ai-sdk/provider';

/** The text of a user message; files and images say nothing to the demo model. */
export function textOf(message: Extract<LanguageModelV3Message, { role: 'user' }>): string {
  return message.content.map((p) => (p.type === 'text' ? p.text : '')).join('\n');
}

/** Slack wraps mentions, channels and links in angle brackets and escapes &, < and >. */
export function normalise(text: string): string {
  return text
    .replace(/<[@!#][^>]*>/g, ' ')
    .replace(/<[^|>]+\|([^>]+)>/g, '$1')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')
    .trim();
}

/** Splits on spaces and commas and peels Slack formatting and punctuation off each word. */
export function words(text: string): string[] {
  return text
    .split(/[\s,;]+/)
    .map((w) => w.replace(/^[`*_~"'“”‘’(\[]+/, '').replace(/[`*_~"'“”‘’)\].!?:]+$/, ''))
    .filter(Boolean);
}
