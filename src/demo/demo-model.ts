import { randomBytes } from 'node:crypto';
import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3Content,
  LanguageModelV3GenerateResult,
  LanguageModelV3Message,
  LanguageModelV3Prompt,
  LanguageModelV3StreamPart,
  LanguageModelV3ToolResultOutput,
  LanguageModelV3ToolResultPart,
  LanguageModelV3Usage,
} from '@ai-sdk/provider';
import { EXTRACTION_INSTRUCTION } from '../agent/extraction-prompt.js';
import { demoRecords } from './seed-demo-data.js';

/*
 * The built-in demo model: what the demo agents think with when no MODEL and key
 * are configured, so `npm start` shows approvals, confirmations and questions in
 * Slack without an account anywhere. It is a plain LanguageModelV3, so the runtime
 * treats it exactly like a provider's model; it just never leaves the process and
 * answers the same prompt the same way every time (tool-call ids aside).
 *
 * What it understands (case-insensitive, anywhere in the message, a leading
 * `<@U…>` mention ignored; the earliest phrase wins):
 *   look up record def-456 | lookup def-456 | show record ghi-789   → lookup_record
 *   delete record abc-123 | delete abc-123 def-456                  → delete_record (one call per id)
 *   delete record (no id)                                          → ask_user, pick one record
 *   clean up records | delete records (no ids)                     → ask_user, multi_select records
 *   deploy api 2.3 to production | deploy web v1.4 to staging       → deploy_service
 *   deploy api / deploy api to production / deploy to staging      → ask_user for what is missing
 *                                                                    (service, then environment, then version)
 *   refund order 1042 for $25 | refund $1,500.50 on order 1043      → agent-billing, or issue_refund when
 *   refund order 1044 for 500 cents because damaged                   serving the billing agent
 *   refund order 1042 (no amount) | refund $25 (no order)           → ask_user for what is missing
 *   which regions …                                                → ask_user, multi_select regions
 *   anything else                                                  → the help text
 *
 * After tool results it writes one sentence per result from what the result
 * actually says (never from what it asked for), and after an ask_user answer it
 * re-reads the original request with the answers filled in and carries on.
 */

export const DEMO_MODEL_PROVIDER = 'demo';
export const DEMO_MODEL_ID = 'demo-model';

export interface DemoModelOptions {
  /**
   * Pause between streamed pieces of text. Real models trickle text out; without a
   * pause every piece arrives in one tick and a Slack message would never be seen
   * growing. Tests pass 0.
   */
  chunkDelayMs?: number;
}

interface PlannedCall {
  toolName: string;
  input: Record<string, unknown>;
}

/** What the model decided to say or do for one call. */
interface Reply {
  text: string;
  calls: PlannedCall[];
}

type Environment = 'staging' | 'production';

type Intent =
  | { kind: 'help' }
  | { kind: 'lookup'; ids: string[] }
  | { kind: 'delete'; ids: string[]; several: boolean }
  | { kind: 'deploy'; service?: string; environment?: Environment; version?: string }
  | { kind: 'refund'; orderId?: string; amountCents?: number; reason?: string }
  | { kind: 'regions'; regions?: string[] }
  /** A reply that could not be used; said as is, never retried on a guess. */
  | { kind: 'problem'; text: string }
  /** An answer to a question this model cannot place (another model asked it, say). */
  | { kind: 'answered'; question: string; answer: unknown };

interface Question {
  question: string;
  options?: Array<{ label: string; description?: string }>;
  selectionMode?: 'multi_select';
  fill(answer: unknown): Intent;
}

const REGIONS = ['us-east-1', 'eu-west-1', 'ap-southeast-2'];

let callCounter = 0;

