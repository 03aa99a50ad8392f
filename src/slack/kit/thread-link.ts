const CHANNEL = /^[CDG][A-Z0-9]{1,40}$/;
const TS = /^\d{1,12}\.\d{1,9}$/;

/**
 * The web link to a card in its thread (what Slack's "Copy link" gives), from the workspace URL
 * auth.test returns; undefined when a part does not look like Slack's, so nothing odd lands in
 * an mrkdwn link.
 */
export function threadLink(teamUrl: string | undefined, card: { channel: string; ts: string; thread_ts: string | null }): string | undefined {
  if (!teamUrl || !/^https?:\/\/[^\s|<>]+\/$/.test(teamUrl)) return undefined;
  if (!CHANNEL.test(card.channel) || !TS.test(card.ts) || (card.thread_ts !== null && !TS.test(card.thread_ts))) return undefined;
  const message = `${teamUrl}archives/${card.channel}/p${card.ts.replace('.', '')}`;
  return card.thread_ts ? `${message}?thread_ts=${card.thread_ts}&cid=${card.channel}` : message;
}
