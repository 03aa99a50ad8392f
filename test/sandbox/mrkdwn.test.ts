import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { emojiTable } from '../../src/sandbox/emoji-table.js';
import { emojiFor, emojiForName, formatSlackDate, parseMrkdwn, setEmojiTable, type MrkdwnNode } from '../../src/sandbox/public/mrkdwn.js';

/** The visible text of parsed nodes, with markers for formatting, to compare compactly. */
function show(nodes: MrkdwnNode[]): string {
  return nodes
    .map((n) => {
      switch (n.type) {
        case 'text':
          return n.text;
        case 'br':
          return '⏎';
        case 'bold':
        case 'italic':
        case 'strike':
        case 'code':
        case 'pre':
        case 'quote':
          return `[${n.type}:${show(n.children)}]`;
        case 'emoji':
          return `[emoji:${n.name}${n.skinTone ? `/${n.skinTone}` : ''}]`;
        case 'link':
          return `[link:${n.url}|${n.label ?? ''}]`;
        case 'user':
        case 'channel':
        case 'usergroup':
          return `[${n.type}:${n.id}]`;
        case 'broadcast':
          return `[broadcast:${n.range}]`;
        case 'date':
          return `[date:${n.ts}:${n.format}|${n.fallback}]`;
      }
    })
    .join('');
}

/** Every `:shortcode:` in the bot's own source strings (src/slack, src/agent, src/approvals). */
function shortcodesInSource(): Set<string> {
  const found = new Set<string>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts')) for (const m of readFileSync(path, 'utf8').matchAll(/[`'" ]:([a-z][a-z0-9_+-]*):[`'" ]/g)) found.add(m[1]!);
    }
  };
  for (const dir of ['src/slack', 'src/agent', 'src/approvals']) walk(dir);
  return found;
}

describe('the UI’s mrkdwn parser', () => {
  beforeAll(() => setEmojiTable(emojiTable()));

  it('reads the approval card’s formatting', () => {
    expect(show(parseMrkdwn('*Requested by:* <@U0ALICE>\n*Expires:* <!date^1726133698^{date_short_pretty} {time}|2024-09-12T09:34:58Z>'))).toBe(
      '[bold:Requested by:] [user:U0ALICE]⏎[bold:Expires:] [date:1726133698:{date_short_pretty} {time}|2024-09-12T09:34:58Z]',
    );
  });

  it('keeps code blocks verbatim (no formatting inside) and decodes entities only into text', () => {
    const nodes = parseMrkdwn('*Arguments*\n```\n{ "note": "*not bold* &lt;script&gt;alert(1)&lt;/script&gt; &amp;amp;" }\n```\nafter');
    expect(show(nodes)).toBe('[bold:Arguments][pre:{ "note": "*not bold* <script>alert(1)</script> &amp;" }]after');
  });

  it('handles italic, strike, inline code, links, groups, broadcasts and emoji', () => {
    expect(show(parseMrkdwn('_it_ ~gone~ `a*b*c` <https://example.com/?a=1&amp;b=2|the site> <!subteam^S0FINANCE> <!here> :white_check_mark: done'))).toBe(
      '[italic:it] [strike:gone] [code:a*b*c] [link:https://example.com/?a=1&b=2|the site] [usergroup:S0FINANCE] [broadcast:here] [emoji:white_check_mark] done',
    );
  });

  it('draws every shortcode Slack would, by Slack’s own names, with skin tones; an unknown name stays text', () => {
    expect(show(parseMrkdwn(':outbox_tray: :pencil2: :repeat: :arrow_double_up: :thumbsup: :+1: :thinking_face: :wave::skin-tone-3: :not_an_emoji:'))).toBe(
      '[emoji:outbox_tray] [emoji:pencil2] [emoji:repeat] [emoji:arrow_double_up] [emoji:thumbsup] [emoji:+1] [emoji:thinking_face] [emoji:wave/3] :not_an_emoji:',
    );
    expect([emojiFor('outbox_tray'), emojiFor('pencil2'), emojiFor('repeat'), emojiFor('arrow_double_up'), emojiFor('white_check_mark')]).toEqual(['📤', '✏️', '🔁', '⏫', '✅']);
    expect(emojiFor('thumbsup')).toBe('👍');
    expect(emojiFor('+1', 2)).toBe('👍🏻');
    expect(emojiFor('wave', 6)).toBe('👋🏿');
    // No tones for an emoji without them: the plain one.
    expect(emojiFor('rocket', 4)).toBe('🚀');
    expect(emojiForName('thumbsup::skin-tone-5')).toBe('👍🏾');
    expect(emojiFor('flag-de')).toBe('🇩🇪');
    expect(emojiFor('toString')).toBeUndefined();
  });

  it('knows every shortcode the bot writes', () => {
    const used = [...shortcodesInSource()];
    expect(used).toEqual(expect.arrayContaining(['outbox_tray', 'pencil2', 'repeat', 'arrow_double_up', 'white_check_mark']));
    expect(used.filter((name) => emojiFor(name) === undefined)).toEqual([]);
  });

  it('does not format inside words or across lines', () => {
    expect(show(parseMrkdwn('snake_case_name 2*3*4 *not\nbold*'))).toBe('snake_case_name 2*3*4 *not⏎bold*');
  });

  it('reads quotes, written as > or as the escaped &gt;', () => {
    expect(show(parseMrkdwn('&gt; quoted *bold*\nnext'))).toBe('[quote:quoted [bold:bold]]next');
  });

  it('formats <!date> tokens like Slack, in the reader’s zone', () => {
    const ts = Date.UTC(2024, 8, 12, 9, 34, 58) / 1000;
    expect(formatSlackDate(ts, '{date_num} {date} {date_short} {date_long} {time}', Date.UTC(2025, 0, 1), 'UTC')).toBe(
      '2024-09-12 September 12th, 2024 Sep 12, 2024 Thursday, September 12th, 2024 9:34 AM',
    );
    expect(formatSlackDate(ts, '{date_pretty} at {time_secs}', ts * 1000 + 3_600_000, 'UTC')).toBe('today at 9:34:58 AM');
    expect(formatSlackDate(ts, '{date_short_pretty}', ts * 1000 - 86_400_000, 'UTC')).toBe('tomorrow');
    expect(formatSlackDate(ts, '{ago}', ts * 1000 + 180_000, 'UTC')).toBe('3 minutes ago');
    expect(formatSlackDate(Number.NaN, '{date}')).toBeUndefined();
  });
});
