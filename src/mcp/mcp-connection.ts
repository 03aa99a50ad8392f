import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CallToolResultSchema,
  ElicitRequestSchema,
  ErrorCode,
  McpError,
  ToolListChangedNotificationSchema,
  type CallToolResult,
  type ElicitRequestParams,
  type ElicitResult,
  type Tool as McpToolDefinition,
} from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '../logger.js';
import { errorMessage } from '../error-message.js';
import type { McpServerConfig } from './mcp-server-config.js';
import { McpUnavailableError } from './mcp-errors.js';

export type { McpToolDefinition };

/** Where a server stands: reached (`ready`), being reached again after a failure (`down`), or closed by us. */
type McpStatus = 'connecting' | 'ready' | 'down' | 'closed';

/** A call's question to the user, and how to answer it. */
export interface ElicitationRequest {
  params: ElicitRequestParams;
  respond: (result: ElicitResult) => void;
}

export interface McpConnectionOptions {
  logger: Logger;
  /** The server's tools, whenever they are (re)listed. */
  onTools: (tools: McpToolDefinition[]) => void;
  /** Delay before the first reconnect, doubled after each failure up to maxDelayMs. */
  reconnect?: { initialDelayMs?: number; maxDelayMs?: number };
}

interface CallOptions {
  /** The server asks the user something while the call runs (elicitation). */
  onElicitation: (request: ElicitationRequest) => void;
}

const DEFAULT_TIMEOUT_MS = 10 * 60_000;

/**
 * One MCP server, kept reachable: connects, lists its tools, and when the server goes away
 * (its process exits, its HTTP endpoint stops answering) logs one line, fails calls at once
 * with McpUnavailableError, and reconnects with exponential backoff (1 s doubling to 60 s by
 * default) until it is back, then lists its tools again. Calls are never retried here: a
 * call the server may have started is reported, not repeated (the runtime's durability rules
 * hold for MCP tools as for any other).
 */
export class McpConnection {
  status: McpStatus = 'connecting';
  private client: Client | undefined;
  private reason = 'not connected yet';
  private attempt = 0;
  private toolCount = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly inFlight = new Set<CallOptions>();
  private listing: Promise<McpToolDefinition[]> | undefined;
  private readonly log: Logger;

  constructor(
    readonly config: McpServerConfig,
    private readonly options: McpConnectionOptions,
  ) {
    this.log = options.logger.child({ mcpServer: config.name });
  }

  /** The first attempt to connect; resolves either way (a server that is down is retried in the background). */
  async start(): Promise<void> {
    await this.connect();
  }

  /** How long one call may take, answers to the server's questions included. */
  get callTimeoutMs(): number {
    return this.config.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  }

  async callTool(name: string, args: Record<string, unknown>, options: CallOptions): Promise<CallToolResult> {
    const client = this.client;
    if (this.status !== 'ready' || !client) throw new McpUnavailableError(this.config.name, this.reason);
    this.inFlight.add(options);
    try {
      const result = await client.callTool({ name, arguments: args }, CallToolResultSchema, { timeout: this.callTimeoutMs });
      return result as CallToolResult;
    } catch (error) {
      if (isConnectionFailure(error)) {
        this.markDown(client, errorMessage(error));
        throw new McpUnavailableError(this.config.name, errorMessage(error), { duringCall: true, cause: error });
      }
      throw error;
    } finally {
      this.inFlight.delete(options);
    }
  }

  /**
   * Lists the server's tools again now (each listing reaches onTools), as an approval pinned to a
   * tool's definition is checked before its call runs: a server may change a tool without telling
   * (no list_changed). Calls at the same moment share one listing. Fails with McpUnavailableError
   * while the server is not reached.
   */
  refreshTools(): Promise<McpToolDefinition[]> {
    const client = this.client;
    if (this.status !== 'ready' || !client) return Promise.reject(new McpUnavailableError(this.config.name, this.reason));
    this.listing ??= this.listTools(client).finally(() => (this.listing = undefined));
    return this.listing;
  }