export function createDemoModel(options: DemoModelOptions = {}): LanguageModelV3 {
  const delayMs = options.chunkDelayMs ?? 35;

  function describe(call: LanguageModelV3CallOptions) {
    call.abortSignal?.throwIfAborted();
    const reply = respond(call);
    const calls = reply.calls.map((c) => ({ ...c, toolCallId: nextToolCallId(), json: JSON.stringify(c.input) }));
    const usage = usageOf(call, reply.text + calls.map((c) => c.toolName + c.json).join(''));
    const finishReason = calls.length
      ? { unified: 'tool-calls' as const, raw: 'tool_calls' }
      : { unified: 'stop' as const, raw: 'stop' };
    const response = { id: `demo_resp_${randomBytes(6).toString('hex')}`, modelId: DEMO_MODEL_ID, timestamp: new Date() };
    return { reply, calls, usage, finishReason, response };
  }

  return {
    specificationVersion: 'v3',
    provider: DEMO_MODEL_PROVIDER,
    modelId: DEMO_MODEL_ID,
    supportedUrls: {},

    async doGenerate(call): Promise<LanguageModelV3GenerateResult> {
      const { reply, calls, usage, finishReason, response } = describe(call);
      const content: LanguageModelV3Content[] = [];
      if (reply.text) content.push({ type: 'text', text: reply.text });
      for (const c of calls) content.push({ type: 'tool-call', toolCallId: c.toolCallId, toolName: c.toolName, input: c.json });
      return { content, finishReason, usage, warnings: [], response };
    },

    async doStream(call) {
      const { reply, calls, usage, finishReason, response } = describe(call);
      const parts: LanguageModelV3StreamPart[] = [
        { type: 'stream-start', warnings: [] },
        { type: 'response-metadata', ...response },
      ];
      if (reply.text) {
        const id = `${response.id}_text`;
        parts.push({ type: 'text-start', id });
        for (const delta of wordGroups(reply.text)) parts.push({ type: 'text-delta', id, delta });
        parts.push({ type: 'text-end', id });
      }
      for (const c of calls) {
        parts.push(
          { type: 'tool-input-start', id: c.toolCallId, toolName: c.toolName },
          { type: 'tool-input-delta', id: c.toolCallId, delta: c.json },
          { type: 'tool-input-end', id: c.toolCallId },
          { type: 'tool-call', toolCallId: c.toolCallId, toolName: c.toolName, input: c.json },
        );
      }
      parts.push({ type: 'finish', finishReason, usage });

      const signal = call.abortSignal;
      let index = 0;
      let deltas = 0;
      const stream = new ReadableStream<LanguageModelV3StreamPart>({
        async pull(controller) {
          const part = parts[index++];
          if (!part) {
            controller.close();
            return;
          }
          if (part.type === 'text-delta' && deltas++ > 0 && delayMs > 0) await pause(delayMs, signal);
          if (signal?.aborted) {
            controller.error(signal.reason);
            return;
          }
          controller.enqueue(part);
        },
      });
      return { stream };
    },
  };
}

function nextToolCallId(): string {
  callCounter += 1;
  // The counter keeps ids apart within a process, the random part across restarts,
  // since stored runs keep the ids of calls made before the restart.
  return `demo_${callCounter}_${randomBytes(4).toString('hex')}`;
}

function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
  });
}

/** Three words per delta: enough pieces to see the text grow, few enough to stay cheap. */
function wordGroups(text: string): string[] {
  const words = text.match(/\s*\S+\s*/g) ?? [text];
  const groups: string[] = [];
  for (let i = 0; i < words.length; i += 3) groups.push(words.slice(i, i + 3).join(''));
  return groups;
}

function usageOf(call: LanguageModelV3CallOptions, output: string): LanguageModelV3Usage {
  const input = Math.max(1, Math.ceil((JSON.stringify(call.prompt).length + JSON.stringify(call.tools ?? []).length) / 4));
  const out = Math.max(1, Math.ceil(output.length / 4));
  return {
    inputTokens: { total: input, noCache: input, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: out, text: out, reasoning: 0 },
  };
}

// ---------------------------------------------------------------------------
// Deciding

function respond(call: LanguageModelV3CallOptions): Reply {
  const tools = usableTools(call);
  const extraction = extractionRequest(call.prompt);
  if (extraction) return { text: extractAnswer(extraction), calls: [] };

  const conversation = call.prompt.filter((m) => m.role !== 'system');
  const last = conversation[conversation.length - 1];
  if (last?.role === 'user') return plan(parseRequest(textOf(last)), tools);
  if (last?.role === 'tool') return continueAfterTools(call.prompt, last, tools);
  return { text: helpText(tools), calls: [] };
}

/** The tools this call may use: what was offered, narrowed by toolChoice. */
function usableTools(call: LanguageModelV3CallOptions): Set<string> {
  const names = (call.tools ?? []).flatMap((t) => (t.type === 'function' ? [t.name] : []));
  const choice = call.toolChoice;
  if (choice?.type === 'none') return new Set();
  if (choice?.type === 'tool') return new Set(names.filter((n) => n === choice.toolName));
  return new Set(names);
}

function textOf(message: Extract<LanguageModelV3Message, { role: 'user' }>): string {
  return message.content.map((p) => (p.type === 'text' ? p.text : '')).join('\n');
}

