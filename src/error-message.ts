/** The message of anything thrown, for logs and for text a model or a person reads. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
