/**
 * Failover times, real processes on one Postgres and one NATS (docs/SCALING.md, "Failover"):
 * 1. SIGKILL of a node hosting TABLES running matches of built-in bots: time until a live node owns
 *    every one of them (host_id changed in Postgres) and until every one has recorded a new hand;
 * 2. SIGTERM (graceful drain) of the node now hosting them: the same two times.
 * The lease lives 6 s and is renewed every 2 s, so a kill is seen 4–6 s after the last renewal,
 * plus up to 2 s until a peer's next claim round. Not a test: figures only.
 */
import { sql } from "drizzle-orm";
import { openDatabase, queryRows } from "../src/db";
import { TestCluster, until } from "../tests/support/nodes";

const TABLES = Number(process.env.BENCH_TABLES ?? 12);
const ENV = { FAUCET_AMOUNT: "100000000", FAUCET_COOLDOWN_MS: "0" };

async function developer(cluster: TestCluster, node: string): Promise<string> {
  const email = `failover-${Math.random().toString(36).slice(2)}@example.com`;
  const token = (await cluster.api(node, "POST", "/api/auth/register", { body: { email, password: "a long password" } })).body.token as string;
  await cluster.api(node, "POST", "/api/me/balance/faucet", { token });
  return token;
}

async function created(result: Promise<{ status: number; body: any }>): Promise<any> {
  const { status, body } = await result;
  if (status !== 201) throw new Error(`expected 201, got ${status}: ${JSON.stringify(body)}`);
  return body;
}

const cluster = await TestCluster.create("bench_failover", ENV);
const database = await openDatabase({ databaseUrl: cluster.testDb.url, maxConnections: 1 });
const hostsAndHands = async (ids: string[]) =>
  queryRows<{ id: string; host_id: string; hands: number }>(
    database.db,
    sql`select t.id, t.host_id, (select count(*) from hands h where h.match_id = t.match_id)::int as hands
        from tables t where t.id in ${sql.raw(`(${ids.map((id) => `'${id}'`).join(",")})`)}`,
  );

/** Stops `node` with `signal`; returns seconds until every table left it and until every one played a new hand. */
async function measure(ids: string[], node: string, signal: "SIGKILL" | "SIGTERM") {
  const before = new Map((await hostsAndHands(ids)).map((r) => [r.id, r.hands]));
  const child = cluster.nodes.get(node)!.child;
  const started = performance.now();
  if (signal === "SIGKILL") cluster.kill(node);
  else child.kill("SIGTERM");
  let ownedAt = 0;
  await until(
    async () => {
      const rows = await hostsAndHands(ids);
      if (!ownedAt && rows.every((r) => r.host_id !== node)) ownedAt = performance.now();
      return ownedAt && rows.every((r) => r.hands > before.get(r.id)!);
    },
    60_000,
    `the tables of ${node} to play on elsewhere`,
  );
  const playingAt = performance.now();
  await child.exited;
  cluster.nodes.delete(node);
  return { takeoverS: +((ownedAt - started) / 1000).toFixed(2), playingS: +((playingAt - started) / 1000).toFixed(2) };
}

try {
  await Promise.all(["fo_a", "fo_b", "fo_c"].map((id) => cluster.start(id)));
  const tokens = [await developer(cluster, "fo_a"), await developer(cluster, "fo_a")];
  const ids: string[] = [];
  for (let t = 0; t < TABLES; t++) {
    const { tableId } = await created(cluster.api("fo_a", "POST", "/api/tables", { token: tokens[0], body: { maxPlayers: 2, maxHands: 100_000, buyIn: 100_000 } }));
    for (const [i, token] of tokens.entries()) {
      const bot = await created(cluster.api("fo_a", "POST", "/api/bots", { token, body: { name: `c${t}_${i}`, strategy: "caller" } }));
      await created(cluster.api("fo_a", "POST", `/api/tables/${tableId}/join`, { token, body: { botId: bot.botId } }));
    }
    ids.push(tableId);
  }
  await until(async () => (await hostsAndHands(ids)).every((r) => r.hands > 0), 30_000, "every match to record a hand");
  const killed = await measure(ids, "fo_a", "SIGKILL");
  const drainFrom = (await hostsAndHands(ids))[0].host_id;
  // Drain only the tables on one node: the others stay where they are.
  const drained = await measure(
    (await hostsAndHands(ids)).filter((r) => r.host_id === drainFrom).map((r) => r.id),
    drainFrom,
    "SIGTERM",
  );
  const result = {
    tables: TABLES,
    sigkillTakeoverS: killed.takeoverS,
    sigkillPlayingAgainS: killed.playingS,
    drainTakeoverS: drained.takeoverS,
    drainPlayingAgainS: drained.playingS,
  };
  console.error(
    `[failover] ${TABLES} running matches: SIGKILL → owned by a live node after ${killed.takeoverS} s, every match playing again after ${killed.playingS} s; ` +
      `SIGTERM (drain) → ${drained.takeoverS} s / ${drained.playingS} s`,
  );
  console.log(JSON.stringify(result));
} finally {
  await database.close();
  await cluster.close();
}
