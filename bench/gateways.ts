/**
 * `bun run bench:gateways`: what a gateway costs a match. The same heads-up match (one seed, a
 * reset-stacks table, a remote bot that checks or calls against the built-in caller,
 * GATEWAY_HANDS hands) played by a WebSocket bot, by a scripted agent through /mcp (the official
 * SDK's client: one HTTP request per wait_for_turn and per act) and by the clean-room ACPC client
 * on its TCP port. Prints hands/s of each and the ratios. Loopback, one process.
 */
import { loadConfig } from "../src/config";
import { startServer } from "../src/server";
import { agentClient, checkOrCall, playWholeMatch } from "../tests/support/mcp-agent";
import { WsBot } from "../tests/support/ws-bot";
import { parseGameDefinition, runAcpcPlayer } from "../tests/support/acpc-player";
import { api, CHEAP_PASSWORDS, freshDatabase } from "./support";

const HANDS = Number(process.env.GATEWAY_HANDS ?? 200);
const ROUNDS = Number(process.env.GATEWAY_ROUNDS ?? 2);

const database = await freshDatabase(`bench_gateways_${process.pid}`);
const server = await startServer(loadConfig({ ...CHEAP_PASSWORDS, DATABASE_URL: database.url, PORT: "0", HOST: "127.0.0.1", MAX_OPEN_TABLES_PER_DEVELOPER: "1000", FAUCET_AMOUNT: "1000000" }));

async function newMatch(label: string) {
  const { token } = await api(server.url, "POST", "/api/auth/register", { email: `${label}@bench.example`, password: "bench-password" });
  await api(server.url, "POST", "/api/me/balance/faucet", undefined, token);
  const remote = await api(server.url, "POST", "/api/bots", { name: `${label}-remote` }, token);
  const house = await api(server.url, "POST", "/api/bots", { name: `${label}-caller`, strategy: "caller" }, token);
  // Reset stacks (ACPC seats need them) and deep bankrolls: two passive bots never bust each other, so every run plays every hand.
  const { tableId } = await api(server.url, "POST", "/api/tables", { maxPlayers: 2, buyIn: 100_000, resetStacks: 1000, maxHands: HANDS, actionTimeoutMs: 5000, seed: "gateways" }, token);
  return { token, remote, house, tableId };
}

async function overWebSocket(round: number): Promise<{ hands: number; seconds: number }> {
  const match = await newMatch(`ws${round}`);
  const bot = await new WsBot(server.url, match.remote.apiKey, (request) => ({ action: request.legalActions.includes("check") ? "check" : "call" })).connect();
  const started = performance.now();
  await api(server.url, "POST", `/api/tables/${match.tableId}/join`, { botId: match.remote.botId }, match.token);
  await api(server.url, "POST", `/api/tables/${match.tableId}/join`, { botId: match.house.botId }, match.token);
  const ended = await bot.next((m) => m.type === "match_ended", 600_000);
  const seconds = (performance.now() - started) / 1000;
  bot.disconnect();
  return { hands: ended.handsPlayed, seconds };
}

async function overMcp(round: number): Promise<{ hands: number; seconds: number }> {
  const match = await newMatch(`mcp${round}`);
  const client = await agentClient(server.url, match.token);
  const started = performance.now();
  await api(server.url, "POST", `/api/tables/${match.tableId}/join`, { botId: match.remote.botId }, match.token);
  await api(server.url, "POST", `/api/tables/${match.tableId}/join`, { botId: match.house.botId }, match.token);
  const played = await playWholeMatch(client, match.remote.botId, { seed: round, choose: checkOrCall });
  const seconds = (performance.now() - started) / 1000;
  await client.close();
  if (played.rejected > 0) throw new Error(`${played.rejected} answers rejected`);
  return { hands: played.ended.handsPlayed, seconds };
}

async function overAcpc(round: number): Promise<{ hands: number; seconds: number }> {
  const match = await newMatch(`acpc${round}`);
  await api(server.url, "POST", `/api/tables/${match.tableId}/join`, { botId: match.remote.botId }, match.token);
  const port = await api(server.url, "POST", `/api/bots/${match.remote.botId}/acpc`, undefined, match.token);
  const player = await runAcpcPlayer(port.host, port.port, parseGameDefinition(port.gameDefinition), () => "c");
  for (let i = 0; !server.app.services.gateway.isConnected(match.remote.botId); i++) {
    if (i > 500) throw new Error("the ACPC player never greeted");
    await Bun.sleep(2);
  }
  const started = performance.now();
  await api(server.url, "POST", `/api/tables/${match.tableId}/join`, { botId: match.house.botId }, match.token);
  await server.app.services.host.settled();
  const seconds = (performance.now() - started) / 1000;
  player.socket.end();
  const [record] = await api(server.url, "GET", `/api/matches?botId=${match.remote.botId}`);
  return { hands: record.handsPlayed, seconds };
}

try {
  const results: Record<string, { hands: number; seconds: number }[]> = { websocket: [], mcp: [], acpc: [] };
  for (let round = 0; round < ROUNDS; round++) {
    results.websocket!.push(await overWebSocket(round));
    results.mcp!.push(await overMcp(round));
    results.acpc!.push(await overAcpc(round));
  }
  const rate = (runs: { hands: number; seconds: number }[]) => runs.reduce((sum, run) => sum + run.hands, 0) / runs.reduce((sum, run) => sum + run.seconds, 0);
  const ws = rate(results.websocket!);
  const mcp = rate(results.mcp!);
  const acpc = rate(results.acpc!);
  console.log(`gateways: the same ${HANDS}-hand heads-up match (seed "gateways"), ${ROUNDS} round(s) each, loopback`);
  for (const [name, runs] of Object.entries(results)) console.log(`  ${name.padEnd(9)} ${runs.map((run) => `${run.hands} hands in ${run.seconds.toFixed(2)} s`).join(", ")}  → ${rate(runs).toFixed(1)} hands/s`);
  console.log(`  MCP overhead: ${(ws / mcp).toFixed(2)}× the WebSocket's time per hand (${((1 / mcp - 1 / ws) * 1000).toFixed(1)} ms more per hand)`);
  console.log(`  ACPC overhead: ${(ws / acpc).toFixed(2)}× the WebSocket's time per hand (${((1 / acpc - 1 / ws) * 1000).toFixed(1)} ms more per hand)`);
} finally {
  await server.stop();
  await database.drop();
}
