import type { JSONSchema7, JSONSchema7Definition } from '@ai-sdk/provider';
import { code, list } from './format.js';
import { asRecord } from './json-values.js';
import type { Reply } from './plan-reply.js';
import type { OfferedTool, Toolbox } from './toolbox.js';
import { normalise } from './words.js';

/*
 * Any tool the demo model has, called by name, so tools it has no phrase for (an MCP server's,
 * a team's own) can be tried without a real model:
 *   call runbooks__search_runbooks with {"query": "printer"}
 *   call runbooks.page_oncall team=support summary=printer on fire
 *   lookup_record id=def-456
 * `call` names a tool; `run`, `use` and a message that starts with a tool's name only do when the
 * name is one of the offered tools, so "run a deploy" is still read as a request. A name with a dot
 * (the policy's `server.tool`) finds the tool `server__tool`. Arguments are a JSON object, or
 * key=value pairs read with the tool's input schema (numbers and booleans where it says so; a
 * value runs to the next key, so it may have spaces, or be quoted). The runtime checks them
 * against the schema like any model's, and a refusal is reported as the tool's error.
 */

const CALL = /^(?:please\s+)?(call|run|use|invoke)\s+(?:the\s+)?(?:tool\s+)?`?([A-Za-z0-9_.:-]+)`?(?:\s+tool\b)?\s*(?:\b(?:with|using)\b)?\s*([\s\S]*)$/i;
const BARE = /^`?([A-Za-z0-9_.:-]+)`?(?:\s+(?:with|using)\b)?\s*([\s\S]*)$/i;

/** A call of a tool by name, or what is wrong with it; undefined when the message is not one. */
export function directCall(raw: string, tools: Toolbox): Reply | undefined {
  const offered = [...tools.values()];
  const text = normalise(raw);
  const called = CALL.exec(text);
  if (called) {
    const tool = resolve(called[2]!, offered);
    if (tool) return callWith(tool, called[3]!);
    // Only "call" is sure to mean a tool; "run the tests" is a request like any other.
    if (called[1]!.toLowerCase() === 'call') {
      return { text: `I have no tool ${code(called[2]!)}. ${toolNames(offered)}`, calls: [] };
    }
    return undefined;
  }
  const bare = BARE.exec(text);
  const tool = bare ? resolve(bare[1]!, offered) : undefined;
  return tool ? callWith(tool, bare![2]!) : undefined;
}

function toolNames(offered: readonly OfferedTool[]): string {
  return offered.length ? `I can call ${list(offered.map((t) => code(t.name)))}.` : 'I have no tools here.';
}

function resolve(name: string, offered: readonly OfferedTool[]): OfferedTool | undefined {
  const exact = offered.find((t) => t.name === name);
  if (exact) return exact;
  // The policy names an MCP tool `server.tool`; the agent knows it as `server__tool`.
  const dotted = name.includes('.') ? name.replace('.', '__') : undefined;
  return dotted ? offered.find((t) => t.name === dotted) : undefined;
}

function callWith(tool: OfferedTool, rawArgs: string): Reply {
  const parsed = readArguments(rawArgs.trim().replace(/^`{1,3}(?:json)?\s*|\s*`{1,3}$/g, '').trim(), tool.inputSchema);
  if (typeof parsed === 'string') {
    return { text: `I could not read the arguments for ${code(tool.name)}: ${parsed}. Write them as JSON (${code('{"key": "value"}')}) or as ${code('key=value')} pairs.`, calls: [] };
  }
  return { text: '', calls: [{ toolName: tool.name, input: parsed }] };
}

/** The arguments as an object, or why they cannot be read. */
function readArguments(text: string, schema: JSONSchema7): Record<string, unknown> | string {
  if (text === '') return {};
  if (text.startsWith('{')) {
    let value: unknown;
    try {
      value = JSON.parse(text.replace(/[“”]/g, '"'));
    } catch (error) {
      return `that is not valid JSON (${(error as Error).message})`;
    }
    return asRecord(value) ?? 'the JSON must be an object';
  }
  const keys = [...text.matchAll(/(?:^|\s)([A-Za-z_][\w.-]*)\s*=/g)];
  if (keys.length === 0 || text.slice(0, keys[0]!.index).trim() !== '') return `${code(text.slice(0, 60))} is neither JSON nor key=value`;
  const args: Record<string, unknown> = {};
  keys.forEach((key, i) => {
    const start = key.index + key[0].length;
    const end = i + 1 < keys.length ? keys[i + 1]!.index : text.length;
    const name = key[1]!;
    args[name] = valueFor(unquote(text.slice(start, end).trim()), asRecord(schema.properties)?.[name] as JSONSchema7Definition | undefined);
  });
  return args;
}

function unquote(value: string): string {
  const m = /^(["'“‘])([\s\S]*)(["'”’])$/.exec(value);
  return m ? m[2]! : value;
}

/** A key=value value as the schema's type for that key: a number, a boolean, JSON for arrays and objects. */
function valueFor(value: string, schema: JSONSchema7Definition | undefined): unknown {
  const types = typeof schema === 'object' ? [schema.type].flat() : [];
  if ((types.includes('integer') || types.includes('number')) && /^-?\d+(?:\.\d+)?$/.test(value)) return Number(value);
  if (types.includes('boolean') && /^(?:true|false)$/i.test(value)) return value.toLowerCase() === 'true';
  if ((types.includes('array') || types.includes('object')) && /^[[{]/.test(value)) {
    try {
      return JSON.parse(value);
    } catch {
      return value;
    }
  }
  if (types.includes('array')) return value.split(/\s*,\s*/).filter(Boolean);
  return value;
}
