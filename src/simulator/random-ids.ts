/** Ids shaped like the ones Slack hands out, unique per call. */
import { randomBytes } from 'node:crypto';

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

export function randomId(prefix: string, length: number, alphabet = ALNUM): string {
  const bytes = randomBytes(length);
  let out = prefix;
  for (const b of bytes) out += alphabet[b % alphabet.length];
  return out;
}

/** Unique per call: each built envelope is a new delivery unless the caller pins `eventId`. */
export function newEventId(): string {
  return randomId('Ev0', 9);
}

/** Real trigger ids are `<digits>.<digits>.<32 hex>`; the simulator checks that shape. */
export function newTriggerId(): string {
  const digits = (n: number) => randomId('', n, '0123456789').replace(/^0/, '1');
  return `${digits(13)}.${digits(10)}.${randomBytes(16).toString('hex')}`;
}


export function randomHex(bytes: number): string {
  return randomBytes(bytes).toString('hex');
}
