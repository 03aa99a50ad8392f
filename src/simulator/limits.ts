/**
 * The limits Slack enforces on what an app posts, publishes or opens: Block Kit's documented
 * limits plus the ones observed on the real API (the 13k-character block JSON refusal). This is
 * the one table the simulator checks against; see block-limits.ts.
 */
export const SLACK_LIMITS = {
  blocksPerMessage: 50,
  /** Observed, not documented: messages with more block JSON than this are refused (msg_blocks_too_long). */
  blocksJsonChars: 13_000,
  textChars: 40_000,
  blocksPerView: 100,
  viewTitleChars: 24,
  /** A modal's submit and close buttons. */
  viewButtonChars: 24,
  privateMetadataChars: 3_000,
  callbackIdChars: 255,
  blockIdChars: 255,
  actionIdChars: 255,
  sectionTextChars: 3_000,
  sectionFields: 10,
  sectionFieldChars: 2_000,
  headerTextChars: 150,
  actionsElements: 25,
  contextElements: 10,
  /** Any text object without a tighter limit of its own (context elements). */
  textObjectChars: 3_000,
  buttonTextChars: 75,
  buttonValueChars: 2_000,
  buttonUrlChars: 3_000,
  selectOptions: 100,
  overflowOptions: 5,
  choiceOptions: 10,
  optionTextChars: 75,
  optionValueChars: 150,
  optionDescriptionChars: 75,
  placeholderChars: 150,
  confirmTitleChars: 100,
  confirmTextChars: 300,
  /** The confirm and deny buttons of a confirm dialog. */
  confirmButtonChars: 30,
  inputLabelChars: 2_000,
  inputHintChars: 2_000,
  plainTextInputChars: 3_000,
  /** The largest `max_length` a plain_text_input may ask for. */
  plainTextInputMaxLength: 3_000,
  /** Cumulative over all `markdown` blocks of one message. */
  markdownChars: 12_000,
  /** All the text in one `rich_text` block. */
  richTextChars: 12_000,
  /** Modals on one person's stack (views.push refuses a fourth). */
  viewStack: 3,
} as const;
