/** What a person sees when handling their click or message failed; the reference is in the log line. */
export function failureText(ref: string): string {
  return `:warning: Something went wrong while handling that. Reference: \`${ref}\``;
}
