import type { LanguageModelV3, LanguageModelV3CallOptions, LanguageModelV3StreamPart } from '@ai-sdk/provider';

/**
 * A stand-in model for trying the example without a model key: it reads a few
 * plain requests ("list tickets", "look up ticket 101", "close ticket 102",
 * "open a ticket: …", "runbook printer", "page on-call: …") and calls the matching tool, then reports the tool's
 * result. Set MODEL (and its key) to use a real model instead.
 */
export function offlineTicketModel(): LanguageModelV3 {
  return {
    specificationVersion: 'v3',
    provider: 'example',
    modelId: 'offline-tickets',
    supportedUrls: {},
    async doGenerate() {
      throw new Error('the offline example model only streams');
    },
    async doStream(options: LanguageModelV3CallOptions) {
      const parts = reply(options);
      return {
        stream: new ReadableStream<LanguageModelV3StreamPart>({
          start(controller) {
            for (const part of parts) controller.enqueue(part);
            controller.close();
          },
        }),
      };
    },
  };
}

const usage = { inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 0, text: 0, reasoning: 0 } };

function reply(options: LanguageModelV3CallOptions): LanguageModelV3StreamPart[] {
  const last = options.prompt[options.prompt.length - 1];
  // After a tool ran (or was declined), say what happened, in words.
  if (last?.role === 'tool') {
    const result = last.content[0];
    if (!result || result.type !== 'tool-result') return textParts('Done.');
    const output = result.output;
    if (output.type === 'execution-denied') return textParts(`That was not done: ${output.reason ?? 'declined'}.`);
    if (output.type === 'error-text') return textParts(`That did not work: ${output.value}`);
    if (output.type === 'text') return textParts(output.value);
    return textParts(output.type === 'json' ? describe(result.toolName, output.value) : 'Done.');
  }
  const asked = last?.role === 'user' ? last.content.map((p) => (p.type === 'text' ? p.text : '')).join(' ') : '';
  const id = /\b(\d{2,})\b/.exec(asked)?.[1];
  const created = /open a ticket:?\s*(.+)$/i.exec(asked)?.[1];
  if (created) return toolCall('create_ticket', { title: created.trim() });
  const page = /page (?:the )?on-?call:?\s*(.+)$/i.exec(asked)?.[1];
  if (page) return toolCall('runbooks__page_oncall', { team: 'support', summary: page.trim().slice(0, 200) });
  const runbook = /\brunbooks?\b:?\s*(?:for|about)?\s*(.+)$/i.exec(asked)?.[1];
  if (runbook) return toolCall('runbooks__search_runbooks', { query: runbook.trim() });
  if (/\bclose\b/i.test(asked) && id) return toolCall('close_ticket', { id: Number(id) });
  if (/\b(look ?up|show|status)\b/i.test(asked) && id) return toolCall('lookup_ticket', { id: Number(id) });
  if (/\blist\b|\bopen tickets\b/i.test(asked)) return toolCall('list_open_tickets', {});
  return textParts('I can list tickets, look one up, open one or close one (e.g. "close ticket 102"), search the runbooks ("runbook printer") or page the on-call ("page on-call: printer on fire").');
}

interface TicketView {
  id: number;
  title: string;
  status: string;
  assignee: string | null;
}

function isTicket(value: unknown): value is TicketView {
  const v = value as Partial<TicketView> | null;
  return typeof v === 'object' && v !== null && typeof v.id === 'number' && typeof v.title === 'string' && typeof v.status === 'string';
}

const line = (t: TicketView) => `#${t.id} "${t.title}" (${t.assignee ? `assigned to ${t.assignee}` : 'unassigned'})`;

/** A ticket tool's result as a sentence, the way a model would report it. */
function describe(toolName: string, value: unknown): string {
  if (toolName === 'list_open_tickets' && Array.isArray(value)) {
    const open = value.filter(isTicket);
    if (open.length === 0) return 'There are no open tickets.';
    return `${open.length} open ${open.length === 1 ? 'ticket' : 'tickets'}:\n${open.map((t) => `- ${line(t)}`).join('\n')}`;
  }
  if (isTicket(value)) {
    if (toolName === 'close_ticket') return `Closed ticket #${value.id} "${value.title}".`;
    if (toolName === 'create_ticket') return `Opened ticket #${value.id} "${value.title}".`;
    return `Ticket ${line(value)} is ${value.status}.`;
  }
  const missing = value as { found?: unknown; id?: unknown } | null;
  if (missing && missing.found === false) return `There is no ticket #${String(missing.id)}.`;
  return 'Done.';
}

function textParts(text: string): LanguageModelV3StreamPart[] {
  return [
    { type: 'stream-start', warnings: [] },
    { type: 'text-start', id: 't' },
    { type: 'text-delta', id: 't', delta: text },
    { type: 'text-end', id: 't' },
    { type: 'finish', finishReason: { unified: 'stop', raw: undefined }, usage },
  ];
}

function toolCall(toolName: string, input: unknown): LanguageModelV3StreamPart[] {
  return [
    { type: 'stream-start', warnings: [] },
    { type: 'tool-call', toolCallId: `call_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`, toolName, input: JSON.stringify(input) },
    { type: 'finish', finishReason: { unified: 'tool-calls', raw: undefined }, usage },
  ];
}
