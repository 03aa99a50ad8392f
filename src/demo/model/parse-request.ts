import type { Intent } from './intent.js';
import { parseDeploy } from './parse-deploy.js';
import { parseRefund } from './parse-refund.js';
import { normalise, words } from './words.js';

/*
 * What the demo model understands (case-insensitive, anywhere in the message, a
 * leading `<@U…>` mention ignored; the earliest phrase wins):
 *   look up record def-456 | lookup def-456 | show record ghi-789   → lookup_record
 *   delete record abc-123 | delete abc-123 def-456                  → delete_record (one call per id)
 *   delete record (no id)                                          → ask_user, pick one record
 *   clean up records | delete records (no ids)                     → ask_user, multi_select records
 *   deploy api 2.3 to production | deploy web v1.4 to staging       → deploy_service
 *   deploy api / deploy api to production / deploy to staging      → ask_user for what is missing
 *                                                                    (service, then environment, then version)
 *   refund order 1042 for $25 | refund $1,500.50 on order 1043      → agent-billing, or issue_refund when
 *   refund order 1044 for 500 cents because damaged                   serving the billing agent
 *   refund order 1042 (no amount) | refund $25 (no order)           → ask_user for what is missing
 *   which regions …                                                → ask_user, multi_select regions
 *   anything else                                                  → the help text
 */

const helpOnly = /^(?:help|\?|what can you do\??|commands|hi|hello|hey)[.!?]*$/i;

interface Verb {
  pattern: RegExp;
  /** `rest` is the text after the verb; undefined means "not this after all, try the next phrase". */
  read(rest: string, whole: string): Intent | undefined;
}

const verbs: Verb[] = [
  { pattern: /\brefund\b/i, read: (_rest, whole) => parseRefund(whole) },
  { pattern: /\b(?:deploy|ship|roll\s*out)\b/i, read: (rest) => ({ kind: 'deploy', ...parseDeploy(rest) }) },
  { pattern: /\bclean\s*-?\s*up\b/i, read: (rest) => ({ kind: 'delete', ids: recordIds(rest), several: true }) },
  {
    pattern: /\b(?:delete|remove|drop|erase)\b/i,
    read: (rest) => {
      const ids = recordIds(rest);
      // "delete everything" is not a record request; only ids or the word "record" make it one.
      if (!ids.length && !/\brecords?\b/i.test(rest)) return undefined;
      return { kind: 'delete', ids, several: ids.length > 1 || /\b(?:records|all|some|several)\b/i.test(rest) };
    },
  },
  {
    pattern: /\b(?:look\s*-?\s*up|show|find|fetch|get|check|describe|view|read)\b/i,
    read: (rest) => {
      const ids = recordIds(rest);
      if (!ids.length && !/\brecords?\b/i.test(rest)) return undefined;
      return { kind: 'lookup', ids };
    },
  },
  { pattern: /\bregions?\b/i, read: () => ({ kind: 'regions' }) },
];

export function parseRequest(raw: string): Intent {
  const text = normalise(raw);
  if (!text || helpOnly.test(text)) return { kind: 'help' };
  const found = verbs
    .map((verb) => ({ verb, match: verb.pattern.exec(text) }))
    .filter((f): f is { verb: Verb; match: RegExpExecArray } => f.match !== null)
    .sort((a, b) => a.match.index - b.match.index);
  for (const { verb, match } of found) {
    const intent = verb.read(text.slice(match.index + match[0].length), text);
    if (intent) return intent;
  }
  return { kind: 'help' };
}

/** An id has a digit in it: that is what tells `abc-123` from "the", "it" or "everything". */
function recordIds(text: string): string[] {
  return [...new Set(words(text).filter((w) => /\d/.test(w) && /^[A-Za-z0-9][\w.:-]*$/.test(w)))];
}
