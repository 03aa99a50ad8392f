/**
 * What Slack's composer makes of what someone types: `&`, `<` and `>` escaped, `@alice` turned into
 * `<@U0ALICE>`, `@finance` into `<!subteam^S0FINANCE>`, `#general` into `<#C0GENERAL>`, bare URLs
 * into `<https://…>`, plus the rich_text blocks Slack sends alongside. The bot therefore sees the
 * same text it would get from a real workspace, mentions and escaping included.
 */
import { BOT, GENERAL, findUserByName, findUsergroup } from './workspace.js';

interface TypedMessage {
  /** The message text in Slack's wire format. */
  text: string;
  blocks: unknown[];
  mentionsBot: boolean;
}

type RichElement = Record<string, unknown>;

const TOKEN = /(@[A-Za-z0-9][\w.-]*)|(#[a-z0-9][\w-]*)|(https?:\/\/[^\s<>"]+[^\s<>".,;:!?)\]}'])/g;
const BROADCASTS = new Set(['here', 'channel', 'everyone']);

function escapeText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** The Slack form of one recognised token, or undefined to keep it as typed. */
function convert(token: string): { wire: string; rich: RichElement; bot?: boolean } | undefined {
  if (token.startsWith('@')) {
    const name = token.slice(1);
    if (name.toLowerCase() === BOT.name) return { wire: `<@${BOT.userId}>`, rich: { type: 'user', user_id: BOT.userId }, bot: true };
    const user = findUserByName(name);
    if (user) return { wire: `<@${user.id}>`, rich: { type: 'user', user_id: user.id } };
    const group = findUsergroup(name);
    if (group) return { wire: `<!subteam^${group.id}>`, rich: { type: 'usergroup', usergroup_id: group.id } };
    if (BROADCASTS.has(name)) return { wire: `<!${name}>`, rich: { type: 'broadcast', range: name } };
    return undefined;
  }
  if (token.startsWith('#')) {
    return token.slice(1) === GENERAL.name ? { wire: `<#${GENERAL.id}>`, rich: { type: 'channel', channel_id: GENERAL.id } } : undefined;
  }
  return { wire: `<${escapeText(token)}>`, rich: { type: 'link', url: token } };
}

export function typedMessage(typed: string): TypedMessage {
  let text = '';
  let mentionsBot = false;
  const rich: RichElement[] = [];
  const pushText = (t: string) => {
    if (t === '') return;
    text += escapeText(t);
    const last = rich.at(-1);
    if (last?.type === 'text') last.text = String(last.text) + t;
    else rich.push({ type: 'text', text: t });
  };
  let at = 0;
  for (const match of typed.matchAll(TOKEN)) {
    const token = match[0];
    const index = match.index ?? 0;
    // A token glued to a word ("me@example.com") is not a mention.
    if (token.startsWith('@') || token.startsWith('#')) {
      const before = typed[index - 1];
      if (before !== undefined && /[\w@#]/.test(before)) continue;
    }
    const converted = convert(token);
    if (!converted) continue;
    pushText(typed.slice(at, index));
    text += converted.wire;
    rich.push(converted.rich);
    mentionsBot ||= converted.bot === true;
    at = index + token.length;
  }
  pushText(typed.slice(at));
  const blocks = [{ type: 'rich_text', block_id: richBlockId(), elements: [{ type: 'rich_text_section', elements: rich }] }];
  return { text, blocks, mentionsBot };
}

function richBlockId(): string {
  return Math.random().toString(36).slice(2, 6);
}