function continueAfterTools(
  prompt: LanguageModelV3Prompt,
  last: Extract<LanguageModelV3Message, { role: 'tool' }>,
  tools: Set<string>,
): Reply {
  const results = last.content.filter((p): p is LanguageModelV3ToolResultPart => p.type === 'tool-result');
  const calls = toolCallsOf(prompt);

  // Only answers came back: the request is not done yet, so re-read it with the
  // answers filled in. Any other result means the step acted, and acting again
  // on the same request would repeat it.
  if (results.length && results.every((r) => r.toolName === 'ask_user' && answerOf(r.output) !== undefined)) {
    let userIndex = -1;
    prompt.forEach((m, i) => {
      if (m.role === 'user') userIndex = i;
    });
    const user = prompt[userIndex];
    let intent = parseRequest(user?.role === 'user' ? textOf(user) : '');
    for (const message of prompt.slice(userIndex + 1)) {
      if (message.role !== 'tool') continue;
      for (const part of message.content) {
        if (part.type !== 'tool-result' || part.toolName !== 'ask_user') continue;
        const answered = answerOf(part.output);
        if (answered) intent = applyAnswer(intent, answered.question, answered.answer);
      }
    }
    return plan(intent, tools);
  }

  const sentences = results.map((r) => describeResult(r, calls.get(r.toolCallId)));
  return { text: sentences.join(' ') || 'Done.', calls: [] };
}

function toolCallsOf(prompt: LanguageModelV3Prompt): Map<string, Record<string, unknown>> {
  const calls = new Map<string, Record<string, unknown>>();
  for (const message of prompt) {
    if (message.role !== 'assistant') continue;
    for (const part of message.content) {
      if (part.type === 'tool-call') calls.set(part.toolCallId, asRecord(parseMaybeJson(part.input)) ?? {});
    }
  }
  return calls;
}

function answerOf(output: LanguageModelV3ToolResultOutput): { question: string; answer: unknown } | undefined {
  if (output.type !== 'json') return undefined;
  const value = asRecord(output.value);
  if (!value || typeof value.question !== 'string' || !('answer' in value)) return undefined;
  return { question: value.question, answer: value.answer };
}

/** An answer fills the slot of the question asked at that point, recognised by its exact wording. */
function applyAnswer(intent: Intent, question: string, answer: unknown): Intent {
  const asked = clarification(intent);
  if (asked && asked.question === question) return asked.fill(answer);
  return { kind: 'answered', question, answer };
}

function plan(intent: Intent, tools: Set<string>): Reply {
  const asked = clarification(intent);
  if (asked) return ask(asked, tools);
  return act(intent, tools);
}

function ask(question: Question, tools: Set<string>): Reply {
  if (!tools.has('ask_user')) {
    // Without ask_user (the billing agent) the question goes back as the reply,
    // which is what a supervisor needs to hear anyway: what is missing.
    const choices = question.options ? ` (${question.options.map((o) => o.label).join(', ')})` : '';
    return { text: `${question.question}${choices}`, calls: [] };
  }
  return {
    text: '',
    calls: [
      {
        toolName: 'ask_user',
        input: {
          question: question.question,
          ...(question.options ? { options: question.options } : {}),
          ...(question.selectionMode ? { selectionMode: question.selectionMode } : {}),
        },
      },
    ],
  };
}

const recordOptions = () => demoRecords.map((r) => ({ label: r.id, description: r.title }));

