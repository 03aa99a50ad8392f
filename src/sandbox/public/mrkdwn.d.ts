// Types for the browser module next to this file, so the parser can be tested from TypeScript.

export type MrkdwnNode =
  | { type: 'text'; text: string }
  | { type: 'br' }
  | { type: 'bold' | 'italic' | 'strike' | 'code' | 'pre' | 'quote'; children: MrkdwnNode[] }
  | { type: 'emoji'; name: string; skinTone?: number }
  | { type: 'link'; url: string; label?: string }
  | { type: 'user' | 'channel' | 'usergroup'; id: string; label?: string }
  | { type: 'broadcast'; range: string; label?: string }
  | { type: 'date'; ts: number; format: string; link?: string; fallback: string };

export interface Directory {
  user(id: string): string | undefined;
  usergroup(id: string): string | undefined;
  channel(id: string): string | undefined;
}

export function setEmojiTable(table: { emoji: Record<string, string>; skins: Record<string, string[]> }): void;
export function emojiFor(name: string, skinTone?: number): string | undefined;
export function emojiForName(fullName: string, skinTone?: number): string | undefined;
export function parseMrkdwn(text: string): MrkdwnNode[];
export function formatSlackDate(seconds: number, format: string, now?: number, timeZone?: string): string | undefined;
export function renderMrkdwn(text: string, directory: Directory): unknown;
export function renderPlain(text: string, emoji?: boolean): unknown;
export function renderTextObject(obj: unknown, directory: Directory): unknown;
