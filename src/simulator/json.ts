/** JSON values as they travel on Slack's wire, and the two helpers every module needs for them. */
type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };
export type Obj = Record<string, unknown>;

export function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Everything stored or handed out came from or goes to the wire: a JSON round trip copies it several times faster than structuredClone. */
export function clone<T>(v: T): T {
  return v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T);
}

/** The `text` of a text object (`{ type, text }`), if it is one. */
export function textOf(v: unknown): string | undefined {
  return isObj(v) && typeof v.text === 'string' ? v.text : undefined;
}
