import type {
  LanguageModelV3CallOptions,
  LanguageModelV3Message,
  LanguageModelV3Prompt,
  LanguageModelV3ToolResultOutput,
  LanguageModelV3ToolResultPart,
} from '@ai-sdk/provider';
import { applyAnswer } from './clarification.js';
import { describeResult } from './describe-result.js';
import { directCall } from './direct-call.js';
import { extractAnswer, extractionRequest } from './extract-answer.js';
import { helpText } from './help-text.js';
import { asRecord, parseMaybeJson } from './json-values.js';
import { parseRequest } from './parse-request.js';
import { planReply, type Reply } from './plan-reply.js';
import { planRequests } from './plan-requests.js';
import { toolboxOf, type Toolbox } from './toolbox.js';
import { textOf } from './words.js';

/**
 * What the demo model says or calls for one model call: an answer read from a
 * reply when auto-resume asks, a plan for a new request, or after tool results
 * one sentence per result from what it actually says (never from what was asked
 * for); after an ask_user answer, the original request re-read with the answers
 * filled in.
 */
export function decideReply(call: LanguageModelV3CallOptions): Reply {
  const tools = toolboxOf(call);
  const extraction = extractionRequest(call.prompt);
  if (extraction) return { text: extractAnswer(extraction), calls: [] };

  const conversation = call.prompt.filter((m) => m.role !== 'system');
  const last = conversation[conversation.length - 1];
  if (last?.role === 'user') return directCall(textOf(last), tools) ?? planRequests(textOf(last), tools);
  if (last?.role === 'tool') return continueAfterTools(call.prompt, last, tools);
  return { text: helpText(tools), calls: [] };
}

function continueAfterTools(
  prompt: LanguageModelV3Prompt,
  last: Extract<LanguageModelV3Message, { role: 'tool' }>,
  tools: Toolbox,
): Reply {
  const results = last.content.filter((p): p is LanguageModelV3ToolResultPart => p.type === 'tool-result');
  const calls = toolCallsOf(prompt);

  // Only answers came back: the request is not done yet, so re-read it with the
  // answers filled in. Any other result means the step acted, and acting again
  // on the same request would repeat it.
  if (results.length && results.every((r) => r.toolName === 'ask_user' && answerOf(r.output, calls.get(r.toolCallId)) !== undefined)) {
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
        const answered = answerOf(part.output, calls.get(part.toolCallId));
        if (answered) intent = applyAnswer(intent, answered.question, answered.answer);
      }
    }
    return planReply(intent, tools);
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

/**
 * The question an ask_user call asked (its input) and the answer its result reports, Mastra's
 * `{ content: 'User answered: …' }`: a multi_select question's answers come back joined with
 * ", " and are split there again.
 */
function answerOf(output: LanguageModelV3ToolResultOutput, input: Record<string, unknown> | undefined): { question: string; answer: unknown } | undefined {
  if (output.type !== 'json' || !input || typeof input.question !== 'string') return undefined;
  const value = asRecord(output.value);
  const content = value && value.isError === false && typeof value.content === 'string' ? value.content : undefined;
  if (!content?.startsWith(answeredPrefix)) return undefined;
  const text = content.slice(answeredPrefix.length);
  return { question: input.question, answer: input.selectionMode === 'multi_select' ? text.split(', ') : text };
}

const answeredPrefix = 'User answered: ';
