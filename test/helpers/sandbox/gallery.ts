/** Block Kit covering everything the sandbox renders, plus some it must show as JSON, and text that must stay text. */
export const galleryBlocks = [
  { type: 'header', text: { type: 'plain_text', text: 'Gallery :rocket:', emoji: true } },
  {
    type: 'section',
    text: { type: 'mrkdwn', text: '*bold* _italic_ ~strike~ `code` <https://example.com|a link> <@U0BOB> <!subteam^S0FINANCE> <#C0GENERAL> :white_check_mark:\n&gt; a quote\n```\nline 1 &lt;script&gt;alert(1)&lt;/script&gt;\nline 2\n```' },
    fields: [
      { type: 'mrkdwn', text: '*Field one*\nvalue' },
      { type: 'plain_text', text: 'Field <b>two</b>' },
    ],
    accessory: { type: 'button', action_id: 'accessory', text: { type: 'plain_text', text: 'Accessory' }, value: 'acc' },
  },
  { type: 'context', elements: [{ type: 'mrkdwn', text: 'Context <!date^1726133698^{date_short} {time}|2024-09-12> <javascript:alert(1)|bad link>' }] },
  { type: 'divider' },
  {
    type: 'actions',
    block_id: 'controls',
    elements: [
      { type: 'button', action_id: 'go', style: 'primary', text: { type: 'plain_text', text: 'Go' }, value: 'go' },
      { type: 'button', action_id: 'stop', style: 'danger', text: { type: 'plain_text', text: 'Stop' }, value: 'stop' },
      { type: 'static_select', action_id: 'one', placeholder: { type: 'plain_text', text: 'Pick one' }, options: [{ text: { type: 'plain_text', text: 'Alpha' }, value: 'a' }, { text: { type: 'plain_text', text: 'Beta' }, value: 'b' }] },
      { type: 'multi_static_select', action_id: 'many', placeholder: { type: 'plain_text', text: 'Pick some' }, options: [{ text: { type: 'plain_text', text: 'Red' }, value: 'r' }, { text: { type: 'plain_text', text: 'Green' }, value: 'g' }, { text: { type: 'plain_text', text: 'Blue' }, value: 'b' }] },
    ],
  },
  {
    type: 'actions',
    block_id: 'choices',
    elements: [
      { type: 'radio_buttons', action_id: 'radio', options: [{ text: { type: 'plain_text', text: 'Yes' }, value: 'y', description: { type: 'plain_text', text: 'go ahead' } }, { text: { type: 'plain_text', text: 'No' }, value: 'n' }] },
      { type: 'checkboxes', action_id: 'boxes', initial_options: [{ text: { type: 'mrkdwn', text: '*Runbook*' }, value: 'runbook' }], options: [{ text: { type: 'mrkdwn', text: '*Runbook*' }, value: 'runbook' }, { text: { type: 'mrkdwn', text: 'Rollback' }, value: 'rollback' }] },
    ],
  },
  { type: 'markdown', text: '## Markdown block\nSome **bold** and a [link](https://example.com).\n- one\n- two\n\n```\ncode\n```' },
  {
    type: 'rich_text',
    elements: [
      { type: 'rich_text_section', elements: [{ type: 'text', text: 'Rich ' }, { type: 'text', text: 'bold', style: { bold: true } }, { type: 'text', text: ' for ' }, { type: 'user', user_id: 'U0CAROL' }, { type: 'emoji', name: 'tada' }] },
      { type: 'rich_text_list', style: 'bullet', elements: [{ type: 'rich_text_section', elements: [{ type: 'text', text: 'item one' }] }, { type: 'rich_text_section', elements: [{ type: 'text', text: 'item two' }] }] },
      { type: 'rich_text_preformatted', elements: [{ type: 'text', text: 'preformatted <img src=x onerror=alert(1)>' }] },
    ],
  },
  { type: 'future_block', block_id: 'future', payload: { shown: 'as JSON' } },
];

export const galleryModal = {
  type: 'modal',
  callback_id: 'gallery',
  title: { type: 'plain_text', text: 'Gallery form' },
  submit: { type: 'plain_text', text: 'Send' },
  close: { type: 'plain_text', text: 'Cancel' },
  blocks: [
    { type: 'section', text: { type: 'mrkdwn', text: 'Fill in *everything*.' } },
    { type: 'input', block_id: 'notes', label: { type: 'plain_text', text: 'Notes' }, hint: { type: 'plain_text', text: 'Several lines are fine' }, element: { type: 'plain_text_input', action_id: 'value', multiline: true } },
    { type: 'input', block_id: 'count', label: { type: 'plain_text', text: 'Count' }, element: { type: 'number_input', action_id: 'value', is_decimal_allowed: false } },
    { type: 'input', block_id: 'env', label: { type: 'plain_text', text: 'Environment' }, element: { type: 'static_select', action_id: 'value', placeholder: { type: 'plain_text', text: 'Choose…' }, options: [{ text: { type: 'plain_text', text: 'staging' }, value: '0' }, { text: { type: 'plain_text', text: 'production' }, value: '1' }] } },
    { type: 'input', block_id: 'confirm', label: { type: 'plain_text', text: 'Confirm' }, element: { type: 'radio_buttons', action_id: 'value', options: [{ text: { type: 'plain_text', text: 'Yes' }, value: 'true' }, { text: { type: 'plain_text', text: 'No' }, value: 'false' }] } },
    { type: 'input', block_id: 'checks', optional: true, label: { type: 'plain_text', text: 'Checks' }, element: { type: 'checkboxes', action_id: 'value', options: [{ text: { type: 'plain_text', text: 'Runbook read' }, value: 'runbook' }] } },
  ],
};
