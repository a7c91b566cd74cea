/**
 * GET /api/matches/:id/hands on a long match (issues 16, 35): bytes and time per request, and the
 * slowest /health answered meanwhile, for the default JSON page, the largest JSON page (1,000
 * hands) and the streamed PHH of the whole match. The match is a real heads-up match of
 * BENCH_HANDS hands (default 5,000; deep stacks, a caller against a tight bot, dealt from a deck
 * secret), so the pages are read from the storage as it was written. Each request is timed
 * BENCH_REPEAT times (default 5; the median is printed). BENCH_SERVER_ROOT runs another
 * checkout's server (the "before" figures). Figures only.
 */
import { join } from "node:path";
import { callApi } from "../tests/support/http";
import { CHEAP_PASSWORDS, freshDatabase, spawnServer, whileProbingHealth } from "./support";

const TOTAL = Number(process.env.BENCH_HANDS ?? 5_000);
const REPEAT = Number(process.env.BENCH_REPEAT ?? 5);
const database = await freshDatabase(`bench_hands_${process.pid}`);
const server = await spawnServer(
  { ...CHEAP_PASSWORDS, DATABASE_URL: database.url, FAUCET_AMOUNT: "100000000" },
  process.env.BENCH_SERVER_ROOT ? ["bun", join(process.env.BENCH_SERVER_ROOT, "src/main.ts")] : undefined,
);
const api = (method: string, path: string, options: { body?: unknown; token?: string } = {}) => callApi(server.url, method, path, options);

async function timed(path: string) {
  const { result, ms, slowestHealthMs } = await whileProbingHealth(server.url, async () => {
    const response = await fetch(`${server.url}${path}`);
    return { status: response.status, bytes: (await response.arrayBuffer()).byteLength, link: response.headers.get("link") };
  });
  return { ...result, ms, slowestHealthMs };
}

try {
  const token = (await api("POST", "/api/auth/register", { body: { email: "bench@example.com", password: "bench-password" } })).body.token;
  await api("POST", "/api/me/balance/faucet", { token });
  const table = (await api("POST", "/api/tables", { token, body: { maxPlayers: 2, maxHands: TOTAL, buyIn: 1_000_000 } })).body;
  for (const [name, strategy] of [["a", "caller"], ["b", "tight"]]) {
    const bot = (await api("POST", "/api/bots", { token, body: { name, strategy } })).body;
    await api("POST", `/api/tables/${table.tableId}/join`, { token, body: { botId: bot.botId } });
  }
  let match: { matchId: string; handsPlayed: number } | undefined;
  while (!(match = (await api("GET", "/api/matches?limit=1")).body[0])) await Bun.sleep(50);
  const figures: Record<string, number> = { hands: match.handsPlayed };
  for (const [name, path] of [
    ["jsonDefault", `/api/matches/${match.matchId}/hands`],
    ["jsonMax", `/api/matches/${match.matchId}/hands?limit=1000&after=${Math.floor(match.handsPlayed / 2)}`],
    ["phh", `/api/matches/${match.matchId}/hands?format=phh`],
  ] as const) {
    const runs = [];
    for (let i = 0; i < REPEAT; i++) runs.push(await timed(path));
    const result = runs.sort((a, b) => a.ms - b.ms)[Math.floor(runs.length / 2)];
    console.log(`${name.padEnd(12)} ${result.status} ${(result.bytes / 1e6).toFixed(2)} MB in ${result.ms} ms (median of ${REPEAT}: ${runs.map((r) => r.ms).join(", ")}), slowest /health ${result.slowestHealthMs} ms, next: ${result.link ?? "none"}`);
    Object.assign(figures, { [`${name}Bytes`]: result.bytes, [`${name}Ms`]: result.ms, [`${name}SlowestHealthMs`]: result.slowestHealthMs });
  }
  console.log(JSON.stringify(figures));
} finally {
  await server.stop();
  await database.drop();
}
