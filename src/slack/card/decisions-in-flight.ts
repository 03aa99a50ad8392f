import type { SlackContext } from '../context.js';

/**
 * Marks a request as being decided in this process, from the decision until
 * the redraw of its card; call the returned function when done. A card this
 * process is still storing then leaves the redraw to this decision instead of
 * drawing it too.
 */
export function markDecisionInFlight(ctx: SlackContext, actionId: number): () => void {
  ctx.decisionsInFlight.set(actionId, (ctx.decisionsInFlight.get(actionId) ?? 0) + 1);
  let done = false;
  return () => {
    if (done) return;
    done = true;
    const left = (ctx.decisionsInFlight.get(actionId) ?? 1) - 1;
    if (left > 0) ctx.decisionsInFlight.set(actionId, left);
    else ctx.decisionsInFlight.delete(actionId);
  };
}
