// `./dev pnpm -s mcp`: Wirehook's MCP tools over stdio, for local MCP clients (Claude Desktop,
// editors). The tools call the API at WIREHOOK_API_URL with the key in WIREHOOK_API_KEY.
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { apiOverHttp, createWirehookMcpServer } from '@wirehook/mcp';

const base = (process.env['WIREHOOK_API_URL'] || 'http://localhost:8080').replace(/\/+$/, '');
const key = process.env['WIREHOOK_API_KEY'];
if (!key || !/^sk_(live|test)_/.test(key)) {
  // stdout is the protocol's: the message goes to stderr.
  process.stderr.write('mcp: WIREHOOK_API_KEY must be a Wirehook API key (sk_live_… or sk_test_…)\n');
  process.exit(1);
}

const server = createWirehookMcpServer(apiOverHttp(base, `Bearer ${key}`));
await server.connect(new StdioServerTransport());
