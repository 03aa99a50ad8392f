/**
 * response_url: the per-interaction webhook Bolt's `respond()` posts to. It can answer the clicker
 * privately (the default), post in the channel, or replace or delete the message clicked on.
 * Like Slack's, each URL works five times within thirty minutes.
 */
import { randomBytes } from 'node:crypto';
import { wireMessage } from '../interaction-payloads.js';
import { botAuthor } from '../workspace.js';
import { SlackApiError, truthy, type Args } from '../../simulator/index.js';
import { messageContent } from './content.js';
import type { SandboxStore } from '../store.js';

export interface ResponseTarget {
  channel: string;
  user: string;
  messageTs?: string;
  isEphemeral?: boolean;
  threadTs?: string;
}

const USES = 5;
const LIFETIME_MS = 30 * 60_000;

export class ResponseUrls {
  private targets = new Map<string, ResponseTarget & { uses: number; createdAt: number }>();

  create(origin: string, target: ResponseTarget): string {
    const id = randomBytes(12).toString('hex');
    this.targets.set(id, { ...target, uses: 0, createdAt: Date.now() });
    return `${origin}/response-url/${id}`;
  }

  handle(id: string, args: Args, store: SandboxStore): Record<string, unknown> {
    const target = this.targets.get(id);
    if (!target || Date.now() - target.createdAt > LIFETIME_MS) throw new SlackApiError('expired_url');
    if (++target.uses > USES) throw new SlackApiError('used_url');
    const original = target.messageTs;
    if (truthy(args.delete_original)) {
      if (original !== undefined) {
        if (target.isEphemeral) store.removeEphemeral(original);
        else store.deleteMessage(target.channel, original);
      }
      return { ok: true };
    }
    const content = messageContent(args, true);
    if (truthy(args.replace_original) && original !== undefined) {
      const patch = { text: content.text ?? '', blocks: content.blocks ?? [] };
      if (target.isEphemeral) store.replaceEphemeral(original, patch);
      else if (!store.updateMessage(target.channel, original, patch)) throw new SlackApiError('message_not_found');
      return { ok: true };
    }
    if (args.response_type === 'in_channel') {
      const message = store.addMessage({
        channel: target.channel,
        text: content.text ?? '',
        ...botAuthor(),
        ...(content.blocks ? { blocks: content.blocks } : {}),
        ...(target.threadTs !== undefined ? { thread_ts: target.threadTs } : {}),
      });
      return { ok: true, message: wireMessage(message) };
    }
    store.addEphemeral({
      channel: target.channel,
      user: target.user,
      text: content.text ?? '',
      ...(content.blocks ? { blocks: content.blocks } : {}),
      ...(target.threadTs !== undefined ? { thread_ts: target.threadTs } : {}),
    });
    return { ok: true };
  }
}
