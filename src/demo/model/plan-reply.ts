import { clarification, type Question } from './clarification.js';
import { code, formatAnswer, list, quote } from './format.js';
import { helpText } from './help-text.js';
import type { Intent } from './intent.js';
import type { Toolbox } from './toolbox.js';
import { unreachable } from '../../unreachable.js';

interface PlannedCall {
  toolName: string;
  input: Record<string, unknown>;
}

/** What the model decided to say or do for one call. */
export interface Reply {
  text: string;
  calls: PlannedCall[];
}

/** Asks what is still missing from the request, or acts on it with the tools this call may use. */
export function planReply(intent: Intent, tools: Toolbox): Reply {
  const asked = clarification(intent);
  if (asked) return ask(asked, tools);
  return act(intent, tools);
}

function ask(question: Question, tools: Toolbox): Reply {
  if (!tools.has('ask_user')) {
    // Without ask_user (the billing agent) the question goes back as the reply,
    // which is what a supervisor needs to hear anyway: what is missing.
    const choices = question.options ? ` (${question.options.map((o) => o.label).join(', ')})` : '';
    return { text: `${question.question}${choices}`, calls: [] };
  }
  return {
    text: '',
    calls: [
      {
        toolName: 'ask_user',
        input: {
          question: question.question,
          ...(question.options ? { options: question.options } : {}),
          ...(question.selectionMode ? { selectionMode: question.selectionMode } : {}),
        },
      },
    ],
  };
}

function act(intent: Intent, tools: Toolbox): Reply {
  switch (intent.kind) {
    case 'help':
      return { text: helpText(tools), calls: [] };
    case 'problem':
      return { text: intent.text, calls: [] };
    case 'answered':
      return { text: `You answered ${formatAnswer(intent.answer)} to ${quote(intent.question)}.`, calls: [] };
    case 'regions':
      return {
        text: `You chose ${list((intent.regions ?? []).map(code))}. Regions only show how a question with several answers works; nothing else happens.`,
        calls: [],
      };
    case 'lookup':
      return callEach(tools, 'lookup_record', 'look records up', intent.ids.map((id) => ({ id })));
    case 'delete':
      return callEach(tools, 'delete_record', 'delete records', intent.ids.map((id) => ({ id })));
    case 'deploy':
      return callEach(tools, 'deploy_service', 'deploy services', [
        { service: intent.service, environment: intent.environment, version: intent.version },
      ]);
    case 'refund': {
      const { orderId, amountCents, reason } = intent;
      if (amountCents === undefined || amountCents <= 0) {
        return { text: 'A refund needs an amount of more than $0.00; nothing was refunded.', calls: [] };
      }
      if (tools.has('agent-billing')) {
        const prompt = `Refund order ${orderId} for ${amountCents} cents${reason ? `. Reason: ${reason}` : ''}`;
        return { text: '', calls: [{ toolName: 'agent-billing', input: { prompt } }] };
      }
      return callEach(tools, 'issue_refund', 'issue refunds', [{ orderId, amountCents, ...(reason ? { reason } : {}) }]);
    }
    default:
      return unreachable(intent, 'intent');
  }
}

function callEach(tools: Toolbox, toolName: string, what: string, inputs: Array<Record<string, unknown>>): Reply {
  if (!tools.has(toolName)) return { text: `I can't ${what} here: no ${code(toolName)} tool is available to me.`, calls: [] };
  return { text: '', calls: inputs.map((input) => ({ toolName, input })) };
}
