/** What the demo model says to anything it does not understand: the requests it does, for the tools it has. */
export function helpText(tools: Set<string>): string {
  const lines: string[] = [];
  if (tools.has('lookup_record')) lines.push('- `look up record def-456`: show a record');
  if (tools.has('delete_record')) {
    lines.push('- `delete record abc-123`: delete it once someone approves');
    if (tools.has('ask_user')) lines.push('- `clean up records`: pick several records to delete');
    lines.push('- `delete record abc-123 and record def-456`: several calls at once, decided on one card (parts joined by `and`)');
  }
  if (tools.has('deploy_service')) {
    lines.push('- `deploy api 2.3 to staging` or `deploy api 2.3 to production`: production asks you to confirm first');
    if (tools.has('ask_user')) lines.push('- `deploy api`: I ask for the environment and version');
  }
  if (tools.has('agent-billing') || tools.has('issue_refund')) {
    lines.push('- `refund order 1042 for $25`: refunded once someone other than you approves (over $1,000 needs two people)');
  }
  if (tools.has('ask_user')) lines.push('- `which regions`: a question with several answers');
  const intro =
    'I am the built-in demo model: no AI model is configured, so I follow a short script instead of reading free text.';
  const body = lines.length ? `Here is what I understand:\n${lines.join('\n')}` : 'I have no tools here, so there is nothing I can do yet.';
  return `${intro}\n${body}\nSet MODEL (for example openai/gpt-5-mini) and its API key to talk to a real model.`;
}
