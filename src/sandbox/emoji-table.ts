/**
 * The emoji shortcodes the sandbox UI renders, from iamcal's emoji-data (the `emoji-datasource`
 * package): the names Slack itself uses (`:thumbsup:`, `:white_check_mark:`, `:pencil2:`,
 * `:outbox_tray:`, `:skin-tone-2:` …), with each emoji's skin-tone variants. Served to the browser
 * as /emoji.json, built once on first request.
 */
import { createRequire } from 'node:module';

/** One entry of emoji-datasource's emoji.json, as far as the sandbox reads it. */
interface DatasourceEmoji {
  unified: string;
  short_names: string[];
  skin_variations?: Record<string, { unified: string }>;
}

interface EmojiTable {
  /** shortcode → the emoji */
  emoji: Record<string, string>;
  /** shortcode → the emoji with skin tone 2 … 6 (Slack's `::skin-tone-N:`), for those that have tones */
  skins: Record<string, string[]>;
}

/** `1F44D-1F3FB` → 👍🏻 */
function fromUnified(unified: string): string {
  return String.fromCodePoint(...unified.split('-').map((hex) => parseInt(hex, 16)));
}

function buildEmojiTable(data: readonly DatasourceEmoji[]): EmojiTable {
  const emoji: Record<string, string> = {};
  for (const entry of data) for (const name of entry.short_names) emoji[name] = fromUnified(entry.unified);
  // Slack's tones 2 … 6 are the Fitzpatrick modifiers, which the data names skin-tone-2 … skin-tone-6.
  const modifiers = [2, 3, 4, 5, 6].map((tone) => data.find((e) => e.short_names.includes(`skin-tone-${tone}`))?.unified);
  const skins: Record<string, string[]> = {};
  for (const entry of data) {
    const variations = entry.skin_variations;
    if (!variations) continue;
    const toned = modifiers.map((modifier) => {
      const variant = modifier ? variations[modifier] : undefined;
      return variant ? fromUnified(variant.unified) : fromUnified(entry.unified);
    });
    for (const name of entry.short_names) skins[name] = toned;
  }
  return { emoji, skins };
}

let table: EmojiTable | undefined;
let body: string | undefined;

export function emojiTable(): EmojiTable {
  table ??= buildEmojiTable(createRequire(import.meta.url)('emoji-datasource/emoji.json') as DatasourceEmoji[]);
  return table;
}

/** The table as the JSON the UI fetches (about 60 KB). */
export function emojiTableJson(): string {
  body ??= JSON.stringify(emojiTable());
  return body;
}
