import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { TestCluster, until } from "../support/nodes";
import { WsBot } from "../support/ws-bot";

// A NATS server of this file's own (the shared one serves other files), stopped and started again.
setDefaultTimeout(120_000);

let port = 0;
let nats: ReturnType<typeof Bun.spawn> | undefined;
let cluster: TestCluster;

/** A port nobody listens on now: the OS picks it, we release it for nats-server. */
function freePort(): number {
  const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const { port: free } = probe;
  probe.stop(true);
  return free;
}

const natsAnswers = () =>
  Bun.connect({ hostname: "127.0.0.1", port, socket: { data() {} } }).then(
    (socket) => (socket.end(), true),
    () => false,
  );

/** Starts nats-server on `port`; false if it exits first (the port was taken meanwhile). */
async function startNats(): Promise<boolean> {
  const server = Bun.spawn(["/usr/sbin/nats-server", "-a", "127.0.0.1", "-p", String(port)], { stdout: "ignore", stderr: "ignore" });
  nats = server;
  let exited = false;
  void server.exited.then(() => (exited = true));
  await until(async () => exited || (await natsAnswers()), 20_000, "the private NATS server");
  if (exited) nats = undefined;
  return !exited;
}

async function stopNats(): Promise<void> {
  nats?.kill("SIGKILL");
  await nats?.exited;
  nats = undefined;
}

beforeAll(async () => {
  // A port chosen in advance can be taken by someone else's socket before nats-server binds it: try another.
  for (let attempt = 0; attempt < 5; attempt++) {
    port = freePort();
    if (await startNats()) break;
  }
  if (!nats) throw new Error("the private NATS server did not start on any of 5 free ports");
  cluster = await TestCluster.create("outage", { NATS_URL: `nats://127.0.0.1:${port}` });
  await Promise.all(["node_a", "node_b"].map((id) => cluster.start(id)));
});
afterAll(async () => {
  await cluster?.close();
  await stopNats();
});

async function developer(node: string) {
  const email = `o-${Math.random().toString(36).slice(2)}@example.com`;
  const token = (await cluster.api(node, "POST", "/api/auth/register", { body: { email, password: "a long password" } })).body.token as string;
  expect((await cluster.api(node, "POST", "/api/me/balance/faucet", { token })).status).toBe(200);
  return token;
}

const peersOf = async (node: string) => (await cluster.api(node, "GET", "/health")).body.peers.length as number;