/** The next thing to ask before the intent can be acted on, if anything. */
function clarification(intent: Intent): Question | undefined {
  switch (intent.kind) {
    case 'lookup':
      if (intent.ids.length) return undefined;
      return {
        question: 'Which record should I look up?',
        options: recordOptions(),
        fill: (a) => (typeof a === 'string' && a.trim() ? { ...intent, ids: [a.trim()] } : unreadable('a record id', a)),
      };
    case 'delete':
      if (intent.ids.length) return undefined;
      if (intent.several) {
        return {
          question: 'Which records should I delete?',
          options: recordOptions(),
          selectionMode: 'multi_select',
          fill: (a) => {
            const ids = Array.isArray(a) ? a.filter((v): v is string => typeof v === 'string' && v.trim() !== '') : [];
            return ids.length ? { ...intent, ids: unique(ids.map((v) => v.trim())) } : unreadable('record ids', a);
          },
        };
      }
      return {
        question: 'Which record should I delete?',
        options: recordOptions(),
        fill: (a) => (typeof a === 'string' && a.trim() ? { ...intent, ids: [a.trim()] } : unreadable('a record id', a)),
      };
    case 'deploy':
      if (!intent.service) {
        return {
          question: 'Which service should I deploy?',
          fill: (a) => {
            const service = typeof a === 'string' ? parseDeploy(a).service : undefined;
            return service ? { ...intent, service } : unreadable('a service name', a);
          },
        };
      }
      if (!intent.environment) {
        return {
          question: `Which environment should I deploy ${intent.service} to?`,
          options: [{ label: 'staging' }, { label: 'production' }],
          fill: (a) => {
            const environment = typeof a === 'string' ? environmentOf(a.trim()) : undefined;
            return environment ? { ...intent, environment } : unreadable('an environment', a);
          },
        };
      }
      if (!intent.version) {
        return {
          question: `Which version of ${intent.service} should I deploy?`,
          fill: (a) => {
            const version = typeof a === 'string' ? versionFromAnswer(a) : undefined;
            return version ? { ...intent, version } : unreadable('a version', a);
          },
        };
      }
      return undefined;
    case 'refund':
      if (!intent.orderId) {
        return {
          question:
            intent.amountCents !== undefined
              ? `Which order should I refund ${usd(intent.amountCents)} on?`
              : 'Which order should I refund?',
          fill: (a) => {
            const orderId = typeof a === 'string' ? orderFromAnswer(a) : undefined;
            return orderId ? { ...intent, orderId } : unreadable('an order id', a);
          },
        };
      }
      if (intent.amountCents === undefined) {
        return {
          question: `How much should I refund on order ${intent.orderId}?`,
          fill: (a) => {
            const amountCents = typeof a === 'string' ? amountFromAnswer(a) : undefined;
            return amountCents ? { ...intent, amountCents } : unreadable('an amount', a);
          },
        };
      }
      return undefined;
    case 'regions':
      if (intent.regions) return undefined;
      return {
        question: 'Which regions should this apply to?',
        options: REGIONS.map((label) => ({ label })),
        selectionMode: 'multi_select',
        fill: (a) => {
          const regions = Array.isArray(a) ? a.filter((v): v is string => typeof v === 'string') : [];
          return regions.length ? { ...intent, regions } : unreadable('regions', a);
        },
      };
    default:
      return undefined;
  }
}

function unreadable(what: string, answer: unknown): Intent {
  return {
    kind: 'problem',
    text: `I could not read ${what} from ${quote(formatAnswer(answer))}, so I did nothing. Please ask again with it included.`,
  };
}

function act(intent: Intent, tools: Set<string>): Reply {
  switch (intent.kind) {
    case 'help':
      return { text: helpText(tools), calls: [] };
    case 'problem':
      return { text: intent.text, calls: [] };
    case 'answered':
      return { text: `You answered ${formatAnswer(intent.answer)} to ${quote(intent.question)}.`, calls: [] };
    case 'regions':
      return {
        text: `You chose ${list((intent.regions ?? []).map(code))}. Regions only show how a question with several answers works; nothing else happens.`,
        calls: [],
      };
    case 'lookup':
      return callEach(tools, 'lookup_record', 'look records up', intent.ids.map((id) => ({ id })));
    case 'delete':
      return callEach(tools, 'delete_record', 'delete records', intent.ids.map((id) => ({ id })));
    case 'deploy':
      return callEach(tools, 'deploy_service', 'deploy services', [
        { service: intent.service, environment: intent.environment, version: intent.version },
      ]);
    case 'refund': {
      const { orderId, amountCents, reason } = intent;
      if (amountCents === undefined || amountCents <= 0) {
        return { text: 'A refund needs an amount of more than $0.00; nothing was refunded.', calls: [] };
      }
      if (tools.has('agent-billing')) {
        const prompt = `Refund order ${orderId} for ${amountCents} cents${reason ? `. Reason: ${reason}` : ''}`;
        return { text: '', calls: [{ toolName: 'agent-billing', input: { prompt } }] };
      }
      return callEach(tools, 'issue_refund', 'issue refunds', [{ orderId, amountCents, ...(reason ? { reason } : {}) }]);
    }
  }
}

function callEach(tools: Set<string>, toolName: string, what: string, inputs: Array<Record<string, unknown>>): Reply {
  if (!tools.has(toolName)) return { text: `I can't ${what} here: no ${code(toolName)} tool is available to me.`, calls: [] };
  return { text: '', calls: inputs.map((input) => ({ toolName, input })) };
}

// ---------------------------------------------------------------------------
// Reading requests

