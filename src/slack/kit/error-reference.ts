import { randomBytes } from 'node:crypto';


/**
 * A short id put both in the log line and in the message people see, so a
 * report of "it said ref 3fa9c2d1" leads straight to the stack trace.
 */
export function errorReference(): string {
  return randomBytes(4).toString('hex');
}

/** What a person sees when handling their click or message failed; the reference is in the log line. */
export function failureText(ref: string): string {
  return `:warning: Something went wrong while handling that. Reference: \`${ref}\``;
}
