import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, ErrorCode, McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ToolEnvironmentError, type McpTool } from '../../spec/index.ts';

/** How to reach one server, placeholders already expanded (server-config.ts). */
export type ServerEndpoint =
  | { kind: 'stdio'; command: string; args: string[]; env: Record<string, string>; cwd?: string }
  | { kind: 'http'; url: string; headers: Record<string, string> };

/** One open MCP session: a connected client (and, for stdio, its server process). */
export interface McpSession {
  /** The server process, for stdio; null over HTTP. */
  readonly pid: number | null;
  /** Every tool the server lists (pagination followed), exactly as stated. */
  listTools(): Promise<McpTool[]>;
  /**
   * `tools/call`. Resolves with the server's result, `isError` ones included
   * (those are the tool's answer). Rejects with ToolEnvironmentError for a
   * transport or protocol failure: the trial is errored, not scored.
   */
  callTool(
    name: string,
    args: unknown,
    options?: { signal?: AbortSignal; timeoutMs?: number },
  ): Promise<CallToolResult>;
  close(): Promise<void>;
}

const CLIENT_INFO = { name: 'toolmark', version: '0.1.0' };
/** Lines of a server's stderr kept to explain a failure. */
const STDERR_LINES = 20;

function describe(endpoint: ServerEndpoint): string {
  return endpoint.kind === 'stdio' ? `${endpoint.command} ${endpoint.args.join(' ')}`.trim() : endpoint.url;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Connect to a server through the official SDK client: spawn it (stdio) or
 * open a streamable HTTP session, and complete the initialize handshake
 * within `startTimeoutMs`. A failure closes whatever was started and
 * throws ToolEnvironmentError with the server's last stderr lines.
 */
export async function openSession(
  endpoint: ServerEndpoint,
  options: { startTimeoutMs: number; onSpawn?: (pid: number) => void; onExit?: (pid: number) => void },
): Promise<McpSession> {
  const stderr: string[] = [];
  let transport: StdioClientTransport | StreamableHTTPClientTransport;
  if (endpoint.kind === 'stdio') {
    const stdio = new StdioClientTransport({
      command: endpoint.command,
      args: endpoint.args,
      env: endpoint.env,
      cwd: endpoint.cwd,
      stderr: 'pipe',
    });
    stdio.stderr?.on('data', (chunk: Buffer) => {
      stderr.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      if (stderr.length > STDERR_LINES) stderr.splice(0, stderr.length - STDERR_LINES);
    });
    transport = stdio;
  } else {
    // Header values were read from the environment by the caller; they live in memory only.
    transport = new StreamableHTTPClientTransport(new URL(endpoint.url), {
      requestInit: { headers: endpoint.headers },
    });
  }
  const client = new Client(CLIENT_INFO, { capabilities: {} });
  let closed: Promise<void> | null = null;
  let pid: number | null = null;
  const close = (): Promise<void> => {
    closed ??= client
      .close()
      .catch(() => undefined)
      .then(() => {
        if (pid !== null) options.onExit?.(pid);
      });
    return closed;
  };
  const explain = (what: string, error: unknown) => {
    const tail = stderr.length > 0 ? `; server stderr: ${stderr.slice(-5).join(' | ')}` : '';
    return new ToolEnvironmentError(`MCP server (${describe(endpoint)}) ${what}: ${messageOf(error)}${tail}`, {
      cause: error,
    });
  };

  try {
    await client.connect(transport, { timeout: options.startTimeoutMs });
  } catch (error) {
    if (transport instanceof StdioClientTransport && transport.pid !== null) options.onSpawn?.((pid = transport.pid));
    await close();
    throw explain('did not start', error);
  }
  if (transport instanceof StdioClientTransport && transport.pid !== null) options.onSpawn?.((pid = transport.pid));

  return {
    pid,
    async listTools() {
      const tools: McpTool[] = [];
      let cursor: string | undefined;
      try {
        do {
          const page = await client.listTools(cursor === undefined ? {} : { cursor });
          tools.push(...(page.tools as McpTool[]));
          cursor = page.nextCursor;
        } while (cursor !== undefined);
      } catch (error) {
        throw explain('failed to list its tools', error);
      }
      return tools;
    },
    async callTool(name, args, callOptions = {}) {
      try {
        // The plain request, not client.callTool: that one checks structuredContent
        // itself and throws; toolmark reports a mismatch as invalid_tool_output.
        return (await client.request(
          { method: 'tools/call', params: { name, arguments: (args ?? {}) as Record<string, unknown> } },
          CallToolResultSchema,
          { signal: callOptions.signal, timeout: callOptions.timeoutMs },
        )) as CallToolResult;
      } catch (error) {
        if (callOptions.signal?.aborted) throw callOptions.signal.reason ?? error;
        // The server refused these arguments: its answer about the call, which the model may act on.
        if (error instanceof McpError && error.code === ErrorCode.InvalidParams)
          return { isError: true, content: [{ type: 'text', text: error.message }] };
        throw explain(`failed on tools/call ${name}`, error);
      }
    },
    close,
  };
}
