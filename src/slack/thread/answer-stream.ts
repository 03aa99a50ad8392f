import type { SlackContext, StreamRecipient, ThreadTarget } from '../context.js';
import { slackErrorCode, blocksAsJson } from '../transport/slack-web-client.js';
import type { SectionBlock } from '@slack/types';
import { section, LIMITS, truncateMrkdwn } from '../kit/limits.js';
import { markdownToMrkdwn } from '../kit/mrkdwn/markdown-to-mrkdwn.js';
import { splitMessage } from '../kit/mrkdwn/split-message.js';
import { errorReference } from '../kit/error-reference.js';
import { hasAgentErrorCode } from '../../agent/errors.js';
import { inlineCode } from '../kit/mrkdwn/escape-mrkdwn.js';

/** Slack's limit on markdown_text per call; a streamed answer longer than this is posted as messages instead. */
const STREAM_MAX_CHARS = 12_000;
/** Text is sent in pieces of at least this many characters, or after APPEND_EVERY_MS, not per token. */
const APPEND_CHARS = 256;
const APPEND_EVERY_MS = 800;

/**
 * One streamed message (chat.startStream → appendStream → stopStream) carrying the model's text
 * as it arrives. Anything Slack refuses ends the stream: finish() then says the text was not
 * delivered, the half-streamed message is deleted, and the caller posts the whole text the usual
 * way, so an answer is never lost. unknown_method / missing_scope stop streaming for the process.
 */
export class AnswerStream {
  private raw = '';
  private sent = 0;
  private ts: string | undefined;
  private broken = false;
  private lastSentAt = 0;

  private constructor(
    private readonly ctx: SlackContext,
    private readonly target: ThreadTarget & { threadTs: string },
    private readonly recipient: StreamRecipient | undefined,
  ) {}

  /**
   * A stream for this thread, when SLACK_ASSISTANT allows one here and Slack has not refused
   * streaming for good; outside a DM only with a recipient, which Slack requires there.
   */
  static open(ctx: SlackContext, target: ThreadTarget, recipient?: StreamRecipient): AnswerStream | undefined {
    if (!ctx.assistant?.tries('stream', target) || target.threadTs === undefined) return undefined;
    if (!target.channel.startsWith('D') && recipient === undefined) return undefined;
    return new AnswerStream(ctx, { channel: target.channel, threadTs: target.threadTs }, recipient);
  }

  async push(delta: string): Promise<void> {
    if (this.broken) return;
    this.raw += delta;
    if (this.raw.length > STREAM_MAX_CHARS) return this.abandon('answer too long to stream');
    const due = this.ts === undefined || this.raw.length - this.sent >= APPEND_CHARS || Date.now() - this.lastSentAt >= APPEND_EVERY_MS;
    if (due) await this.send(false);
  }

  /**
   * Ends the stream with the rest of the text; true when the whole text is in the thread.
   * With `answer`, a one-message answer carries the run's answer metadata, as posted answers do.
   */
  async finish(answer?: { runId: string }): Promise<boolean> {
    if (this.broken) return false;
    if (this.raw.trim() === '' && this.ts === undefined) return true;
    try {
      await this.send(true);
      if (this.broken || this.ts === undefined) return this.broken ? false : this.raw.trim() === '';
      const rest = safeText(this.raw).slice(this.sent);
      const single = answer !== undefined && answerMessages(this.raw).length === 1;
      await this.ctx.client.chat.stopStream({
        channel: this.target.channel,
        ts: this.ts,
        ...(rest !== '' ? { markdown_text: rest } : {}),
        ...(single ? { metadata: { event_type: ANSWER_EVENT_TYPE, event_payload: { run_id: answer.runId, part: 0, parts: 1 } } } : {}),
      });
      return true;
    } catch (error) {
      await this.fail(error, 'chat.stopStream');
      return false;
    }
  }

  private async send(final: boolean): Promise<void> {
    let safe = safeText(this.raw);
    // A trailing "<" might yet become "<!channel>": it waits for the next piece.
    if (!final && safe.endsWith('<')) safe = safe.slice(0, -1);
    const piece = safe.slice(this.sent);
    if (piece.trim() === '' && (final || this.ts !== undefined)) return;
    if (piece === '') return;
    try {
      if (this.ts === undefined) {
        const started = await this.ctx.client.chat.startStream({
          channel: this.target.channel,
          thread_ts: this.target.threadTs,
          markdown_text: piece,
          ...(this.recipient && !this.target.channel.startsWith('D')
            ? { recipient_user_id: this.recipient.userId, ...(this.recipient.teamId ? { recipient_team_id: this.recipient.teamId } : {}) }
            : {}),
        });
        if (typeof started.ts !== 'string') throw new Error('chat.startStream answered without a ts');
        this.ts = started.ts;
      } else if (!final) {
        await this.ctx.client.chat.appendStream({ channel: this.target.channel, ts: this.ts, markdown_text: piece });
      } else {
        return; // the last piece goes with stopStream
      }
      this.sent += piece.length;
      this.lastSentAt = Date.now();
    } catch (error) {
      await this.fail(error, this.ts === undefined ? 'chat.startStream' : 'chat.appendStream');
    }
  }

  /** The run stopped showing here (an error, another instance took it over): a stream still open goes. */
  async abort(): Promise<void> {
    if (!this.broken) await this.discard();
  }

  private async abandon(reason: string): Promise<void> {
    this.ctx.logger.info({ channel: this.target.channel, reason }, 'streaming given up; the answer is posted as messages');
    await this.discard();
  }

  private async fail(error: unknown, method: string): Promise<void> {
    const code = slackErrorCode(error);
    this.ctx.assistant?.failed('stream', code);
    this.ctx.logger.warn({ err: error, code, method, channel: this.target.channel }, 'streaming the answer failed; it is posted as messages');
    await this.discard();
  }

  /** The half-streamed message goes, so the answer posted instead is not shown twice. */
  private async discard(): Promise<void> {
    this.broken = true;
    const ts = this.ts;
    if (ts === undefined) return;
    await this.ctx.client.chat
      .stopStream({ channel: this.target.channel, ts })
      .catch(() => undefined)
      .then(() => this.ctx.client.chat.delete({ channel: this.target.channel, ts }))
      .catch((error: unknown) => this.ctx.logger.debug({ err: error }, 'could not delete a half-streamed answer'));
  }
}

/**
 * The model's Markdown as streamed: Slack's own markup (`<!channel>`, `<@U…>`, `<#C…>`) is
 * broken with a zero-width space after `<`, so a model cannot ping or link by writing it.
 * Each character maps to the same or longer text, so a prefix of the input gives a prefix here.
 */
export function safeText(markdown: string): string {
  return markdown.replace(/<(?=[!@#])/g, '<\u200b');
}

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
