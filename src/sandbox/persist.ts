/**
 * Keeps the sandbox's messages in a JSON file, so a restarted `npm start` shows the same channel
 * and threads, and a card posted before the restart can still be clicked: the bot's side survives
 * in Postgres, and this lets the sandbox show that off. Only messages are kept; ephemerals, open
 * modals and trigger ids are as short-lived here as they are in Slack.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Logger } from '../logger.js';
import type { SandboxStore, StoredMessage } from './store.js';

const SAVE_DELAY_MS = 200;
const VERSION = 1;

function isMessage(v: unknown): v is StoredMessage {
  if (typeof v !== 'object' || v === null) return false;
  const m = v as Record<string, unknown>;
  return m.type === 'message' && typeof m.channel === 'string' && typeof m.ts === 'string' && typeof m.text === 'string';
}

/** Messages saved by an earlier run; none when the file is missing or not ours. */
export function loadMessages(path: string, logger?: Logger): StoredMessage[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return [];
  }
  try {
    const parsed = JSON.parse(text) as { version?: unknown; messages?: unknown };
    if (parsed.version !== VERSION || !Array.isArray(parsed.messages)) throw new Error('unknown format');
    return parsed.messages.filter(isMessage);
  } catch (error) {
    logger?.warn({ err: error, path }, 'sandbox state file unreadable; starting with an empty workspace');
    return [];
  }
}

/** Saves the store's messages shortly after each change (and on flush), atomically by rename. */
export function persistMessages(store: SandboxStore, path: string, logger?: Logger): { flush(): void; stop(): void } {
  let timer: NodeJS.Timeout | undefined;
  const save = () => {
    timer = undefined;
    try {
      mkdirSync(dirname(path), { recursive: true });
      const temp = `${path}.${process.pid}.tmp`;
      writeFileSync(temp, JSON.stringify({ version: VERSION, messages: store.allMessages() }));
      renameSync(temp, path);
    } catch (error) {
      logger?.warn({ err: error, path }, 'sandbox state could not be saved');
    }
  };
  const unsubscribe = store.onChange((change) => {
    if (change.kind !== 'message' && change.kind !== 'message_deleted' && change.kind !== 'reset') return;
    timer ??= setTimeout(save, SAVE_DELAY_MS);
  });
  return {
    flush() {
      if (timer) {
        clearTimeout(timer);
        save();
      }
    },
    stop() {
      unsubscribe();
      this.flush();
    },
  };
}
