import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { seeded } from "./acpc-player";

/** A scripted agent: the official SDK's client over Streamable HTTP, with a developer's token. */
export async function agentClient(baseUrl: string, token: string): Promise<Client> {
  const client = new Client({ name: "scripted-agent", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return client;
}

export type ToolAnswer = Awaited<ReturnType<Client["callTool"]>>;

export function callTool(client: Client, name: string, args: Record<string, unknown>): Promise<ToolAnswer> {
  return client.callTool({ name, arguments: args }, undefined, { timeout: 120_000 });
}

export interface Request {
  requestId: string;
  legalActions: string[];
  minRaiseTo: number | null;
  maxRaiseTo: number | null;
}

/** Check, else call: the same answers a WebSocket bot gives in bench/gateways.ts. */
export const checkOrCall = (request: Request) => ({ action: request.legalActions.includes("check") ? "check" : "call" });

/** A random legal answer, raises included (fold only when nothing is free: a match keeps going). */
function chooseAction(request: Request, next: () => number): { action: string; amount?: number } {
  const legal = request.legalActions;
  const roll = next();
  if (legal.includes("raise") && request.minRaiseTo !== null && request.maxRaiseTo !== null && roll < 0.3) {
    const span = request.maxRaiseTo - request.minRaiseTo;
    return { action: "raise", amount: request.minRaiseTo + Math.floor(next() * Math.min(span + 1, 60)) };
  }
  if (legal.includes("check")) return { action: "check" };
  if (roll > 0.9 && legal.includes("fold")) return { action: "fold" };
  return { action: "call" };
}

/** Plays the bot's match to its end through wait_for_turn/act; what it sent, as the hand history writes it. */
export async function playWholeMatch(client: Client, botId: string, options: { seed: number; maxIdle?: number; choose?: (request: Request) => { action: string; amount?: number } }) {
  const next = seeded(options.seed);
  const sent: string[] = [];
  let raises = 0;
  let rejected = 0;
  let idle = 0;
  let lastRequestId = "";
  for (;;) {
    const answer = await callTool(client, "wait_for_turn", { botId, timeoutMs: 20_000 });
    if (answer.isError) throw new Error(`wait_for_turn failed: ${JSON.stringify(answer.content)}`);
    const turn = answer.structuredContent as { status: string; request: Request | null; events: { type: string }[] };
    if (turn.status === "match_ended") {
      const ended = turn.events.at(-1) as unknown as { type: "match_ended"; matchId: string; handsPlayed: number };
      return { ended, sent, acts: sent.length, raises, rejected, lastRequestId };
    }
    if (turn.status === "idle") {
      if (++idle > (options.maxIdle ?? 10)) throw new Error("the match never asked the agent anything");
      continue;
    }
    const request = turn.request!;
    const choice = options.choose ? options.choose(request) : chooseAction(request, next);
    const acted = await callTool(client, "act", { botId, requestId: request.requestId, ...choice });
    lastRequestId = request.requestId;
    if (acted.isError) {
      rejected += 1;
      continue;
    }
    if (choice.action === "raise") raises += 1;
    sent.push(choice.action === "raise" ? `raise ${choice.amount}` : choice.action);
  }
}
