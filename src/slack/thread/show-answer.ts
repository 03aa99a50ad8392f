import type { SectionBlock } from '@slack/types';
import { section } from '../kit/text-objects.js';
import { LIMITS, truncateMrkdwn } from '../kit/limits.js';
import { markdownToMrkdwn } from '../kit/mrkdwn/markdown-to-mrkdwn.js';
import type { SlackContext, ThreadTarget } from '../context.js';
import { splitMessage } from '../kit/mrkdwn/split-message.js';
import { blocksAsJson } from '../transport/slack-web-client.js';
import { errorReference } from '../kit/error-reference.js';
import { hasAgentErrorCode } from '../../agent/errors.js';
import { inlineCode } from '../kit/mrkdwn/escape-mrkdwn.js';

/** Room left under msg_blocks_too_long for JSON escaping and block overhead. */
const MESSAGE_JSON_BUDGET = LIMITS.messageBlocksJson - 1_000;
const NOTIFICATION_CHARS = 400;

/**
 * The model's Markdown as mrkdwn sections, grouped into as few messages as
 * Slack accepts: each section under the section limit, each message under the
 * block count and serialized-size limits.
 */
export function answerMessages(markdown: string): Array<{ text: string; blocks: SectionBlock[] }> {
  const chunks = splitMessage(markdownToMrkdwn(markdown), LIMITS.sectionText);
  const messages: Array<{ text: string; blocks: SectionBlock[] }> = [];
  let blocks: SectionBlock[] = [];
  const flush = () => {
    if (blocks.length === 0) return;
    const first = blocks[0]!.text?.text ?? '';
    messages.push({ text: truncateMrkdwn(first, NOTIFICATION_CHARS), blocks });
    blocks = [];
  };
  for (const chunk of chunks) {
    const block = section(chunk);
    if (blocks.length >= LIMITS.messageBlocks || JSON.stringify([...blocks, block]).length > MESSAGE_JSON_BUDGET) flush();
    blocks.push(block);
  }
  flush();
  return messages;
}

/** The metadata event type that marks a message as part of a run's answer (see answerMetadata). */
export const ANSWER_EVENT_TYPE = 'approval_bot_answer';

/**
 * Posts the model's Markdown in as many messages as it takes. With `answer`,
 * each message carries the run id and its part number as Slack message
 * metadata, so whoever posts a kept answer after a stop can see which parts
 * are already in the thread (see showKeptResult) and post only the rest.
 */
export async function showAnswer(ctx: SlackContext, target: ThreadTarget, markdown: string, answer?: { runId: string }, skip: ReadonlySet<number> = new Set()): Promise<void> {
  const messages = answerMessages(markdown);
  for (const [part, message] of messages.entries()) {
    if (skip.has(part)) continue;
    await ctx.client.chat.postMessage({
      channel: target.channel,
      ...(target.threadTs ? { thread_ts: target.threadTs } : {}),
      text: message.text,
      blocks: blocksAsJson(message.blocks),
      ...(answer ? { metadata: { event_type: ANSWER_EVENT_TYPE, event_payload: { run_id: answer.runId, part, parts: messages.length } } } : {}),
    });
  }
}

/**
 * Tells the thread something failed, with a reference that is also in the
 * log line; the details stay in the log, where only operators see them.
 */
export async function showError(ctx: SlackContext, target: ThreadTarget, error: unknown, what: string): Promise<string> {
  const ref = errorReference();
  ctx.logger.error({ err: error, ref, channel: target.channel, threadTs: target.threadTs }, what);
  try {
    await ctx.client.chat.postMessage({
      channel: target.channel,
      ...(target.threadTs ? { thread_ts: target.threadTs } : {}),
      text: runFailureText(error, ref),
    });
  } catch (failed) {
    ctx.logger.error({ err: failed, ref }, 'could not post the error message either');
  }
  return ref;
}

/**
 * What a thread is told when its run failed. A model that did not answer is
 * named, with the HTTP status its provider gave, so whoever runs the bot knows
 * where to look (a key, a quota, an outage); the provider's own message stays
 * in the log, as it can quote part of the key. Anything else is only a reference.
 */
export function runFailureText(error: unknown, ref: string): string {
  if (hasAgentErrorCode(error, 'MODEL_CALL_FAILED')) {
    const model = typeof error.details.model === 'string' ? error.details.model : 'the model';
    const status = typeof error.details.statusCode === 'number' ? ` (HTTP ${error.details.statusCode})` : '';
    return `:warning: Something went wrong while working on this: the model ${inlineCode(model)} did not answer${status}. Reference: \`${ref}\``;
  }
  return `:warning: Something went wrong while working on this. Reference: \`${ref}\``;
}
