/** Interactivity wire format: one form field holding the JSON payload. */
export function formBody(payload: unknown): string {
  return `payload=${encodeURIComponent(JSON.stringify(payload))}`;
}
