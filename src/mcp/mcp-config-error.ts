/** An MCP server configured wrongly (an agent it names that is not there, a name used twice): start-up stops naming it. */
export class McpConfigError extends Error {
  readonly code = 'MCP_CONFIG_INVALID';
  constructor(
    message: string,
    readonly server: string,
  ) {
    super(message);
    this.name = 'McpConfigError';
  }
}
