/**
 * An MCP server's tool could not be called: the server is unreachable (reconnecting), or went
 * away during the call (which may then have had an effect on the server's side: it is not repeated).
 */
export class McpUnavailableError extends Error {
  readonly code = 'MCP_UNAVAILABLE';
  readonly duringCall: boolean;

  constructor(
    readonly server: string,
    readonly reason: string,
    options: { duringCall?: boolean; cause?: unknown } = {},
  ) {
    super(
      options.duringCall
        ? `MCP server ${server} went away during the call (${reason}); whether the call took effect is unknown, and it is not repeated`
        : `MCP server ${server} is unavailable (${reason}); its tools cannot be called until the bot reaches it again`,
      { cause: options.cause },
    );
    this.name = 'McpUnavailableError';
    this.duringCall = options.duringCall ?? false;
  }
}