describe("NATS goes away and comes back", () => {
  test("while it is down the host serves its own table and other nodes answer 503 or the stored row; once it is back, any node serves again and the books balance", async () => {
    await until(async () => (await peersOf("node_b")) === 1, 15_000, "node_b to see node_a");
    const [ownerA, ownerB] = [await developer("node_a"), await developer("node_b")];
    const table = (await cluster.api("node_a", "POST", "/api/tables", { token: ownerA, body: { maxPlayers: 2, maxHands: 10 } })).body;
    const botA = (await cluster.api("node_a", "POST", "/api/bots", { token: ownerA, body: { name: "a", strategy: "caller" } })).body;
    const botB = (await cluster.api("node_b", "POST", "/api/bots", { token: ownerB, body: { name: "b", strategy: "raiser" } })).body;

    await stopNats();
    // Cut off, a node lists no peer: well before the 6 s a silent peer takes to age out.
    const cutAt = performance.now();
    await until(async () => (await peersOf("node_b")) === 0 && (await peersOf("node_a")) === 0, 3_000, "the nodes to stop listing peers they cannot reach");
    expect(performance.now() - cutAt).toBeLessThan(3_000);
    const refused = await cluster.api("node_b", "POST", `/api/tables/${table.tableId}/join`, { token: ownerB, body: { botId: botB.botId } });
    expect(refused.status).toBe(503);
    expect(refused.body.error.code).toBe("TABLE_HOST_UNAVAILABLE");
    expect(refused.headers.get("retry-after")).toBe("2");
    // Nothing was charged for the refused join.
    expect((await cluster.api("node_b", "GET", "/api/me/balance", { token: ownerB })).body.balance).toBe(10_000);
    const stored = await cluster.api("node_b", "GET", `/api/tables/${table.tableId}`);
    expect(stored.status).toBe(200);
    expect(stored.body).toMatchObject({ tableId: table.tableId, status: "waiting", seats: [] });
    const local = await cluster.api("node_a", "POST", `/api/tables/${table.tableId}/join`, { token: ownerA, body: { botId: botA.botId } });
    expect(local.status).toBe(201);

    expect(await startNats()).toBe(true);
    await until(async () => (await peersOf("node_b")) === 1 && (await peersOf("node_a")) === 1, 20_000, "the nodes to find each other again");
    const joined = await until(async () => {
      const attempt = await cluster.api("node_b", "POST", `/api/tables/${table.tableId}/join`, { token: ownerB, body: { botId: botB.botId } });
      return attempt.status === 201 ? attempt : null;
    }, 20_000, "a join through node_b");
    expect(joined.body).toMatchObject({ botId: botB.botId, chips: 1000 });
    const finished = await until(async () => {
      const view = await cluster.api("node_b", "GET", `/api/tables/${table.tableId}`);
      return view.body.status === "finished" ? view.body : null;
    }, 60_000, "the match to end");
    const [match] = (await cluster.api("node_b", "GET", `/api/matches?botId=${botB.botId}`)).body;
    expect(match.handsPlayed).toBeGreaterThan(0);
    // A table nobody hosts any more reads from the database, with the hands its match recorded.
    expect(finished).toMatchObject({ matchId: match.matchId, handsPlayed: match.handsPlayed });
    expect(match.players.map((p: any) => p.botId).sort()).toEqual([botA.botId, botB.botId].sort());
    const report = await cluster.audit();
    expect(report.problems).toEqual([]);
  });

  test("a key rotated through one node while NATS is down: the old key's socket on another node plays at most one more action and is closed, without the bus", async () => {
    await until(async () => (await peersOf("node_b")) === 1 && (await peersOf("node_a")) === 1, 20_000, "the nodes to see each other");
    const owner = await developer("node_b");
    const remote = (await cluster.api("node_b", "POST", "/api/bots", { token: owner, body: { name: "leaked" } })).body;
    const house = (await cluster.api("node_b", "POST", "/api/bots", { token: owner, body: { name: "house", strategy: "caller" } })).body;
    const socket = await new WsBot(cluster.url("node_b"), remote.apiKey, (request) => ({ action: request.legalActions.includes("check") ? "check" : "call" })).connect();
    const table = (await cluster.api("node_b", "POST", "/api/tables", { token: owner, body: { maxPlayers: 2, maxHands: 100_000, smallBlind: 1, bigBlind: 1 } })).body;
    for (const botId of [remote.botId, house.botId]) expect((await cluster.api("node_b", "POST", `/api/tables/${table.tableId}/join`, { token: owner, body: { botId } })).status).toBe(201);
    await socket.next((m) => m.type === "hand_ended" && m.handNumber >= 3, 30_000);

    await stopNats();
    // Rotated through the other node: the bus that would tell node_b is down.
    const beforeRotation = socket.messages.length;
    const rotated = await cluster.api("node_a", "POST", `/api/bots/${remote.botId}/rotate-key`, { token: owner });
    expect(rotated.status).toBe(200);
    const rotatedAt = socket.messages.length;
    // The check may close the socket before the rotation's answer reaches this test: look from before the call.
    const refused = await socket.next((m) => m.type === "error" && m.code === "KEY_ROTATED", 10_000, beforeRotation);
    await until(async () => socket.closed, 5_000, "the old key's socket to close");
    const requestsAfter = socket.messages.slice(rotatedAt).filter((m) => m.type === "action_request");
    // At most the one request whose delivery ran the check that found the key gone.
    expect(requestsAfter.length).toBeLessThanOrEqual(1);
    expect(socket.messages.indexOf(refused)).toBe(socket.messages.length - 1);
    // The old key opens nothing; the new one plays on.
    expect((await fetch(`${cluster.url("node_b")}/api/bots/connect`, { headers: { authorization: `Bearer ${remote.apiKey}`, upgrade: "websocket", connection: "Upgrade", "sec-websocket-version": "13", "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==" } })).status).toBe(401);
    const renewed = await new WsBot(cluster.url("node_b"), rotated.body.apiKey, (request) => ({ action: request.legalActions.includes("check") ? "check" : "call" })).connect();
    await renewed.next((m) => m.type === "action_request", 20_000);

    expect((await cluster.api("node_b", "POST", `/api/tables/${table.tableId}/leave`, { token: owner, body: { botId: house.botId } })).status).toBe(200);
    await renewed.next((m) => m.type === "match_ended", 20_000);
    expect(await startNats()).toBe(true);
    renewed.disconnect();
    const report = await cluster.audit();
    expect(report.problems).toEqual([]);
  });
});
