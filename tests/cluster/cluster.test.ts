import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { TestCluster, until } from "../support/nodes";
import { WsBot, type Message } from "../support/ws-bot";

// Three real nodes on one Postgres and one NATS: starting them and playing matches takes seconds.
setDefaultTimeout(120_000);

let cluster: TestCluster;
const NODES = ["node_a", "node_b", "node_c"];

beforeAll(async () => {
  cluster = await TestCluster.create("cluster");
  await Promise.all(NODES.map((id) => cluster.start(id)));
});
afterAll(() => cluster.close());

async function developer(node: string) {
  const email = `c-${Math.random().toString(36).slice(2)}@example.com`;
  const registered = await cluster.api(node, "POST", "/api/auth/register", { body: { email, password: "a long password" } });
  expect(registered.status).toBe(201);
  const token = registered.body.token as string;
  expect((await cluster.api(node, "POST", "/api/me/balance/faucet", { token })).status).toBe(200);
  return token;
}

async function bot(node: string, token: string, name: string, strategy?: string) {
  const created = await cluster.api(node, "POST", "/api/bots", { token, body: strategy ? { name, strategy } : { name } });
  expect(created.status).toBe(201);
  return created.body as { botId: string; apiKey: string };
}

function watch(node: string, tableId: string): { messages: Message[]; socket: WebSocket; opened: Promise<unknown> } {
  const messages: Message[] = [];
  const socket = new WebSocket(`${cluster.url(node).replace("http", "ws")}/api/tables/${tableId}/watch`);
  socket.onmessage = (event) => messages.push(JSON.parse(String(event.data)));
  return { messages, socket, opened: until(async () => messages.some((m) => m.type === "watching" || m.type === "error"), 10_000, "watching") };
}

