import { Elysia, t } from "elysia";
import { errorResponses } from "../../lib/http";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { errors } from "../../lib/errors";
import { authPlugin, type AuthOptions } from "../../plugins/auth";
import type { AgentSeats } from "./service";
import { agentServer, toolCatalogue, type RouteSchemas } from "./tools";

export interface McpDeps {
  auth: AuthOptions;
  seats: AgentSeats;
  /** The app's own routes (their schemas) and its in-process handler: most tools are routes. */
  routes: () => RouteSchemas[];
  handle: (request: Request) => Promise<Response>;
  allowedOrigins: string[];
  maxWaitMs: number;
}

const PROTOCOL_DOC = new URL("../../../docs/PROTOCOL.md", import.meta.url);

/**
 * Whether a request's Origin may call /mcp (the MCP specification asks Streamable HTTP servers to
 * check it, against DNS rebinding: a page on evil.example whose name resolves to this server sends
 * Origin and Host both saying evil.example, so the Host is no proof). Allowed: no Origin (an agent
 * host, not a browser), a loopback origin (a local agent or UI), or one listed in MCP_ALLOWED_ORIGINS.
 */
export function originAllowed(request: Request, allowed: string[]): boolean {
  const origin = request.headers.get("origin");
  if (origin === null) return true;
  const normalized = origin.replace(/\/+$/, "");
  if (allowed.includes(normalized)) return true;
  try {
    const url = new URL(normalized);
    return (url.protocol === "http:" || url.protocol === "https:") && LOOPBACK_HOSTS.has(url.hostname);
  } catch {
    return false;
  }
}

const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

/**
 * The agents' endpoint (docs/INTEROP.md): MCP over Streamable HTTP, stateless — every POST is a
 * whole exchange with a server built for it, so any node answers any call (the bot's state lives
 * in the gateway and travels by its relay). GET (a server-sent stream) is not offered: 405.
 */
export function mcpModule(deps: McpDeps) {
  let tools: Tool[] | undefined;
  return new Elysia({ name: "module:mcp" })
    .use(authPlugin(deps.auth))
    .onBeforeHandle(({ request }) => {
      if (new URL(request.url).pathname === "/mcp" && !originAllowed(request, deps.allowedOrigins)) throw errors.forbidden("This Origin may not call /mcp (MCP_ALLOWED_ORIGINS)");
    })
    .post(
      "/mcp",
      async ({ request, body, developerId, server }) => {
        // A wait_for_turn holds the request open longer than Bun's default idle timeout (10 s).
        server?.timeout(request, Math.ceil(deps.maxWaitMs / 1000) + 10);
        tools ??= toolCatalogue(deps.routes());
        const mcp = agentServer(
          {
            developerId,
            authorization: request.headers.get("authorization") ?? "",
            handle: deps.handle,
            seats: deps.seats,
            protocolText: () => Bun.file(PROTOCOL_DOC).text(),
          },
          tools,
        );
        const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
        await mcp.connect(transport);
        try {
          return await transport.handleRequest(request, { parsedBody: body });
        } finally {
          void mcp.close();
        }
      },
      {
        auth: true,
        response: {
          200: t.Object({ jsonrpc: t.Literal("2.0") }, { additionalProperties: true, description: "The JSON-RPC answer (application/json), or 202 with no body for a notification" }),
          ...errorResponses(401, 403),
        },
        detail: {
          tags: ["agents"],
          summary: "Model Context Protocol (Streamable HTTP) for LLM agents",
          description: "JSON-RPC over POST with the developer's bearer token; tools to create and seat bots and to play them (wait_for_turn, act). See docs/INTEROP.md.",
        },
      },
    );
}
