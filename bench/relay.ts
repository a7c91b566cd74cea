/**
 * `bun run bench:relay`: the server's own cost of a remote bot's turn. 40 six-max tables of remote
 * bots (a separate load process answers every request at once) play on one node over Postgres; the
 * server records, for every legal action, the time from its frame arriving to the table's next
 * action_request leaving (engine, the hand's messages, hand records, the next deal). Prints p50/p99
 * of that, and the client-side round trip of the same turns for reference. Loopback only, bounded.
 */
import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../src/config";
import { startServer } from "../src/server";
import { api, CHEAP_PASSWORDS, freshDatabase, ROOT } from "./support";

const TABLES = Number(process.env.BENCH_RELAY_TABLES ?? 40);
const MAX_HANDS = Number(process.env.BENCH_RELAY_HANDS ?? 50);
const SEATS = 6;

const database = await freshDatabase(`bench_relay_${process.pid}`);
const server = await startServer(loadConfig({ ...CHEAP_PASSWORDS, DATABASE_URL: database.url, PORT: "0", HOST: "127.0.0.1", MAX_OPEN_TABLES_PER_DEVELOPER: "1000" }));
try {
  const players = await Promise.all(
    Array.from({ length: TABLES }, async (_, t) => {
      const { token } = await api(server.url, "POST", "/api/auth/register", { email: `relay${t}@bench.example`, password: "bench-password" });
      await api(server.url, "POST", "/api/me/balance/faucet", undefined, token);
      const bots = [];
      for (let s = 0; s < SEATS; s++) bots.push(await api(server.url, "POST", "/api/bots", { name: `relay-${t}-${s}` }, token));
      const { tableId } = await api(server.url, "POST", "/api/tables", { maxPlayers: SEATS, buyIn: 1000, maxHands: MAX_HANDS, actionTimeoutMs: 5000 }, token);
      return { token, tableId, bots: bots as Array<{ botId: string; apiKey: string }> };
    }),
  );
  const keysFile = join(tmpdir(), `relay-keys-${process.pid}.json`);
  writeFileSync(keysFile, JSON.stringify(players.flatMap((p) => p.bots.map((b) => b.apiKey))));
  const loader = Bun.spawn(["bun", "bench/relay-load.ts", `${server.url.replace("http", "ws")}/api/bots/connect`, keysFile], { cwd: ROOT, stdin: "pipe", stdout: "pipe", stderr: "inherit" });
  const lines = (async function* () {
    let buffer = "";
    for await (const chunk of loader.stdout) {
      buffer += new TextDecoder().decode(chunk);
      for (let i = buffer.indexOf("\n"); i >= 0; i = buffer.indexOf("\n")) {
        yield buffer.slice(0, i);
        buffer = buffer.slice(i + 1);
      }
    }
  })();
  const ready = JSON.parse((await lines.next()).value as string);
  if (ready.ready !== TABLES * SEATS) throw new Error(`only ${ready.ready} of ${TABLES * SEATS} bots connected`);

  const { gateway, host } = server.app.services;
  gateway.turnaround.reset();
  const started = performance.now();
  await Promise.all(players.map(async (p) => {
    for (const bot of p.bots) await api(server.url, "POST", `/api/tables/${p.tableId}/join`, { botId: bot.botId }, p.token);
  }));
  await host.settled();
  const seconds = (performance.now() - started) / 1000;
  const serverSide = gateway.turnaround.summary();
  loader.stdin.end();
  const client = JSON.parse((await lines.next()).value as string);
  await loader.exited;
  if (!serverSide) throw new Error("no turn was timed");
  const ms = (n: number | null) => (n === null ? "–" : `${n.toFixed(3)} ms`);
  console.log(`bench:relay  ${TABLES} six-max tables of remote bots (separate process), up to ${MAX_HANDS} hands, ${seconds.toFixed(1)} s`);
  console.log(`  server: action frame in → next action_request out, ${serverSide.count} turns: p50 ${ms(serverSide.p50)}, p99 ${ms(serverSide.p99)}, max ${ms(serverSide.max)}`);
  console.log(`  client: answer sent → next request received, ${client.roundTrips} turns: p50 ${ms(client.p50)}, p99 ${ms(client.p99)}`);
  console.log(JSON.stringify({ turns: serverSide.count, p50Ms: Number(serverSide.p50.toFixed(3)), p99Ms: Number(serverSide.p99.toFixed(3)), clientP50Ms: Number(client.p50.toFixed(3)), clientP99Ms: Number(client.p99.toFixed(3)) }));
} finally {
  await server.stop();
  await database.drop();
}
