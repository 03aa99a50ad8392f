/** Rich text: Slack echoes what a human typed both as `text` (mrkdwn-escaped) and as a rich_text block. */
import type { JsonObject } from './json.js';
import { randomId } from './random-ids.js';

/** Slack's own rich_text block ids are short opaque strings that vary per message. */
function richTextBlockId(): string {
  return randomId('', 4, 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=');
}

function unescapeMrkdwn(s: string): string {
  return s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}

const TOKEN = /<(@[UW][A-Z0-9]+|#[CG][A-Z0-9]+|!subteam\^[A-Z0-9]+|!here|!channel|!everyone|https?:\/\/[^>|]+)(?:\|([^>]*))?>/g;

/** Turns message `text` into the `rich_text_section` elements Slack would attach to it. */
export function richTextElements(text: string): JsonObject[] {
  const out: JsonObject[] = [];
  let last = 0;
  const pushText = (s: string) => {
    if (s.length > 0) out.push({ type: 'text', text: unescapeMrkdwn(s) });
  };
  for (const m of text.matchAll(TOKEN)) {
    pushText(text.slice(last, m.index));
    last = m.index + m[0].length;
    const ref = m[1] ?? '';
    const label = m[2];
    if (ref.startsWith('@')) out.push({ type: 'user', user_id: ref.slice(1) });
    else if (ref.startsWith('#')) out.push({ type: 'channel', channel_id: ref.slice(1) });
    else if (ref.startsWith('!subteam^')) out.push({ type: 'usergroup', usergroup_id: ref.slice('!subteam^'.length) });
    else if (ref.startsWith('!')) out.push({ type: 'broadcast', range: ref.slice(1) });
    else out.push(label !== undefined ? { type: 'link', url: ref, text: label } : { type: 'link', url: ref });
  }
  pushText(text.slice(last));
  return out;
}

export function richTextBlocks(text: string, blockId = richTextBlockId()): JsonObject[] {
  return [
    {
      type: 'rich_text',
      block_id: blockId,
      elements: [{ type: 'rich_text_section', elements: richTextElements(text) }],
    },
  ];
}
