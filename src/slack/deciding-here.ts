import type { SlackContext } from './slack-context.js';

/**
 * Runs a decision on a request, and the redraw of its card, while marking the
 * request as being decided in this process. A card this process is still
 * storing then leaves the redraw to this decision instead of drawing it too.
 */
export async function decidingHere<T>(ctx: SlackContext, actionId: number, work: () => Promise<T>): Promise<T> {
  ctx.decisionsInFlight.set(actionId, (ctx.decisionsInFlight.get(actionId) ?? 0) + 1);
  try {
    return await work();
  } finally {
    const left = (ctx.decisionsInFlight.get(actionId) ?? 1) - 1;
    if (left > 0) ctx.decisionsInFlight.set(actionId, left);
    else ctx.decisionsInFlight.delete(actionId);
  }
}
