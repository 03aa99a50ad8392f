import type { LanguageModelV3CallOptions } from '@ai-sdk/provider';
import { MockLanguageModelV3 } from 'ai/test';
import { scriptedModel } from './scripted-model.js';

/** The record a prompt is about: the last word of its first user message ("delete r7" → "r7"). */
function recordOf(call: LanguageModelV3CallOptions): string {
  const user = call.prompt.find((m) => m.role === 'user');
  const part = user?.role === 'user' ? user.content.find((p) => p.type === 'text') : undefined;
  return part?.type === 'text' ? (part.text.split(' ').pop() ?? '') : '';
}

/**
 * A model for many runs at once: the first call of a run asks for `delete_record` on its record,
 * the call after the tool's result (approved, expired or interrupted) answers. Continuations are
 * counted per record, and may be held at `gate` to see how many run at once.
 */
export function backlogModel() {
  const continued = new Map<string, number>();
  const order: string[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  let gate: Promise<void> | undefined;
  const inner = scriptedModel([
    (call) => {
      const last = call.prompt[call.prompt.length - 1];
      if (last?.role !== 'tool') return { toolCalls: [{ toolName: 'delete_record', args: { id: recordOf(call) } }] };
      return { text: `Did not delete ${recordOf(call)}.` };
    },
  ]);
  const model = new MockLanguageModelV3({
    doStream: async (options) => {
      const last = options.prompt[options.prompt.length - 1];
      if (last?.role !== 'tool') return inner.doStream(options);
      const record = recordOf(options);
      continued.set(record, (continued.get(record) ?? 0) + 1);
      order.push(record);
      inFlight += 1;
      maxInFlight = Math.max(maxInFlight, inFlight);
      try {
        if (gate) await gate;
        return await inner.doStream(options);
      } finally {
        inFlight -= 1;
      }
    },
  });
  return {
    model,
    continued,
    order,
    get inFlight() {
      return inFlight;
    },
    get maxInFlight() {
      return maxInFlight;
    },
    /** Holds every continuation's model call until the returned function is called. */
    hold(): () => void {
      let open!: () => void;
      gate = new Promise<void>((resolve) => (open = resolve));
      return () => {
        gate = undefined;
        open();
      };
    },
  };
}