describe("three nodes, one service", () => {
  test("every node reports itself a member and sees the two others", async () => {
    for (const node of NODES) {
      const health = await until(async () => {
        const body = (await cluster.api(node, "GET", "/health")).body;
        return body.peers.length === 2 ? body : null;
      }, 15_000, `${node} to see its peers`);
      expect(health).toMatchObject({ status: "ok", db: "postgres", node, cluster: cluster.clusterName, role: "member" });
      expect(health.peers.map((p: any) => p.node).sort()).toEqual(NODES.filter((n) => n !== node));
    }
  });

  test("joins, leaves and reads through every node, with the same status codes and bodies as on the host", async () => {
    const owner = await developer("node_a");
    const table = await cluster.api("node_a", "POST", "/api/tables", { token: owner, body: { maxPlayers: 4, maxHands: 20 } });
    const tableId = table.body.tableId;
    // Unknown table, foreign bot, bad body: answered the same everywhere.
    const other = await developer("node_c");
    const foreign = await bot("node_c", other, "foreign", "caller");
    for (const node of NODES) {
      expect((await cluster.api(node, "POST", "/api/tables/tbl_nope/join", { token: owner, body: { botId: foreign.botId } })).status).toBe(403);
      const notFound = await cluster.api(node, "POST", "/api/tables/tbl_nope/join", { token: other, body: { botId: foreign.botId } });
      expect(notFound.status).toBe(404);
      expect(notFound.body.error.code).toBe("NOT_FOUND");
    }
    // A seat through B and one through C (the host is A); a leave through B.
    const players = await Promise.all(["node_b", "node_c", "node_b"].map(async (node, i) => ({ node, token: await developer(node), name: `p${i}` })));
    const seated = [];
    for (const p of players) {
      const b = await bot(p.node, p.token, p.name, "caller");
      const joined = await cluster.api(p.node, "POST", `/api/tables/${tableId}/join`, { token: p.token, body: { botId: b.botId } });
      expect(joined.status).toBe(201);
      expect(joined.body).toMatchObject({ botId: b.botId, chips: 1000, leaving: false });
      seated.push({ ...p, botId: b.botId });
    }
    const again = await cluster.api("node_c", "POST", `/api/tables/${tableId}/join`, { token: seated[1].token, body: { botId: seated[1].botId } });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe("BOT_ALREADY_SEATED");
    for (const node of NODES) {
      const view = await cluster.api(node, "GET", `/api/tables/${tableId}`);
      expect(view.status).toBe(200);
      expect(view.body.seats.map((s: any) => s.botId)).toEqual(seated.map((s) => s.botId));
    }
    const left = await cluster.api("node_b", "POST", `/api/tables/${tableId}/leave`, { token: seated[2].token, body: { botId: seated[2].botId } });
    expect(left.status).toBe(200);
    expect(left.body).toMatchObject({ status: "left", cashout: 1000 });
    expect((await cluster.api("node_c", "GET", `/api/tables/${tableId}`)).body.seats).toHaveLength(2);
    const balance = await cluster.api("node_c", "GET", "/api/me/balance", { token: seated[2].token });
    expect(balance.body.balance).toBe(10_000);
    const report = await cluster.audit();
    expect(report.problems).toEqual([]);
  });

  test("a remote bot on node C plays a whole match at a table hosted on A, with no timeouts; a spectator on B sees it all", async () => {
    const owner = await developer("node_a");
    const remoteOwner = await developer("node_c");
    const remote = await bot("node_c", remoteOwner, "remote");
    const house = await bot("node_a", owner, "house", "caller");
    const client = await new WsBot(cluster.url("node_c"), remote.apiKey).connect();
    const table = await cluster.api("node_a", "POST", "/api/tables", { token: owner, body: { maxPlayers: 2, maxHands: 30, actionTimeoutMs: 5000 } });
    const tableId = table.body.tableId;
    const spectator = watch("node_b", tableId);
    await spectator.opened;
    expect(spectator.messages[0]).toMatchObject({ type: "watching", table: { tableId, status: "waiting" } });
    expect((await cluster.api("node_b", "POST", `/api/tables/${tableId}/join`, { token: remoteOwner, body: { botId: remote.botId } })).status).toBe(201);
    expect((await cluster.api("node_c", "POST", `/api/tables/${tableId}/join`, { token: owner, body: { botId: house.botId } })).status).toBe(201);
    const ended = await client.next((m) => m.type === "match_ended", 60_000);
    const requests = client.ofType("action_request");
    expect(requests.length).toBeGreaterThan(5);
    // Never timed out: the time bank is never spent, and no answer was refused.
    expect(requests.every((r) => r.timeBankMs >= 10_000)).toBe(true);
    expect(client.ofType("error")).toEqual([]);
    const hands = (await cluster.api("node_b", "GET", `/api/matches/${ended.matchId}/hands`, { token: remoteOwner })).body.hands;
    const remoteSeat = (h: any) => h.players.find((p: any) => p.botId === remote.botId).seat;
    const remoteActions = hands.flatMap((h: any) => h.events.filter((e: any) => e.type === "action" && e.seat === remoteSeat(h)));
    expect(remoteActions.length).toBe(requests.length);
    await until(async () => spectator.messages.some((m) => m.type === "match_ended"), 10_000, "the spectator's match_ended");
    const types = new Set(spectator.messages.map((m) => m.type));
    for (const type of ["match_started", "hand_started", "action", "hand_ended", "match_ended"]) expect(types.has(type)).toBe(true);
    expect(spectator.messages.filter((m) => m.type === "hand_ended").length).toBe(hands.length);
    spectator.socket.close();
    client.disconnect();
  });

  test("leaving a running match through a node that does not host it: the bot folds from then on and is cashed out by the host", async () => {
    const [owner, other] = [await developer("node_a"), await developer("node_b")];
    const table = await cluster.api("node_a", "POST", "/api/tables", { token: owner, body: { maxPlayers: 2, maxHands: 100_000, buyIn: 5_000, smallBlind: 1, bigBlind: 2 } });
    const tableId = table.body.tableId;
    const leaver = await bot("node_b", other, "leaver", "caller");
    const stayer = await bot("node_a", owner, "stayer", "caller");
    for (const [token, b] of [[other, leaver], [owner, stayer]] as const) {
      expect((await cluster.api("node_c", "POST", `/api/tables/${tableId}/join`, { token, body: { botId: b.botId } })).status).toBe(201);
    }
    await until(async () => (await cluster.api("node_b", "GET", `/api/tables/${tableId}`)).body.handsPlayed >= 2, 20_000, "hands to be played");
    const leaving = await cluster.api("node_c", "POST", `/api/tables/${tableId}/leave`, { token: other, body: { botId: leaver.botId } });
    expect(leaving.status).toBe(200);
    expect(leaving.body).toEqual({ tableId, botId: leaver.botId, status: "leaving", cashout: null });
    await until(async () => (await cluster.api("node_b", "GET", `/api/tables/${tableId}`)).body.status === "finished", 20_000, "the match to end");
    const [match] = (await cluster.api("node_c", "GET", `/api/matches?botId=${leaver.botId}`)).body;
    const leaverResult = match.players.find((p: any) => p.botId === leaver.botId);
    // Everything it had at the table came back to its owner's balance.
    expect((await cluster.api("node_b", "GET", "/api/me/balance", { token: other })).body.balance).toBe(10_000 + leaverResult.profit);
    expect((await cluster.audit()).problems).toEqual([]);
  });

  test("a bot that reconnects to another node mid-hand gets the snapshot and the open request, and its answer counts", async () => {
    const dev = await developer("node_b");
    const remote = await bot("node_b", dev, "hopper");
    const house = await bot("node_b", dev, "house2", "caller");
    // First connection on C: it keeps its first request open, then the bot moves to node B.
    let held: Message | null = null;
    const first = await new WsBot(cluster.url("node_c"), remote.apiKey, (request) => {
      if (held === null) {
        held = request;
        return "silent";
      }
      return { action: request.legalActions.includes("check") ? "check" : "call" };
    }).connect();
    const table = await cluster.api("node_a", "POST", "/api/tables", { token: dev, body: { maxPlayers: 2, maxHands: 6, actionTimeoutMs: 20_000 } });
    for (const b of [remote, house]) expect((await cluster.api("node_a", "POST", `/api/tables/${table.body.tableId}/join`, { token: dev, body: { botId: b.botId } })).status).toBe(201);
    await until(async () => held, 20_000, "the first request");
    const second = await new WsBot(cluster.url("node_b"), remote.apiKey).connect();
    const snapshot = await second.next((m) => m.type === "snapshot");
    expect(snapshot).toMatchObject({ tableId: table.body.tableId, status: "running" });
    expect(snapshot.hand.holeCards).toEqual(held!.holeCards);
    const resent = await second.next((m) => m.type === "action_request" && m.requestId === held!.requestId);
    expect(resent.holeCards).toEqual(held!.holeCards);
    await first.next((m) => m.type === "error" && m.code === "REPLACED");
    await until(async () => first.closed, 5_000, "the old socket to close");
    // The WsBot on B answered the re-sent request itself; the match runs on and ends.
    const ended = await second.next((m) => m.type === "match_ended", 60_000);
    const hands = (await cluster.api("node_c", "GET", `/api/matches/${ended.matchId}/hands`, { token: dev })).body.hands;
    const firstHand = hands[0];
    const seatOfRemote = firstHand.players.find((p: any) => p.botId === remote.botId).seat;
    const answered = firstHand.events.find((e: any) => e.type === "action" && e.seat === seatOfRemote);
    expect(answered.action).toBe(held!.legalActions.includes("check") ? "check" : "call");
    expect(second.ofType("error")).toEqual([]);
    second.disconnect();
    const report = await cluster.audit();
    expect(report.problems).toEqual([]);
  });

  test("DELETE of a waiting table through a node that does not host it: the host refunds every seat and closes it", async () => {
    const owner = await developer("node_a");
    const guest = await developer("node_b");
    const table = (await cluster.api("node_a", "POST", "/api/tables", { token: owner, body: { maxPlayers: 3, buyIn: 400 } })).body;
    const guestBot = await bot("node_b", guest, "deleted-guest", "caller");
    expect((await cluster.api("node_b", "POST", `/api/tables/${table.tableId}/join`, { token: guest, body: { botId: guestBot.botId } })).status).toBe(201);
    expect((await cluster.api("node_c", "DELETE", `/api/tables/${table.tableId}`, { token: guest })).status).toBe(403);
    const closed = await cluster.api("node_c", "DELETE", `/api/tables/${table.tableId}`, { token: owner });
    expect(closed.status).toBe(200);
    expect(closed.body).toEqual({ tableId: table.tableId, status: "closed", refunds: [{ botId: guestBot.botId, cashout: 400 }] });
    expect((await cluster.api("node_b", "GET", "/api/me/balance", { token: guest })).body.balance).toBe(10_000);
    for (const node of NODES) expect((await cluster.api(node, "GET", `/api/tables/${table.tableId}`)).body.status).toBe("closed");
    // The guest's bot is free again, anywhere.
    const next = (await cluster.api("node_b", "POST", "/api/tables", { token: guest, body: { maxPlayers: 2 } })).body;
    expect((await cluster.api("node_c", "POST", `/api/tables/${next.tableId}/join`, { token: guest, body: { botId: guestBot.botId } })).status).toBe(201);
    expect((await cluster.api("node_a", "DELETE", `/api/tables/${next.tableId}`, { token: guest })).status).toBe(200);
  });

  test("rotating a bot's key through one node closes the socket opened with the old key on another (4001 KEY_ROTATED)", async () => {
    const dev = await developer("node_a");
    const b = await bot("node_a", dev, "rotated");
    const client = await new WsBot(cluster.url("node_c"), b.apiKey).connect();
    const rotated = await cluster.api("node_a", "POST", `/api/bots/${b.botId}/rotate-key`, { token: dev });
    expect(rotated.status).toBe(200);
    expect((await client.next((m) => m.type === "error")).code).toBe("KEY_ROTATED");
    await until(async () => client.closed, 5_000, "the old socket to close");
    // The old key no longer opens a socket; the new one does.
    const old = new WebSocket(`${cluster.url("node_b").replace("http", "ws")}/api/bots/connect?apiKey=${b.apiKey}`);
    const outcome = await new Promise<string>((resolve) => {
      old.onmessage = () => resolve("welcomed");
      old.onclose = () => resolve("refused");
      old.onerror = () => resolve("refused");
    });
    expect(outcome).toBe("refused");
    const fresh = await new WsBot(cluster.url("node_b"), rotated.body.apiKey).connect();
    fresh.disconnect();
  });
});
