import { clarification } from './clarification.js';
import type { Intent } from './intent.js';
import type { Toolbox } from './toolbox.js';
import { parseRequest } from './parse-request.js';
import { planReply, type Reply } from './plan-reply.js';
import { normalise } from './words.js';

const VERB = /\b(?:refund|deploy|ship|roll\s*out|clean\s*-?\s*up|delete|remove|drop|erase|look\s*-?\s*up|show|find|fetch|get|check|describe|view|read)\b/i;
const ACTING: ReadonlySet<Intent['kind']> = new Set(['lookup', 'delete', 'deploy', 'refund']);

/**
 * Several requests in one message ("refund order 1042 for $25 and order 1044 for $10 and delete
 * record abc-123", parts joined by `and`, `then` or `;`) become the calls of one step, as a model
 * calls tools in parallel: a part without a verb takes the one before it. Only when every part is
 * a complete request the tools can act on; anything else is read as one request, as before.
 */
export function planRequests(text: string, tools: Toolbox): Reply {
  const parts = splitRequests(text);
  if (parts.length > 1) {
    const intents = parts.map(parseRequest);
    if (intents.every((i) => ACTING.has(i.kind) && clarification(i) === undefined)) {
      const replies = intents.map((i) => planReply(i, tools));
      if (replies.every((r) => r.calls.length > 0 && r.text === '')) {
        // The same call asked twice is made once, as within one request.
        const calls = new Map(replies.flatMap((r) => r.calls).map((c) => [`${c.toolName}\u0000${JSON.stringify(c.input)}`, c]));
        return { text: '', calls: [...calls.values()] };
      }
    }
  }
  return planReply(parseRequest(text), tools);
}

/** The parts of a compound request, each with a verb (inherited from the part before when it has none). */
function splitRequests(raw: string): string[] {
  const pieces = normalise(raw)
    .split(/\s*(?:;|\band\s+then\b|\bthen\b|\band\b)\s*/i)
    .map((p) => p.trim())
    .filter(Boolean);
  const parts: string[] = [];
  let verb: string | undefined;
  for (const piece of pieces) {
    const own = VERB.exec(piece)?.[0];
    if (own) verb = own;
    if (!own && verb === undefined) return [raw];
    parts.push(own ? piece : `${verb} ${piece}`);
  }
  return parts;
}
