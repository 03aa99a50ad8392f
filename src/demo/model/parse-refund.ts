import type { Intent } from './intent.js';

export function parseRefund(text: string): Intent {
  const because = /\b(?:because|due to|reason:?)\s+(.+)$/is.exec(text);
  const reason = because?.[1]?.trim().replace(/[.!?\s]+$/, '');
  const body = because ? text.slice(0, because.index) : text;
  const orderId = (/\border\s*(?:#|no\.?\s*|number\s*|id\s*)?([A-Za-z0-9][\w-]*)/i.exec(body) ?? /#(\w+)/.exec(body))?.[1];
  const amountCents = amountIn(body);
  return {
    kind: 'refund',
    ...(orderId && /\d/.test(orderId) ? { orderId } : {}),
    ...(amountCents !== undefined ? { amountCents } : {}),
    ...(reason ? { reason } : {}),
  };
}

/** "$25", "$1,500.50", "25 dollars", "2500 cents": always whole cents, never through a float. */
function amountIn(text: string): number | undefined {
  const dollars = /\$\s*(\d[\d,]*(?:\.\d+)?)/.exec(text) ?? /(\d[\d,]*(?:\.\d+)?)\s*(?:dollars?|usd|bucks)\b/i.exec(text);
  if (dollars) return dollarsToCents(dollars[1]!.replace(/,+$/, ''));
  const cents = /(\d[\d,]*)\s*(?:cents?|¢)/i.exec(text);
  if (cents) return wholeNumber(cents[1]!.replace(/,+$/, ''));
  return undefined;
}

export function amountFromAnswer(answer: string): number | undefined {
  const bare = /^\s*(\d[\d,]*(?:\.\d+)?)\s*$/.exec(answer);
  return bare ? dollarsToCents(bare[1]!) : amountIn(answer);
}

function dollarsToCents(raw: string): number | undefined {
  const match = /^(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d{1,2}))?$/.exec(raw);
  if (!match) return undefined;
  const cents = Number(match[1]!.replace(/,/g, '')) * 100 + Number((match[2] ?? '').padEnd(2, '0'));
  return Number.isSafeInteger(cents) ? cents : undefined;
}

function wholeNumber(raw: string): number | undefined {
  if (!/^(?:\d{1,3}(?:,\d{3})+|\d+)$/.test(raw)) return undefined;
  const n = Number(raw.replace(/,/g, ''));
  return Number.isSafeInteger(n) ? n : undefined;
}

export function orderFromAnswer(answer: string): string | undefined {
  const id = (/\border\s*#?\s*([A-Za-z0-9][\w-]*)/i.exec(answer) ?? /#?\b([A-Za-z0-9][\w-]*\d[\w-]*)\b/.exec(answer))?.[1];
  return id && /\d/.test(id) ? id : undefined;
}
