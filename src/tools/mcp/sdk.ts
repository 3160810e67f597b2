/**
 * The MCP SDK, loaded on first use: a process with no MCP servers configured never pays for
 * importing it.
 */
export type McpSdk = Awaited<ReturnType<typeof importSdk>>;

async function importSdk() {
  const [client, stdio, streamableHttp, sse, types] = await Promise.all([
    import("@modelcontextprotocol/sdk/client/index.js"),
    import("@modelcontextprotocol/sdk/client/stdio.js"),
    import("@modelcontextprotocol/sdk/client/streamableHttp.js"),
    import("@modelcontextprotocol/sdk/client/sse.js"),
    import("@modelcontextprotocol/sdk/types.js"),
  ]);
  return {
    Client: client.Client,
    StdioClientTransport: stdio.StdioClientTransport,
    StreamableHTTPClientTransport: streamableHttp.StreamableHTTPClientTransport,
    SSEClientTransport: sse.SSEClientTransport,
    McpError: types.McpError,
    ErrorCode: types.ErrorCode,
    ToolListChangedNotificationSchema: types.ToolListChangedNotificationSchema,
    CreateMessageRequestSchema: types.CreateMessageRequestSchema,
  };
}

let loading: Promise<McpSdk> | undefined;

export function loadSdk(): Promise<McpSdk> {
  loading ??= importSdk();
  return loading;
}
