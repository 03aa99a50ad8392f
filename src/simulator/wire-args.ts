/**
 * Reading a Web API request the ways Slack accepts one: form-encoded or JSON body, query string,
 * token as a Bearer header or a `token` argument. WebClient sends forms with nested values
 * (blocks, view) as JSON strings; JSON bodies may carry them either way, so both are decoded.
 */
import { SlackApiError, invalidArguments } from './api-error.js';

export type Args = Record<string, unknown>;

const JSON_FIELDS = new Set(['blocks', 'attachments', 'view', 'metadata', 'unfurls', 'user_auth_blocks']);

export function parseWireArgs(raw: string, contentType: string, query: URLSearchParams): Args {
  const args: Args = {};
  for (const [k, v] of query) args[k] = v;
  if (raw.trim() === '') return decodeJsonFields(args);
  if (contentType.includes('application/json')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      throw new SlackApiError('invalid_json');
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new SlackApiError('json_not_object');
    return decodeJsonFields({ ...args, ...(parsed as Args) });
  }
  if (contentType !== '' && !contentType.includes('application/x-www-form-urlencoded')) {
    throw new SlackApiError('invalid_form_data');
  }
  for (const [k, v] of new URLSearchParams(raw)) args[k] = v;
  return decodeJsonFields(args);
}

function decodeJsonFields(args: Args): Args {
  for (const key of JSON_FIELDS) {
    const value = args[key];
    if (typeof value !== 'string' || value.trim() === '') continue;
    try {
      args[key] = JSON.parse(value);
    } catch {
      // Left as a string; the method reports it in Slack's words (e.g. invalid_blocks_format).
    }
  }
  return args;
}

export function tokenOf(authorization: string | undefined, args: Args): string | undefined {
  if (authorization !== undefined) return /^Bearer\s+(\S+)$/i.exec(authorization.trim())?.[1];
  return typeof args.token === 'string' && args.token !== '' ? args.token : undefined;
}

export function optString(args: Args, key: string): string | undefined {
  const v = args[key];
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  throw invalidArguments(`${key} must be a string [json-pointer:/${key}]`);
}

export function reqString(args: Args, key: string, missing?: string): string {
  const v = optString(args, key);
  if (v === undefined) throw missing ? new SlackApiError(missing) : invalidArguments(`missing required field: ${key}`);
  return v;
}

export function truthy(v: unknown): boolean {
  return v === true || v === 'true' || v === '1' || v === 1;
}