/** Slack wraps mentions, channels and links in angle brackets and escapes &, < and >. */
function normalise(text: string): string {
  return text
    .replace(/<[@!#][^>]*>/g, ' ')
    .replace(/<[^|>]+\|([^>]+)>/g, '$1')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')
    .trim();
}

const helpOnly = /^(?:help|\?|what can you do\??|commands|hi|hello|hey)[.!?]*$/i;

interface Verb {
  pattern: RegExp;
  /** `rest` is the text after the verb; undefined means "not this after all, try the next phrase". */
  read(rest: string, whole: string): Intent | undefined;
}

const verbs: Verb[] = [
  { pattern: /\brefund\b/i, read: (_rest, whole) => parseRefund(whole) },
  { pattern: /\b(?:deploy|ship|roll\s*out)\b/i, read: (rest) => ({ kind: 'deploy', ...parseDeploy(rest) }) },
  { pattern: /\bclean\s*-?\s*up\b/i, read: (rest) => ({ kind: 'delete', ids: recordIds(rest), several: true }) },
  {
    pattern: /\b(?:delete|remove|drop|erase)\b/i,
    read: (rest) => {
      const ids = recordIds(rest);
      // "delete everything" is not a record request; only ids or the word "record" make it one.
      if (!ids.length && !/\brecords?\b/i.test(rest)) return undefined;
      return { kind: 'delete', ids, several: ids.length > 1 || /\b(?:records|all|some|several)\b/i.test(rest) };
    },
  },
  {
    pattern: /\b(?:look\s*-?\s*up|show|find|fetch|get|check|describe|view|read)\b/i,
    read: (rest) => {
      const ids = recordIds(rest);
      if (!ids.length && !/\brecords?\b/i.test(rest)) return undefined;
      return { kind: 'lookup', ids };
    },
  },
  { pattern: /\bregions?\b/i, read: () => ({ kind: 'regions' }) },
];

function parseRequest(raw: string): Intent {
  const text = normalise(raw);
  if (!text || helpOnly.test(text)) return { kind: 'help' };
  const found = verbs
    .map((verb) => ({ verb, match: verb.pattern.exec(text) }))
    .filter((f): f is { verb: Verb; match: RegExpExecArray } => f.match !== null)
    .sort((a, b) => a.match.index - b.match.index);
  for (const { verb, match } of found) {
    const intent = verb.read(text.slice(match.index + match[0].length), text);
    if (intent) return intent;
  }
  return { kind: 'help' };
}

/** Splits on spaces and commas and peels Slack formatting and punctuation off each word. */
function words(text: string): string[] {
  return text
    .split(/[\s,;]+/)
    .map((w) => w.replace(/^[`*_~"'“”‘’(\[]+/, '').replace(/[`*_~"'“”‘’)\].!?:]+$/, ''))
    .filter(Boolean);
}

/** An id has a digit in it: that is what tells `abc-123` from "the", "it" or "everything". */
function recordIds(text: string): string[] {
  return unique(words(text).filter((w) => /\d/.test(w) && /^[A-Za-z0-9][\w.:-]*$/.test(w)));
}

const deployFiller = new Set([
  'to', 'into', 'on', 'in', 'at', 'for', 'of', 'the', 'a', 'an', 'new', 'version', 'service', 'env',
  'environment', 'please', 'now', 'me', 'it', 'and', 'then', 'build', 'release', 'app',
]);

function environmentOf(word: string): Environment | undefined {
  if (/^(?:production|prod|prd|live)$/i.test(word)) return 'production';
  if (/^(?:staging|stage|stg)$/i.test(word)) return 'staging';
  return undefined;
}

const versionPattern = /^v?\d+(?:\.\d+)*(?:[-+][0-9A-Za-z.-]+)?$/i;

function parseDeploy(text: string): { service?: string; environment?: Environment; version?: string } {
  let service: string | undefined;
  let environment: Environment | undefined;
  let version: string | undefined;
  for (const word of words(text)) {
    const env = environmentOf(word);
    if (env) {
      environment ??= env;
      continue;
    }
    const at = /^([A-Za-z][\w.-]*)@(\S+)$/.exec(word);
    if (at) {
      service ??= at[1];
      version ??= at[2];
      continue;
    }
    if (versionPattern.test(word)) {
      version ??= word;
      continue;
    }
    if (deployFiller.has(word.toLowerCase())) continue;
    if (!service && /^[A-Za-z][\w.-]*$/.test(word)) service = word;
  }
  return {
    ...(service ? { service } : {}),
    ...(environment ? { environment } : {}),
    ...(version ? { version } : {}),
  };
}

/** A version number if the answer has one; otherwise a one-word answer is taken as a ref (main, a sha). */
function versionFromAnswer(answer: string): string | undefined {
  const all = words(answer);
  const numbered = all.find((w) => versionPattern.test(w));
  if (numbered) return numbered;
  const only = all.length === 1 ? all[0] : undefined;
  return only && /^[\w.\-/]+$/.test(only) ? only : undefined;
}

function parseRefund(text: string): Intent {
  const because = /\b(?:because|due to|reason:?)\s+(.+)$/is.exec(text);
  const reason = because?.[1]?.trim().replace(/[.!?\s]+$/, '');
  const body = because ? text.slice(0, because.index) : text;
  const orderId = (/\border\s*(?:#|no\.?\s*|number\s*|id\s*)?([A-Za-z0-9][\w-]*)/i.exec(body) ?? /#(\w+)/.exec(body))?.[1];
  const amountCents = amountIn(body);
  return {
    kind: 'refund',
    ...(orderId && /\d/.test(orderId) ? { orderId } : {}),
    ...(amountCents !== undefined ? { amountCents } : {}),
    ...(reason ? { reason } : {}),
  };
}

/** "$25", "$1,500.50", "25 dollars", "2500 cents": always whole cents, never through a float. */
function amountIn(text: string): number | undefined {
  const dollars = /\$\s*(\d[\d,]*(?:\.\d+)?)/.exec(text) ?? /(\d[\d,]*(?:\.\d+)?)\s*(?:dollars?|usd|bucks)\b/i.exec(text);
  if (dollars) return dollarsToCents(dollars[1]!.replace(/,+$/, ''));
  const cents = /(\d[\d,]*)\s*(?:cents?|¢)/i.exec(text);
  if (cents) return wholeNumber(cents[1]!.replace(/,+$/, ''));
  return undefined;
}

function amountFromAnswer(answer: string): number | undefined {
  const bare = /^\s*(\d[\d,]*(?:\.\d+)?)\s*$/.exec(answer);
  return bare ? dollarsToCents(bare[1]!) : amountIn(answer);
}

function dollarsToCents(raw: string): number | undefined {
  const match = /^(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d{1,2}))?$/.exec(raw);
  if (!match) return undefined;
  const cents = Number(match[1]!.replace(/,/g, '')) * 100 + Number((match[2] ?? '').padEnd(2, '0'));
  return Number.isSafeInteger(cents) ? cents : undefined;
}

function wholeNumber(raw: string): number | undefined {
  if (!/^(?:\d{1,3}(?:,\d{3})+|\d+)$/.test(raw)) return undefined;
  const n = Number(raw.replace(/,/g, ''));
  return Number.isSafeInteger(n) ? n : undefined;
}

function orderFromAnswer(answer: string): string | undefined {
  const id = (/\border\s*#?\s*([A-Za-z0-9][\w-]*)/i.exec(answer) ?? /#?\b([A-Za-z0-9][\w-]*\d[\w-]*)\b/.exec(answer))?.[1];
  return id && /\d/.test(id) ? id : undefined;
}

// ---------------------------------------------------------------------------
// Reporting results

function describeResult(result: LanguageModelV3ToolResultPart, input: Record<string, unknown> | undefined): string {
  const { output, toolName } = result;
  const args = input ?? {};
  switch (output.type) {
    case 'execution-denied':
      return `I did not ${actionPhrase(toolName, args)}: ${reasonPhrase(output.reason)}.`;
    case 'error-text':
      return `That failed: ${sentence(output.value.replace(/^Tool \S+ failed:\s*/, ''))}`;
    case 'error-json':
      return `That failed: ${sentence(JSON.stringify(output.value))}`;
    case 'text':
      return sentence(output.value);
    case 'content':
      return sentence(output.value.map((p) => (p.type === 'text' ? p.text : '')).join(' ').trim() || `${toolName} returned a file.`);
    case 'json':
      return describeJson(toolName, output.value, args);
  }
}

function describeJson(toolName: string, raw: unknown, args: Record<string, unknown>): string {
  const value = asRecord(raw);
  if (value && toolName.startsWith('agent-')) {
    const text = typeof value.text === 'string' ? value.text.trim() : '';
    return text || `The ${toolName.slice('agent-'.length)} agent finished without a reply.`;
  }
  if (value && toolName === 'delete_record') {
    if (value.deleted === true) return `Deleted record ${String(value.id ?? args.id)}.`;
    if (typeof value.message === 'string') return `${sentence(value.message)} Nothing was deleted.`;
  }
  if (value && toolName === 'lookup_record') {
    const record = asRecord(value.record);
    if (value.found === true && record) {
      const deleted = record.deleted === true ? ` It was deleted${record.deletedAt ? ` at ${String(record.deletedAt)}` : ''}.` : '';
      return `Record ${String(record.id)} is ${quote(String(record.title))}, owned by ${String(record.owner)}.${deleted}`;
    }
    if (typeof value.message === 'string') return sentence(value.message);
  }
  if (value && toolName === 'deploy_service') {
    if (value.deployed === true) {
      return `Deployed ${String(value.service)} ${String(value.version)} to ${String(value.environment)}.`;
    }
    if (value.status === 'cancelled') return 'Deployment cancelled.';
    if (typeof value.message === 'string') return sentence(value.message);
  }
  if (value && toolName === 'issue_refund' && typeof value.amountCents === 'number') {
    const left = typeof value.remainingCents === 'number' ? `; ${usd(value.remainingCents)} is left to refund on the order` : '';
    return `Refunded ${usd(value.amountCents)} on order ${String(value.orderId)}. Refund #${String(value.refundId)}${left}.`;
  }
  if (value && toolName === 'ask_user' && 'answer' in value) return `You answered ${formatAnswer(value.answer)}.`;
  const shown = JSON.stringify(raw) ?? 'nothing';
  return `${code(toolName)} returned ${shown.length > 300 ? `${shown.slice(0, 300)}…` : shown}.`;
}

function actionPhrase(toolName: string, args: Record<string, unknown>): string {
  switch (toolName) {
    case 'delete_record':
      return `delete record ${String(args.id ?? '')}`.trim();
    case 'lookup_record':
      return `look up record ${String(args.id ?? '')}`.trim();
    case 'deploy_service':
      return ['deploy', args.service, args.version, args.environment ? `to ${String(args.environment)}` : undefined]
        .filter((p) => p !== undefined && p !== '')
        .map(String)
        .join(' ');
    case 'issue_refund':
      return typeof args.amountCents === 'number'
        ? `refund ${usd(args.amountCents)} on order ${String(args.orderId)}`
        : `refund order ${String(args.orderId)}`;
    case 'ask_user':
      return typeof args.question === 'string' ? `get an answer to ${quote(args.question)}` : 'get an answer';
    default:
      return toolName.startsWith('agent-')
        ? `hand this to the ${toolName.slice('agent-'.length)} agent`
        : `run ${code(toolName)}`;
  }
}

/**
 * The runtime's stock reasons are full sentences written for models; after "I did
 * not …:" they read better as a clause. A person's own reason is kept word for word.
 */
function reasonPhrase(reason: string | undefined): string {
  const trimmed = reason?.trim().replace(/[.!\s]+$/, '') ?? '';
  if (!trimmed || /^the user declined this tool call$/i.test(trimmed)) return 'the request was declined';
  if (/^the approval request expired/i.test(trimmed)) return 'the request expired before anyone approved it';
  return /^(?:The|A|An|This|That|It) /.test(trimmed) ? trimmed[0]!.toLowerCase() + trimmed.slice(1) : trimmed;
}

// ---------------------------------------------------------------------------
// Answer extraction for auto-resume

interface ExtractionRequest {
  schema: Record<string, unknown>;
  question: Record<string, unknown> | undefined;
  text: string;
}

function extractionRequest(prompt: LanguageModelV3Prompt): ExtractionRequest | undefined {
  const system = prompt.find((m) => m.role === 'system');
  if (!system || system.role !== 'system' || !system.content.startsWith(EXTRACTION_INSTRUCTION)) return undefined;
  const schema = asRecord(parseMaybeJson(/^Schema: (.*)$/m.exec(system.content)?.[1] ?? ''));
  if (!schema) return undefined;
  const question = asRecord(parseMaybeJson(/^Question: (.*)$/m.exec(system.content)?.[1] ?? ''));
  const user = [...prompt].reverse().find((m) => m.role === 'user');
  return { schema, question, text: user?.role === 'user' ? normalise(textOf(user)) : '' };
}

const affirmative = /\b(?:yes|yeah|yep|yup|sure|ok|okay|confirm(?:ed)?|go ahead|go for it|do it|ship it|approved?|proceed|please do)\b/i;
const negative = /\b(?:no|nope|cancel|stop|abort|don'?t|do not|hold off|never ?mind)\b/i;

/**
 * Reads a free-text reply the way a model would, for the cases the runtime's own
 * readings miss ("production please", "abc-123 and ghi-789", "sure, go ahead").
 * A reply it cannot place is answered in words, which the runtime rejects as not
 * JSON, so the question stays open instead of being answered with a guess.
 */
function extractAnswer({ schema, question, text }: ExtractionRequest): string {
  const cannot = 'I could not tell which answer that is.';
  const properties = asRecord(schema.properties);
  const keys = properties ? Object.keys(properties) : [];
  if (schema.type === 'object' && keys.length === 1 && asRecord(properties?.[keys[0]!])?.type === 'boolean') {
    const yes = affirmative.test(text);
    const no = negative.test(text);
    return yes === no ? cannot : JSON.stringify({ [keys[0]!]: yes });
  }
  const labels = (Array.isArray(question?.options) ? question.options : [])
    .map((o) => asRecord(o)?.label)
    .filter((l): l is string => typeof l === 'string');
  if (schema.type === 'array') {
    const chosen = /\b(?:all|every|each|everything)\b/i.test(text) ? labels : labelsIn(text, labels);
    return chosen.length ? JSON.stringify(chosen) : cannot;
  }
  if (schema.type === 'string') {
    if (!labels.length) return text ? JSON.stringify(text) : cannot;
    const chosen = labelsIn(text, labels);
    return chosen.length === 1 ? JSON.stringify(chosen[0]) : cannot;
  }
  return cannot;
}

/** Labels named in the text, or failing that, their numbers ("1 and 3"), in the options' order. */
function labelsIn(text: string, labels: string[]): string[] {
  const named = labels.filter((label) => {
    const escaped = label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    if (new RegExp(`(?<![\\w-])${escaped}(?![\\w-])`, 'i').test(text)) return true;
    // "prod" for production, "stage" for staging: what people type in a hurry.
    const env = environmentOf(label);
    return env !== undefined && words(text).some((w) => environmentOf(w) === env);
  });
  if (named.length) return named;
  const numbers = new Set((text.match(/\b\d+\b/g) ?? []).map(Number));
  return labels.filter((_, i) => numbers.has(i + 1));
}

// ---------------------------------------------------------------------------
// Help and formatting

function helpText(tools: Set<string>): string {
  const lines: string[] = [];
  if (tools.has('lookup_record')) lines.push('- `look up record def-456`: show a record');
  if (tools.has('delete_record')) {
    lines.push('- `delete record abc-123`: delete it once someone approves');
    if (tools.has('ask_user')) lines.push('- `clean up records`: pick several records to delete');
  }
  if (tools.has('deploy_service')) {
    lines.push('- `deploy api 2.3 to staging` or `deploy api 2.3 to production`: production asks you to confirm first');
    if (tools.has('ask_user')) lines.push('- `deploy api`: I ask for the environment and version');
  }
  if (tools.has('agent-billing') || tools.has('issue_refund')) {
    lines.push('- `refund order 1042 for $25`: refunded once someone other than you approves (over $1,000 needs two people)');
  }
  if (tools.has('ask_user')) lines.push('- `which regions`: a question with several answers');
  const intro =
    'I am the built-in demo model: no AI model is configured, so I follow a short script instead of reading free text.';
  const body = lines.length ? `Here is what I understand:\n${lines.join('\n')}` : 'I have no tools here, so there is nothing I can do yet.';
  return `${intro}\n${body}\nSet MODEL (for example openai/gpt-5-mini) and its API key to talk to a real model.`;
}

function usd(cents: number): string {
  const whole = Math.floor(cents / 100)
    .toString()
    .replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `$${whole}.${String(cents % 100).padStart(2, '0')}`;
}

function formatAnswer(answer: unknown): string {
  if (Array.isArray(answer)) return list(answer.map((a) => code(String(a))));
  if (typeof answer === 'string') return code(answer);
  return code(JSON.stringify(answer) ?? 'nothing');
}

function list(items: string[]): string {
  if (items.length <= 1) return items[0] ?? 'nothing';
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

function code(text: string): string {
  return `\`${text.replace(/`/g, "'")}\``;
}

function quote(text: string): string {
  return `"${text}"`;
}

function sentence(text: string): string {
  const trimmed = text.trim();
  return /[.!?]["')]?$/.test(trimmed) ? trimmed : `${trimmed}.`;
}

function unique<T>(items: T[]): T[] {
  return [...new Set(items)];
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** Tool-call inputs in a prompt are objects from this runtime but JSON strings from some callers. */
function parseMaybeJson(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value);
  } catch {
    return undefined;
  }
}
