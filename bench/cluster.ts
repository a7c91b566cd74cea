/**
 * The service on 1, 2 and 3 nodes (real child processes, one Postgres, one NATS): hands per second
 * end to end (6-max tables of built-ins spread over the nodes, joins through every node, timed from
 * the first join to the last match record), and the relay's cost: a remote bot's round trip
 * (its answer sent → its next action_request received) with its socket on the table's host vs on
 * another node. On this 2-core machine the nodes share the cores. Figures only, not a test.
 */
import { TestCluster } from "../tests/support/nodes";
import { WsBot } from "../tests/support/ws-bot";

const TABLES = Number(process.env.BENCH_CLUSTER_TABLES ?? 24);
const MAX_HANDS = 200;
const ROUND_TRIPS = 400;
const ENV = { FAUCET_AMOUNT: "100000000" };

async function developer(cluster: TestCluster, node: string, i: number) {
  const r = await cluster.api(node, "POST", "/api/auth/register", { body: { email: `bench${i}-${Math.random()}@example.com`, password: "a long password" } });
  await cluster.api(node, "POST", "/api/me/balance/faucet", { token: r.body.token });
  return r.body.token as string;
}

async function handsPerSecond(nodes: number): Promise<{ hands: number; seconds: number }> {
  const cluster = await TestCluster.create(`bench_cluster_${nodes}`, ENV);
  const ids = Array.from({ length: nodes }, (_, i) => `node_${i}`);
  try {
    await Promise.all(ids.map((id) => cluster.start(id)));
    const tokens = await Promise.all(Array.from({ length: 6 }, (_, i) => developer(cluster, ids[i % nodes], i)));
    const strategies = ["random", "caller", "tight", "raiser", "caller", "tight"];
    const plan: Array<{ node: string; tableId: string; seats: Array<{ token: string; botId: string }> }> = [];
    for (let t = 0; t < TABLES; t++) {
      const node = ids[t % nodes];
      const table = await cluster.api(node, "POST", "/api/tables", { token: tokens[0], body: { maxPlayers: 6, maxHands: MAX_HANDS } });
      const seats = [];
      for (let s = 0; s < 6; s++) {
        const bot = await cluster.api(node, "POST", "/api/bots", { token: tokens[s], body: { name: `t${t}s${s}`, strategy: strategies[s] } });
        seats.push({ token: tokens[s], botId: bot.body.botId });
      }
      plan.push({ node, tableId: table.body.tableId, seats });
    }
    const started = performance.now();
    // Joins through every node (most land on a node that is not the table's host).
    await Promise.all(plan.map((p, t) => Promise.all(p.seats.map((seat, s) => cluster.api(ids[(t + s) % nodes], "POST", `/api/tables/${p.tableId}/join`, { token: seat.token, body: { botId: seat.botId } })))));
    joinSeconds = (performance.now() - started) / 1000;
    let hands = 0;
    for (const p of plan) {
      for (;;) {
        const view = (await cluster.api(p.node, "GET", `/api/tables/${p.tableId}`)).body;
        if (view.status === "finished") {
          hands += (await cluster.api(p.node, "GET", `/api/matches/${view.matchId}`)).body.handsPlayed;
          break;
        }
        await Bun.sleep(20);
      }
    }
    return { hands, seconds: (performance.now() - started) / 1000 };
  } finally {
    await cluster.close();
  }
}

let joinSeconds = 0;

const percentile = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];

async function roundTrips(): Promise<{ same: number[]; cross: number[] }> {
  const cluster = await TestCluster.create("bench_cluster_relay", ENV);
  try {
    await Promise.all(["node_a", "node_b"].map((id) => cluster.start(id)));
    const result: { same: number[]; cross: number[] } = { same: [], cross: [] };
    for (const [kind, socketNode] of [["same", "node_a"], ["cross", "node_b"]] as const) {
      const token = await developer(cluster, "node_a", 0);
      const remote = (await cluster.api("node_a", "POST", "/api/bots", { token, body: { name: `r${kind}` } })).body;
      const house = (await cluster.api("node_a", "POST", "/api/bots", { token, body: { name: `h${kind}`, strategy: "caller" } })).body;
      let sentAt = 0;
      const samples = result[kind];
      const bot = await new WsBot(cluster.url(socketNode), remote.apiKey, (request) => {
        if (sentAt > 0 && samples.length < ROUND_TRIPS) samples.push(performance.now() - sentAt);
        sentAt = performance.now();
        return { action: request.legalActions.includes("check") ? "check" : "call" };
      }).connect();
      const table = (await cluster.api("node_a", "POST", "/api/tables", { token, body: { maxPlayers: 2, maxHands: 100_000, buyIn: 100_000, smallBlind: 1, bigBlind: 2 } })).body.tableId;
      for (const b of [remote, house]) await cluster.api("node_a", "POST", `/api/tables/${table}/join`, { token, body: { botId: b.botId } });
      while (samples.length < ROUND_TRIPS) await Bun.sleep(20);
      bot.disconnect();
    }
    return result;
  } finally {
    await cluster.close();
  }
}

console.log(`bench:cluster  ${TABLES} six-max tables of built-ins, up to ${MAX_HANDS} hands, joins through every node; then ${ROUND_TRIPS} remote-bot round trips`);
for (const nodes of [1, 2, 3]) {
  const { hands, seconds } = await handsPerSecond(nodes);
  console.log(`  ${nodes} node(s): ${hands} hands in ${seconds.toFixed(2)} s = ${Math.round(hands / seconds)} hands/s (the ${TABLES * 6} joins took ${joinSeconds.toFixed(2)} s)`);
}
const { same, cross } = await roundTrips();
const line = (xs: number[]) => `p50 ${percentile(xs, 50).toFixed(2)} ms, p99 ${percentile(xs, 99).toFixed(2)} ms`;
console.log(`  remote bot round trip (answer sent → next request received), socket on the table's host: ${line(same)}`);
console.log(`  remote bot round trip, socket on another node (relayed over NATS):         ${line(cross)}`);
