/** Slack answers a failed call with HTTP 200 and `{ ok: false, error }`, sometimes with detail. */
export class SlackApiError extends Error {
  constructor(
    readonly code: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(code);
  }
}

/** `invalid_arguments` with the `[ERROR] …` lines Slack lists in response_metadata.messages. */
export function invalidArguments(...messages: string[]): SlackApiError {
  return new SlackApiError('invalid_arguments', { response_metadata: { messages: messages.map((m) => `[ERROR] ${m}`) } });
}
