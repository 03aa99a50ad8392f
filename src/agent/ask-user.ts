import { z } from 'zod';
import { createTool } from './tool.js';

const option = z.object({
  label: z.string().trim().min(1, 'option label must not be empty'),
  description: z.string().optional(),
});

export const askUserInput = z
  .object({
    question: z.string().trim().min(1, 'question must not be empty'),
    options: z.array(option).min(1, 'options must not be empty when given').optional(),
    selectionMode: z.enum(['single_select', 'multi_select']).optional(),
  })
  .superRefine((input, ctx) => {
    if (input.selectionMode && !input.options) {
      ctx.addIssue({ code: 'custom', path: ['selectionMode'], message: 'selectionMode needs options' });
    }
  });

export type AskUserInput = z.infer<typeof askUserInput>;

export interface AskUserPayload {
  question: string;
  options?: Array<{ label: string; description?: string }>;
  selectionMode?: 'single_select' | 'multi_select';
}

/**
 * Longest free-text answer (characters, after trimming): what Slack's text inputs hold. A longer
 * one is refused, from a thread reply, a form or code, never cut.
 */
export const MAX_ANSWER_LENGTH = 3000;

/**
 * The answer the tool expects depends on how it asked: free text (bounded), one label, or
 * several: each one of the labels, none twice, so never more than there are options.
 */
function answerSchema(input: AskUserInput): z.ZodType {
  if (!input.options) return z.string().trim().min(1, 'answer must not be empty').max(MAX_ANSWER_LENGTH, `answer must be at most ${MAX_ANSWER_LENGTH} characters`);
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

function fallback(input: AskUserInput): string {
  const lines = [`Question for the user: ${input.question}`];
  if (input.options) {
    const mode = input.selectionMode === 'multi_select' ? 'choose any' : 'choose one';
    lines.push(`Options (${mode}):`);
    input.options.forEach((o, i) => lines.push(`${i + 1}. ${o.label}${o.description ? ` (${o.description})` : ''}`));
  }
  lines.push('No one can answer outside a run; ask the user directly.');
  return lines.join('\n');
}

/**
 * Asks the person a question and waits for the answer. Inside a run it
 * suspends with the question (the Slack front end renders it as radio buttons,
 * menus, checkboxes or "reply in this thread"); outside one it returns a
 * readable fallback so the caller can ask by other means.
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
  execute: async (input, context) => {
    const agent = context?.agent;
    if (!agent) return fallback(input);
    if (agent.resumeData !== undefined) {
      return { question: input.question, answer: agent.resumeData };
    }
    const payload: AskUserPayload = {
      question: input.question,
      ...(input.options
        ? { options: input.options, selectionMode: input.selectionMode ?? 'single_select' }
        : {}),
    };
    await agent.suspend(payload);
    return undefined;
  },
});
