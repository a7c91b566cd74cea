import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  ErrorCode as JsonRpcError,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type CallToolResult,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { Value } from "@sinclair/typebox/value";
import type { TSchema } from "@sinclair/typebox";
import { AppError } from "../../lib/errors";
import { ActInput, ActOutput, ROUTE_TOOLS, RULES_TEXT, WaitForTurnInput, WaitForTurnOutput, type RouteTool } from "./model";
import type { AgentSeats } from "./service";

/** A route as Elysia lists it (app.routes): its validation schemas are the tools' schemas. */
export interface RouteSchemas {
  method: string;
  path: string;
  hooks: { params?: unknown; query?: unknown; body?: unknown; response?: unknown };
}

/** What one MCP request may do: the caller, and the app's own routes to call with its token. */
export interface AgentContext {
  developerId: string;
  authorization: string;
  /** The app's in-process request handler (app.handle). */
  handle: (request: Request) => Promise<Response>;
  seats: AgentSeats;
  protocolText: () => Promise<string>;
}

type JsonSchema = { type?: string; properties?: Record<string, unknown>; required?: string[]; anyOf?: JsonSchema[]; items?: unknown };

const DEFAULT_WAIT_MS = 25_000;

/** The tool list, built once from the app's routes (their schemas do not change while it runs). */
export function toolCatalogue(routes: RouteSchemas[]): Tool[] {
  const routeTools = ROUTE_TOOLS.map((tool): Tool => {
    const route = routes.find((candidate) => candidate.method === tool.method && candidate.path === tool.path);
    if (!route) throw new Error(`MCP tool ${tool.name}: no route ${tool.method} ${tool.path}`);
    return { name: tool.name, description: tool.description, inputSchema: inputSchemaOf(tool, route), outputSchema: outputSchemaOf(route) };
  });
  return [
    ...routeTools,
    {
      name: "wait_for_turn",
      description:
        "Wait (long poll) for your bot's next action request, or the end of its match, or `idle` at the timeout. Returns what the bot was sent since your previous call. While you call it (and for a while after), the bot counts as connected. Answer a request with act before its deadline; call again right after.",
      inputSchema: jsonSchema(WaitForTurnInput),
      outputSchema: jsonSchema(WaitForTurnOutput),
    },
    {
      name: "act",
      description: "Answer the bot's open action request: fold, check, call, or raise with amount = the street total to raise to. Errors: ILLEGAL_ACTION (the request stays open), STALE_REQUEST (late, repeated or unknown requestId).",
      inputSchema: jsonSchema(ActInput),
      outputSchema: jsonSchema(ActOutput),
    },
  ];
}

/** One MCP server per HTTP request (stateless: see docs/INTEROP.md), answering as the caller. */
export function agentServer(context: AgentContext, tools: Tool[]): Server {
  const server = new Server({ name: "poker-bot-service", version: "1.0.0" }, { capabilities: { tools: {}, resources: {} }, instructions: "Play poker bots: create_bot, create_table, join_table, then loop wait_for_turn → act. Read the rules resource first." });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const name = request.params.name;
    const args = request.params.arguments ?? {};
    const routeTool = ROUTE_TOOLS.find((tool) => tool.name === name);
    try {
      if (routeTool) return await callRoute(context, routeTool, args);
      if (name === "wait_for_turn") {
        const input = checked(WaitForTurnInput, args);
        return success(await context.seats.waitForTurn(context.developerId, input.botId, input.timeoutMs ?? DEFAULT_WAIT_MS));
      }
      if (name === "act") {
        const input = checked(ActInput, args);
        const reply = await context.seats.act(context.developerId, input.botId, input);
        if (reply && reply.type === "error") return failure(reply.code, reply.message);
        return success({ accepted: true, requestId: input.requestId });
      }
    } catch (error) {
      if (error instanceof AppError) return failure(error.code, error.message, error.details);
      throw error;
    }
    throw new McpError(JsonRpcError.InvalidParams, `Unknown tool: ${name}`);
  });
  server.setRequestHandler(ListResourcesRequestSchema, () => ({
    resources: [
      { uri: "poker://rules", name: "rules", title: "Rules for agents", description: "The game, the action clock and fallback, and when an agent's bot counts as connected", mimeType: "text/markdown" },
      { uri: "poker://protocol", name: "protocol", title: "The bot protocol", description: "Every message a bot is sent and sends (what wait_for_turn returns as events)", mimeType: "text/markdown" },
    ],
  }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({
    resourceTemplates: [{ uriTemplate: "poker://bots/{botId}/matches", name: "recent-matches", description: "A bot's 20 most recent matches (ids for hand_history)", mimeType: "application/json" }],
  }));
  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    const uri = request.params.uri;
    if (uri === "poker://rules") return { contents: [{ uri, mimeType: "text/markdown", text: RULES_TEXT }] };
    if (uri === "poker://protocol") return { contents: [{ uri, mimeType: "text/markdown", text: await context.protocolText() }] };
    const matches = /^poker:\/\/bots\/([A-Za-z0-9_-]{1,64})\/matches$/.exec(uri);
    if (matches) {
      const answer = await apiCall(context, "GET", `/api/matches?botId=${matches[1]}&limit=20`);
      return { contents: [{ uri, mimeType: "application/json", text: JSON.stringify(answer.body) }] };
    }
    throw new McpError(-32002, `Resource not found: ${uri}`, { uri });
  });
  return server;
}

