import type { LanguageModelV3ToolResultPart } from '@ai-sdk/provider';
import { code, formatAnswer, quote, sentence, usd, when } from './format.js';
import { asRecord } from './json-values.js';
import { unreachable } from '../../unreachable.js';
import { splitEditNote } from '../../agent/edited-call.js';
import { readDenial } from '../../agent/denied-call.js';
import { findUser } from '../../sandbox/workspace.js';

/** One sentence about a tool result, from what the result says, never from what was asked for. */
export function describeResult(result: LanguageModelV3ToolResultPart, input: Record<string, unknown> | undefined): string {
  const { output, toolName } = result;
  const args = input ?? {};
  switch (output.type) {
    case 'execution-denied':
      return `I did not ${actionPhrase(toolName, args)}: ${reasonPhrase(output.reason)}.`;
    case 'error-text':
      return `That failed: ${sentence(output.value.replace(/^Tool \S+ failed:\s*/, ''))}`;
    case 'error-json':
      return `That failed: ${sentence(JSON.stringify(output.value))}`;
    case 'text': {
      // An approver changed the arguments before approving: what ran is in the result, said as such.
      const edited = splitEditNote(output.value);
      if (edited) return `An approver changed the arguments before approving. ${describeJson(toolName, edited.value, args)}`;
      return sentence(output.value);
    }
    case 'content':
      return sentence(output.value.map((p) => (p.type === 'text' ? p.text : '')).join(' ').trim() || `${toolName} returned a file.`);
    case 'json':
      return describeJson(toolName, output.value, args);
    default:
      return unreachable(output, 'tool result output');
  }
}

function describeJson(toolName: string, raw: unknown, args: Record<string, unknown>): string {
  const value = asRecord(raw);
  if (value && toolName.startsWith('agent-')) {
    const text = typeof value.text === 'string' ? value.text.trim() : '';
    return text || `The ${toolName.slice('agent-'.length)} agent finished without a reply.`;
  }
  if (value && toolName === 'delete_record') {
    if (value.deleted === true) return `Deleted record ${String(value.id ?? args.id)}.`;
    if (value.reason === 'already-deleted' && typeof value.deletedAt === 'string') {
      return `Record ${String(value.id ?? args.id)} was already deleted ${when(value.deletedAt)}, so nothing was deleted.`;
    }
    if (typeof value.message === 'string') return `${sentence(value.message)} Nothing was deleted.`;
  }
  if (value && toolName === 'lookup_record') {
    const record = asRecord(value.record);
    if (value.found === true && record) {
      const deleted = record.deleted === true ? ` It was deleted${typeof record.deletedAt === 'string' ? ` ${when(record.deletedAt)}` : ''}.` : '';
      return `Record ${String(record.id)} is ${quote(String(record.title))}, owned by ${String(record.owner)}.${deleted}`;
    }
    if (typeof value.message === 'string') return sentence(value.message);
  }
  if (value && toolName === 'deploy_service') {
    if (value.deployed === true) {
      return `Deployed ${String(value.service)} ${String(value.version)} to ${String(value.environment)}.`;
    }
    if (value.status === 'cancelled') return 'Deployment cancelled.';
    if (typeof value.message === 'string') return sentence(value.message);
  }
  if (value && toolName === 'issue_refund' && typeof value.amountCents === 'number') {
    const left = typeof value.remainingCents === 'number' ? `; ${usd(value.remainingCents)} is left to refund on the order` : '';
    return `Refunded ${usd(value.amountCents)} on order ${String(value.orderId)}. Refund #${String(value.refundId)}${left}.`;
  }
  if (value && toolName === 'ask_user' && 'answer' in value) return `You answered ${formatAnswer(value.answer)}.`;
  if (typeof raw === 'string') return sentence(raw);
  const shown = JSON.stringify(raw) ?? 'nothing';
  return `${code(toolName)} returned ${shown.length > 300 ? `${shown.slice(0, 300)}…` : shown}.`;
}

function actionPhrase(toolName: string, args: Record<string, unknown>): string {
  switch (toolName) {
    case 'delete_record':
      return `delete record ${String(args.id ?? '')}`.trim();
    case 'lookup_record':
      return `look up record ${String(args.id ?? '')}`.trim();
    case 'deploy_service':
      return ['deploy', args.service, args.version, args.environment ? `to ${String(args.environment)}` : undefined]
        .filter((p) => p !== undefined && p !== '')
        .map(String)
        .join(' ');
    case 'issue_refund':
      return typeof args.amountCents === 'number'
        ? `refund ${usd(args.amountCents)} on order ${String(args.orderId)}`
        : `refund order ${String(args.orderId)}`;
    case 'ask_user':
      return typeof args.question === 'string' ? `get an answer to ${quote(args.question)}` : 'get an answer';
    default:
      return toolName.startsWith('agent-')
        ? `hand this to the ${toolName.slice('agent-'.length)} agent`
        : `run ${code(toolName)}`;
  }
}

/**
 * The runtime's stock reasons are full sentences written for models; after "I did
 * not …:" they read better as a clause. A person's own reason is kept word for word.
 */
function reasonPhrase(reason: string | undefined): string {
  const denial = reason ? readDenial(reason) : undefined;
  if (denial) return denialPhrase(denial);
  const trimmed = reason?.trim().replace(/[.!\s]+$/, '') ?? '';
  if (!trimmed || /^the user declined this tool call$/i.test(trimmed)) return 'the request was declined';
  if (/^the approval request expired/i.test(trimmed)) return 'the request expired before anyone approved it';
  return /^(?:The|A|An|This|That|It) /.test(trimmed) ? trimmed[0]!.toLowerCase() + trimmed.slice(1) : trimmed;
}

/**
 * Who acted, by their name in the sandbox's workspace (where the demo model runs): "@carol". A
 * mention would not do: what a model writes is escaped before it is posted, so nobody is pinged.
 */
function who(by: string | undefined): string | undefined {
  if (!by || by === 'api') return undefined;
  const user = findUser(by);
  return user ? `@${user.name}` : by;
}

/** What an edit changed, as the runtime says it ("amountCents 2500 → 150000"), with amounts in cents as money. */
function changesPhrase(changes: string): string {
  return changes.replace(/\b([A-Za-z][\w.]*?)_?[Cc]ents (-?\d+) → (-?\d+)\b/g, (_all, key: string, before: string, after: string) => {
    const name = key.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
    return `${name} ${usd(Number(before))} → ${usd(Number(after))}`;
  });
}

/** The runtime's denial sentence (see denialMessage) in the demo's words: who did it, their reason quoted. */
function denialPhrase(denial: NonNullable<ReturnType<typeof readDenial>>): string {
  switch (denial.kind) {
    case 'declined': {
      const by = who(denial.by);
      const edited = denial.edit ? ` after ${who(denial.edit.editor) ?? 'an approver'} changed it (${changesPhrase(denial.edit.changes)})` : '';
      const said = denial.reason ? `, saying ${quote(denial.reason)}` : '';
      return `${by ? `${by} declined it` : 'the request was declined'}${edited}${said}`;
    }
    case 'expired':
      return 'the request expired before anyone approved it';
    case 'cancelled': {
      const by = who(denial.by);
      return `${by ? `${by} cancelled the request` : 'the request was cancelled'}${denial.reason ? ` (${denial.reason.replace(/[.!\s]+$/, '')})` : ''}`;
    }
    case 'policy':
      return `the approval policy refuses it${denial.freeze ? ` during the change freeze ${quote(denial.freeze.name)}` : ''}, saying ${quote(denial.reason)}`;
    default:
      return unreachable(denial, 'denial');
  }
}
