/** The Web API's error code (`missing_scope`, `already_reacted`, …) of a WebClient error, if it carries one. */
export function slackErrorCode(error: unknown): string | undefined {
  const data = (error as { data?: { error?: unknown } } | null)?.data;
  return typeof data?.error === 'string' ? data.error : undefined;
}
