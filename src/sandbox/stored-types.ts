/**
 * The shapes the sandbox's store keeps: messages, ephemerals and views as Slack's API returns
 * them (plus the channel a message lives in), and the changes it announces.
 */
import type { StoredMessage } from '../simulator/index.js';
import type { StateValues } from './block-elements.js';

/** Messages are stored as the simulator stores them: Slack's API shape plus their channel. */
export type { StoredMessage, StoredReaction as Reaction } from '../simulator/index.js';

export interface StoredEphemeral {
  /** Slack calls it `message_ts`; unique like any ts. */
  ts: string;
  channel: string;
  user: string;
  text: string;
  blocks?: unknown[];
  thread_ts?: string;
}

/** A modal in Slack's view object shape. */
export interface StoredView extends Record<string, unknown> {
  id: string;
  hash: string;
  external_id: string;
  root_view_id: string;
  previous_view_id: string | null;
  blocks: unknown[];
}

export interface Notice {
  id: number;
  level: 'info' | 'warn' | 'error';
  text: string;
  at: string;
}

export type StoreChange =
  | { kind: 'message'; channel: string; message: StoredMessage }
  | { kind: 'message_deleted'; channel: string; ts: string }
  | { kind: 'ephemeral'; ephemeral: StoredEphemeral }
  | { kind: 'ephemeral_deleted'; user: string; ts: string }
  | { kind: 'views'; user: string; views: StoredView[] }
  | { kind: 'home'; user: string; view: StoredView }
  | { kind: 'chosen'; user: string; container: string; values: StateValues }
  | { kind: 'notice'; notice: Notice }
  | { kind: 'reset' };

/** Numbered, so a client can tell which changes its snapshot already contains. */
export type SequencedChange = StoreChange & { seq: number };
