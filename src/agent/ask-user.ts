import { z } from 'zod';
import { createTool } from './tool.js';

const option = z.object({
  label: z.string().trim().min(1, 'option label must not be empty'),
  description: z.string().optional(),
});

const askUserInput = z.object({
  question: z.string().trim().min(1, 'question must not be empty'),
  /** No options (or none at all) asks for free text. */
  options: z.array(option).optional(),
  selectionMode: z.enum(['single_select', 'multi_select']).optional(),
});

type AskUserInput = z.infer<typeof askUserInput>;

export interface AskUserPayload {
  question: string;
  options?: Array<{ label: string; description?: string }>;
  selectionMode?: 'single_select' | 'multi_select';
}

/** What the tool returns, Mastra's shape: the model reads `content`. */
interface AskUserResult {
  content: string;
  isError: boolean;
}

/**
 * Longest free-text answer (characters, after trimming): what Slack's text inputs hold. A longer
 * one is refused, from a thread reply, a form or code, never cut.
 */
const MAX_ANSWER_LENGTH = 3000;

/**
 * The answer the tool expects depends on how it asked: free text (bounded), one label, or
 * several: each one of the labels, none twice, so never more than there are options.
 */
function answerSchema(input: AskUserInput): z.ZodType {
  if (!input.options?.length) return z.string().trim().min(1, 'answer must not be empty').max(MAX_ANSWER_LENGTH, `answer must be at most ${MAX_ANSWER_LENGTH} characters`);
  const labels = input.options.map((o) => o.label);
  const oneOf = z.string().refine((v) => labels.includes(v), { message: `answer must be one of: ${labels.join(', ')}` });
  if ((input.selectionMode ?? 'single_select') === 'multi_select') {
    return z
      .array(z.unknown())
      .min(1, 'choose at least one option')
      .max(labels.length, `choose at most ${labels.length} options`)
      .refine((chosen) => new Set(chosen).size === chosen.length, 'choose each option at most once')
      .pipe(z.array(oneOf));
  }
  return oneOf;
}

/** Several answers (multi_select) are joined with ", ", as Mastra's formatQuestionAnswer does. */
export function formatQuestionAnswer(answer: unknown): string {
  return Array.isArray(answer) ? answer.map(String).join(', ') : String(answer);
}

/**
 * Asks the person a question and waits for the answer, as Mastra's `askUserTool` does. Inside a
 * run it suspends with the question (the Slack front end renders it as radio buttons, menus,
 * checkboxes or "reply in this thread") and, once answered, returns `User answered: …`;
 * outside one it returns the question as text, so the caller can ask by other means. A
 * `selectionMode` without options is an error result, not a question.
 */
export const askUserTool = createTool({
  id: 'ask_user',
  description:
    'Ask the user a question and wait for the answer. Give options (and selectionMode multi_select to allow several) when the answer is a choice.',
  inputSchema: askUserInput,
  suspendSchema: z.object({
    question: z.string(),
    options: z.array(option).optional(),
    selectionMode: z.enum(['single_select', 'multi_select']).optional(),
  }),
  resumeSchema: (input: AskUserInput) => answerSchema(input),
  execute: async (input, context): Promise<AskUserResult | undefined> => {
    const options = input.options?.length ? input.options : undefined;
    if (input.selectionMode && !options) return { content: 'Failed to ask user: selectionMode requires options.', isError: true };
    const selectionMode = options ? (input.selectionMode ?? 'single_select') : undefined;
    const agent = context?.agent;
    if (agent?.resumeData !== undefined) return { content: `User answered: ${formatQuestionAnswer(agent.resumeData)}`, isError: false };
    if (!agent) {
      const lines = [`[Question for user]: ${input.question}`];
      if (options) lines.push(`Options: ${options.map((o) => o.label).join(', ')}`);
      if (selectionMode) lines.push(`Selection mode: ${selectionMode}`);
      return { content: lines.join('\n'), isError: false };
    }
    const payload: AskUserPayload = { question: input.question, ...(options ? { options, selectionMode } : {}) };
    await agent.suspend(payload);
    return undefined;
  },
});