  async close(): Promise<void> {
    this.status = 'closed';
    clearTimeout(this.timer);
    const client = this.client;
    this.client = undefined;
    await client?.close().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    const client = new Client(
      { name: 'slack-approval-bot', version: '0.1.0' },
      { capabilities: { elicitation: { form: {}, url: {} } } },
    );
    client.setRequestHandler(ElicitRequestSchema, (request) => this.elicit(request.params));
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      void this.listTools(client).catch((error: unknown) => this.log.warn({ err: error }, 'MCP server tool list could not be read after it changed'));
    });
    client.onclose = () => {
      if (this.client === client) this.markDown(client, 'the connection closed');
    };
    try {
      await client.connect(this.transport(), { timeout: 30_000 });
      if (this.status === 'closed') {
        await client.close();
        return;
      }
      this.client = client;
      await this.listTools(client);
      const wasDown = this.status === 'down';
      this.status = 'ready';
      this.attempt = 0;
      this.log.info({ tools: this.toolCount, recovered: wasDown }, wasDown ? 'MCP server reconnected' : 'MCP server connected');
    } catch (error) {
      this.client = undefined;
      await client.close().catch(() => undefined);
      if (this.status === 'closed') return;
      this.reason = errorMessage(error);
      if (this.status !== 'down') {
        // One line per outage; the retries that follow are debug.
        this.log.warn({ err: error }, 'MCP server unavailable: its tools fail until it is reached; retrying with backoff');
        this.status = 'down';
      } else {
        this.log.debug({ attempt: this.attempt, reason: this.reason }, 'MCP server still unavailable');
      }
      this.scheduleReconnect();
    }
  }

  private async listTools(client: Client): Promise<McpToolDefinition[]> {
    const tools: McpToolDefinition[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor ? { cursor } : {});
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor);
    this.toolCount = tools.length;
    this.options.onTools(tools);
    return tools;
  }

  private markDown(client: Client, reason: string): void {
    if (this.status === 'closed' || this.client !== client) return;
    this.client = undefined;
    this.reason = reason;
    this.status = 'down';
    this.log.warn({ reason }, 'MCP server unavailable: its tools fail until it is reached again; reconnecting with backoff');
    void client.close().catch(() => undefined);
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    const initial = this.options.reconnect?.initialDelayMs ?? 1_000;
    const max = this.options.reconnect?.maxDelayMs ?? 60_000;
    const delay = Math.min(max, initial * 2 ** this.attempt);
    this.attempt += 1;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.connect(), delay);
    this.timer.unref();
  }

  /**
   * A server's question goes to the call that is waiting on it. The protocol does not say which
   * call an elicitation belongs to, so with several calls to this server in flight at once it
   * cannot be shown to the right person: it is declined rather than guessed.
   */
  private elicit(params: ElicitRequestParams): Promise<ElicitResult> {
    const calls = [...this.inFlight];
    if (calls.length !== 1) {
      this.log.warn({ callsInFlight: calls.length }, 'MCP elicitation declined: it cannot be matched to one call');
      return Promise.resolve({ action: 'decline' });
    }
    return new Promise<ElicitResult>((respond) => calls[0]!.onElicitation({ params, respond }));
  }

  private transport() {
    const config = this.config;
    if (config.transport === 'http') {
      return new StreamableHTTPClientTransport(new URL(config.url), { requestInit: { headers: config.headers ?? {} } });
    }
    const transport = new StdioClientTransport({
      command: config.command,
      args: config.args ?? [],
      ...(config.env ? { env: config.env } : {}),
      ...(config.cwd ? { cwd: config.cwd } : {}),
      stderr: 'pipe',
    });
    // What the server writes to stderr is its log: kept, at debug, with the server's name.
    transport.stderr?.on('data', (chunk: Buffer) => this.log.debug({ stderr: chunk.toString('utf8').trimEnd() }, 'MCP server stderr'));
    return transport;
  }
}

/** The server went away (a closed connection, an endpoint that does not answer), as opposed to a refused call. */
function isConnectionFailure(error: unknown): boolean {
  if (error instanceof McpError) return error.code === ErrorCode.ConnectionClosed;
  return true;
}
