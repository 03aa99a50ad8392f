import type { JSONSchema7, LanguageModelV3CallOptions } from '@ai-sdk/provider';

/** A tool the model was offered in this call: its name, what it does and its input's JSON Schema. */
export interface OfferedTool {
  name: string;
  description?: string;
  inputSchema: JSONSchema7;
}

/** The tools one call may use, by name. */
export type Toolbox = ReadonlyMap<string, OfferedTool>;

/** What the call offered, narrowed by its toolChoice. */
export function toolboxOf(call: LanguageModelV3CallOptions): Toolbox {
  const offered = (call.tools ?? []).flatMap((t) =>
    t.type === 'function' ? [{ name: t.name, inputSchema: t.inputSchema, ...(t.description ? { description: t.description } : {}) }] : [],
  );
  const choice = call.toolChoice;
  const usable = choice?.type === 'none' ? [] : choice?.type === 'tool' ? offered.filter((t) => t.name === choice.toolName) : offered;
  return new Map(usable.map((t) => [t.name, t]));
}
