/**
 * The instruction auto-resume gives the agent's own model when its cheap readings
 * of a free-text reply fail. The built-in demo model recognises the prompt by it,
 * so both import it from here rather than keeping copies that could drift apart.
 */
export const EXTRACTION_INSTRUCTION =
  'Extract the answer from the user message as JSON matching this JSON Schema. Reply with the JSON only.';

/** The system prompt for one extraction: the instruction, then one `Schema:` and one `Question:` line. */
export function extractionPrompt(jsonSchema: string, question: unknown): string {
  return `${EXTRACTION_INSTRUCTION}\nSchema: ${jsonSchema}\nQuestion: ${JSON.stringify(question ?? null)}`;
}
