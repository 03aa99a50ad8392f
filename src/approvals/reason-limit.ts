/**
 * Longest reason a decision may carry (characters, after trimming): what Slack's reason fields
 * declare, and what every caller is held to. A longer one is refused, never cut. Apart from
 * agent/decide.ts, which holds decisions to it, so that a modal declaring it reaches no flow.
 */
export const MAX_REASON_LENGTH = 3000;
