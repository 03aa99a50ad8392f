import type { Route } from '../../approvals/policy-types.js';

/** Where copies of a card go besides the thread, as the card's *Sent to:* line says it; undefined for `thread`. */
export function describeRoute(route: Route): string | undefined {
  if (route === 'thread') return undefined;
  return route === 'dm' ? 'the approvers by DM' : `<#${route.channel}>`;
}
