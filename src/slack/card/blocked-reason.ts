import { expiredGrant, noMatchingGrant } from '../../db/grants.js';

/** The reasons the runtime writes on a `blocked` audit event besides a grant that does not match, in words. */
const blockedWords: Record<string, string> = {
  'preview failed': 'its preview failed right before it was to run, so the state it was approved for could not be checked',
  'tool definition unreadable': "its MCP server's definition of the tool could not be checked right before it ran",
  'tool gone': 'its MCP server no longer offers the tool',
  'tool definition changed': 'its MCP server changed the tool after it was approved, and the arguments no longer fit it',
  [expiredGrant]: 'the approval expired before the call ran; it was asked again',
};

/**
 * Why an approved call was stopped, in words (plain text), from its `blocked` audit event's
 * reason: undefined for arguments that no longer match (the card's usual words); a reason of a
 * `beforeToolCall` hook's, or any other, quoted.
 */
export function blockedReasonText(reason: string | undefined): string | undefined {
  if (reason === undefined || reason === noMatchingGrant) return undefined;
  return Object.hasOwn(blockedWords, reason) ? blockedWords[reason] : `a check right before it ran refused it (${reason})`;
}
