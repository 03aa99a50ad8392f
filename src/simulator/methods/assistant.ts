/** assistant.threads.setStatus: the "is thinking…" line Slack shows under an assistant thread. */
import { invalidArguments } from '../api-error.js';
import type { Handler } from '../web-api-endpoint.js';
import { reqString } from '../wire-args.js';
import type { MethodContext } from './method-context.js';

/** Slack's limit on a status line. */
const STATUS_MAX = 50 * 1024;

export function assistantMethods(ctx: MethodContext): Record<string, Handler> {
  const { store } = ctx;
  return {
    'assistant.threads.setStatus': (args) => {
      const channel = ctx.channel(args, 'channel_id').id;
      const threadTs = reqString(args, 'thread_ts');
      if (!/^\d+\.\d+$/.test(threadTs)) throw invalidArguments('thread_ts must be a message timestamp [json-pointer:/thread_ts]');
      // An empty status is how a thread's status is cleared, so only a missing one is refused.
      if (typeof args.status !== 'string') throw invalidArguments('missing required field: status [json-pointer:/status]');
      if (args.status.length > STATUS_MAX) throw invalidArguments('status must be at most 51200 characters [json-pointer:/status]');
      store.assistantStatuses.push({ channel, threadTs, status: args.status });
      return { ok: true };
    },
  };
}