async function callRoute(context: AgentContext, tool: RouteTool, args: Record<string, unknown>): Promise<CallToolResult> {
  const rest = { ...args };
  let path = tool.path.replace(/:(\w+)/g, (_, param: string) => {
    const argument = tool.rename?.[param] ?? param;
    const value = rest[argument];
    delete rest[argument];
    return encodeURIComponent(typeof value === "string" ? value : "");
  });
  let body: unknown;
  if (tool.method === "POST") body = rest;
  else if (Object.keys(rest).length > 0) path += `?${new URLSearchParams(Object.entries(rest).map(([key, value]): [string, string] => [key, String(value)]))}`;
  const answer = await apiCall(context, tool.method, path, body);
  if (answer.status >= 400) {
    const error = (answer.body as { error?: { code?: string; message?: string; details?: unknown } } | null)?.error;
    return failure(error?.code ?? "INTERNAL", error?.message ?? `HTTP ${answer.status}`, error?.details);
  }
  return success(Array.isArray(answer.body) ? { items: answer.body } : (answer.body as Record<string, unknown>));
}

async function apiCall(context: AgentContext, method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }> {
  const headers: Record<string, string> = { authorization: context.authorization };
  if (body !== undefined) headers["content-type"] = "application/json";
  const response = await context.handle(new Request(`http://in-process${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) }));
  const text = await response.text();
  try {
    return { status: response.status, body: text === "" ? null : JSON.parse(text) };
  } catch {
    return { status: Math.max(response.status, 500), body: { error: { code: "INTERNAL", message: text.slice(0, 500) } } };
  }
}

function checked<S extends TSchema>(schema: S, args: unknown) {
  if (Value.Check(schema, args)) return args as import("@sinclair/typebox").Static<S>;
  const first = Value.Errors(schema, args).First();
  throw new AppError(400, "VALIDATION_ERROR", `${first?.path || "(arguments)"}: ${first?.message ?? "invalid"}`);
}

function success(structured: object): CallToolResult {
  return { content: [{ type: "text", text: JSON.stringify(structured) }], structuredContent: structured as Record<string, unknown> };
}

/** A tool error, not a transport error: the agent reads the API's error code and message. */
function failure(code: string, message: string, details?: unknown): CallToolResult {
  const error = details === undefined ? { code, message } : { code, message, details };
  return { isError: true, content: [{ type: "text", text: JSON.stringify({ error }) }] };
}

/**
 * A plain JSON Schema copy. Elysia widens a route's integers to "an integer, or a string of one"
 * (it coerces query strings); an agent is told the integer alone.
 */
function jsonSchema(schema: TSchema): Tool["inputSchema"] {
  return JSON.parse(JSON.stringify(schema), (_key, value) => {
    if (value && Array.isArray(value.anyOf)) {
      const members = value.anyOf.filter((member: { type?: string; format?: string }) => !(member.type === "string" && member.format === "integer"));
      if (members.length === 1 && members.length < value.anyOf.length) {
        const { anyOf: _widened, ...rest } = value;
        return { ...rest, ...members[0] };
      }
    }
    return value;
  }) as Tool["inputSchema"];
}

/** The route's path params, query and body as one object (path params renamed as the tool says). */
function inputSchemaOf(tool: RouteTool, route: RouteSchemas): Tool["inputSchema"] {
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  for (const part of [route.hooks.params, route.hooks.query, route.hooks.body] as (JsonSchema | undefined)[]) {
    if (!part?.properties) continue;
    for (const [key, value] of Object.entries(part.properties)) {
      if (tool.omit?.includes(key)) continue;
      const name = part === route.hooks.params ? (tool.rename?.[key] ?? key) : key;
      properties[name] = value;
      if (part.required?.includes(key)) required.push(name);
    }
  }
  return jsonSchema({ type: "object", properties, ...(required.length > 0 ? { required } : {}), additionalProperties: false } as unknown as TSchema);
}

/** The route's success answer; a list becomes `{ items }` (a tool's structured output is an object). */
function outputSchemaOf(route: RouteSchemas): Tool["outputSchema"] {
  const responses = (route.hooks.response ?? {}) as Record<string, JsonSchema>;
  let schema = responses["201"] ?? responses["200"] ?? { type: "object" };
  if (schema.anyOf) schema = schema.anyOf.find((member) => member.type === "object") ?? { type: "object" };
  if (schema.type !== "object") schema = { type: "object", properties: { items: schema }, required: ["items"] };
  return jsonSchema(schema as unknown as TSchema) as Tool["outputSchema"];
}
