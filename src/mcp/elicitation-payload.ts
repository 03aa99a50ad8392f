import { z } from 'zod';

/** One field of a form elicitation: MCP allows a flat object of primitive properties only. */
export type ElicitationField =
  | { type: 'string'; title?: string; description?: string; default?: string; minLength?: number; maxLength?: number; format?: 'email' | 'uri' | 'date' | 'date-time' }
  | { type: 'number' | 'integer'; title?: string; description?: string; default?: number; minimum?: number; maximum?: number }
  | { type: 'boolean'; title?: string; description?: string; default?: boolean }
  | { type: 'enum'; title?: string; description?: string; default?: string; options: Array<{ value: string; label: string }> }
  | { type: 'multi-enum'; title?: string; description?: string; default?: string[]; options: Array<{ value: string; label: string }>; minItems?: number; maxItems?: number };

export interface ElicitationForm {
  fields: Array<{ name: string; required: boolean; field: ElicitationField }>;
}

/**
 * What an MCP tool call suspends with when its server asks the user something (stored with the
 * suspension, drawn as a card in the thread). `waitsInCallUntil` is set when the server waits
 * inside the call for the answer: an answer after that time, or after a restart of the bot,
 * cannot reach it. Without it (a server that refused the call until the user visited a URL), the
 * answer survives restarts like any suspension and the call is made again once it comes.
 */
export type McpElicitationPayload = {
  kind: 'mcp-elicitation';
  server: string;
  /** The tool's name on its server. */
  tool: string;
  message: string;
  waitsInCallUntil?: string;
} & ({ mode: 'form'; form: ElicitationForm } | { mode: 'url'; url: string; elicitationId: string });

/** The answer, as the MCP client returns it to the server: accept (with the form's values), decline or cancel. */
export const elicitationAnswerSchema = z.strictObject({
  action: z.enum(['accept', 'decline', 'cancel']),
  content: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.array(z.string())])).optional(),
});

export type ElicitationAnswer = z.output<typeof elicitationAnswerSchema>;

export function isElicitationPayload(value: unknown): value is McpElicitationPayload {
  return typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'mcp-elicitation';
}
