import { code } from './format.js';
import type { Toolbox } from './toolbox.js';

/**
 * What the demo model says to anything it does not understand: the requests it does, for the
 * tools it has, then every tool it has (an MCP server's included) and how to call one by name.
 */
export function helpText(tools: Toolbox): string {
  const lines: string[] = [];
  if (tools.has('lookup_record')) lines.push('- `look up record def-456`: show a record');
  if (tools.has('delete_record')) {
    lines.push('- `delete record abc-123`: delete it once someone approves');
    if (tools.has('ask_user')) lines.push('- `clean up records`: pick several records to delete');
    lines.push('- `delete record abc-123 and record def-456`: several calls at once, decided on one card (parts joined by `and`)');
  }
  if (tools.has('deploy_service')) {
    lines.push('- `deploy api 2.3 to staging`: deploys at once');
    lines.push('- `deploy api 2.3 to production`: someone other than you approves it, then you confirm');
    if (tools.has('ask_user')) lines.push('- `deploy api`: I ask for the environment and version');
  }
  if (tools.has('agent-billing') || tools.has('issue_refund')) {
    lines.push('- `refund order 1042 for $25`: refunded once someone other than you approves (over $1,000 needs two people)');
  }
  if (tools.has('ask_user')) lines.push('- `which regions`: a question with several answers');
  const intro =
    'I am the built-in demo model: no AI model is configured, so I follow a short script instead of reading free text.';
  const parts = [intro];
  if (lines.length) parts.push(`Here is what I understand:\n${lines.join('\n')}`);
  if (tools.size) {
    parts.push(
      `I can also call any of my tools by name: ${code('call <tool> with {"key": "value"}')} or ${code('<tool> key=value')}. My tools:\n` +
        [...tools.values()].map((t) => `- ${code(t.name)}${t.description ? `: ${firstSentence(t.description)}` : ''}`).join('\n'),
    );
  } else {
    parts.push('I have no tools here, so there is nothing I can do yet.');
  }
  parts.push('Set MODEL (for example openai/gpt-5-mini) and its API key to talk to a real model.');
  return parts.join('\n');
}

/** A tool's description cut to its first sentence, at most about 100 characters. */
function firstSentence(description: string): string {
  const first = description.trim().split(/(?<=[.!?])\s/)[0]!;
  return first.length <= 100 ? first : `${first.slice(0, 99).replace(/\s+\S*$/, '')}…`;
}
