import type { KnownBlock } from '@slack/types';
import type { McpElicitationPayload } from '../../mcp/elicitation-payload.js';
import { escapeMrkdwn, inlineCode, slackDate } from '../kit/mrkdwn/escape-mrkdwn.js';
import { ACTION_IDS, cardBlockId, elicitationFieldBlockId, actionButtonValue } from '../kit/action-ids.js';
import { fieldElement, fieldText, isTypedInput } from '../kit/form-inputs.js';
import { fitMessage, scaled, LIMITS, truncate, context, section, oneLine, plainText } from '../kit/limits.js';
import { mention } from '../kit/mention.js';
import { unreachable } from '../../unreachable.js';

export type ElicitationCardState =
  | { kind: 'pending' }
  | { kind: 'answered'; by: string; action: 'accept' | 'decline' | 'cancel' }
  | { kind: 'cancelled'; reason?: string };

interface ElicitationCardData {
  actionId: number;
  /** The name the model called (`<server>__<tool>`). */
  toolName: string;
  payload: McpElicitationPayload;
  /** Who may answer: the run's requester. */
  askedOf?: string;
  state: ElicitationCardState;
}

/**
 * The card for an MCP server's question (elicitation). A form of one field is answered on
 * the card itself; several fields open a modal behind Answer. A URL request shows the full
 * URL and its domain and links to it (the bot never opens it), with Done once the person has
 * been there. Decline tells the server no. When the server waits inside its call, the card
 * says until when an answer can reach it.
 */
export function elicitationCard(data: ElicitationCardData): KnownBlock[] {
  return fitMessage((scale) => render(data, scale));
}

function render(d: ElicitationCardData, scale: number): KnownBlock[] {
  const p = d.payload;
  const blocks: KnownBlock[] = [
    { type: 'header', text: plainText(oneLine(`Input needed: ${d.toolName}`), LIMITS.headerText) },
    section(escapeMrkdwn(truncate(p.message.trim() || '(no message)', scaled(LIMITS.sectionText - 200, scale, 300)))),
  ];
  const asked = d.askedOf ? `Asked of ${mention(d.askedOf)} by` : 'Asked by';
  blocks.push(context(`${asked} the MCP server ${inlineCode(truncate(p.server, 100))} (tool ${inlineCode(truncate(p.tool, 100))})`));
  if (p.mode === 'url') {
    const host = hostOf(p.url);
    blocks.push(section(`*Link:* ${inlineCode(truncate(p.url, scaled(2500, scale, 300)))}\n*Domain:* ${escapeMrkdwn(truncate(host, 200))}`));
  }

  switch (d.state.kind) {
    case 'answered': {
      const verb = d.state.action === 'accept' ? (p.mode === 'url' ? ':white_check_mark: Done' : ':speech_balloon: Answered') : ':no_entry_sign: Declined';
      blocks.push(section(`${verb} by ${mention(d.state.by)}`));
      return blocks;
    }
    case 'cancelled':
      blocks.push(context(`:heavy_multiplication_x: Cancelled${d.state.reason ? `: ${escapeMrkdwn(truncate(d.state.reason, scaled(1000, scale, 200)))}` : ''}`));
      return blocks;
    case 'pending':
      break;
    default:
      return unreachable(d.state, 'elicitation card state');
  }

  const buttons: Record<string, unknown>[] = [];
  const value = actionButtonValue(d.actionId);
  if (p.mode === 'url') {
    buttons.push(
      { type: 'button', action_id: ACTION_IDS.elicitationOpenUrl, text: plainText(oneLine(`Open ${hostOf(p.url)}`), LIMITS.buttonText), url: p.url, value },
      { type: 'button', action_id: ACTION_IDS.elicitationDone, text: plainText('Done'), style: 'primary', value },
    );
  } else if (p.form.fields.length === 1) {
    const entry = p.form.fields[0]!;
    const { field } = entry;
    const { label, hint } = fieldText(entry);
    const element = fieldElement(field, ACTION_IDS.elicitationValue, scaled(LIMITS.optionText, scale, 20));
    if (isTypedInput(field)) {
      blocks.push({
        type: 'input',
        block_id: elicitationFieldBlockId(d.actionId),
        dispatch_action: true,
        optional: !entry.required,
        label: plainText(label, LIMITS.inputLabel),
        element: { ...element, dispatch_action_config: { trigger_actions_on: ['on_enter_pressed'] } },
        ...(hint ? { hint: plainText(hint, LIMITS.inputHint) } : {}),
      } as KnownBlock);
      blocks.push(context('Press Enter to send.'));
    } else {
      blocks.push(section(`*${escapeMrkdwn(truncate(label, 200))}*${hint ? `\n${escapeMrkdwn(truncate(hint, 500))}` : ''}`));
      blocks.push({ type: 'actions', block_id: elicitationFieldBlockId(d.actionId), elements: [element] } as unknown as KnownBlock);
      if (field.type === 'multi-enum') buttons.push({ type: 'button', action_id: ACTION_IDS.elicitationSubmit, text: plainText('Submit'), style: 'primary', value });
    }
  } else {
    const labels = p.form.fields.map((f) => escapeMrkdwn(truncate(fieldText(f).label, 80)));
    blocks.push(context(truncate(`${labels.length} fields: ${labels.join(', ')}`, scaled(1000, scale, 200))));
    buttons.push({ type: 'button', action_id: ACTION_IDS.elicitationAnswer, text: plainText('Answer'), style: 'primary', value });
  }
  buttons.push({ type: 'button', action_id: ACTION_IDS.elicitationDecline, text: plainText('Decline'), style: 'danger', value });
  blocks.push({ type: 'actions', block_id: cardBlockId('suspension', d.actionId), elements: buttons } as unknown as KnownBlock);
  if (p.waitsInCallUntil) {
    blocks.push(
      context(
        `:hourglass: The server waits for this answer inside its call until ${slackDate(new Date(p.waitsInCallUntil))}. After that, or if the bot restarts meanwhile, an answer can no longer reach it.`,
      ),
    );
  } else if (p.mode === 'url') {
    blocks.push(context('When you are done there, press Done: the bot then makes the call again.'));
  }
  return blocks;
}

/** The URL's host, shown beside it so a look-alike link is easier to spot. */
function hostOf(url: string): string {
  try {
    return new URL(url).host || url;
  } catch {
    return url;
  }
}
