import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { LEASE_TTL_MS } from "../../src/modules/cluster/lease";
import { RESERVATION_BLOCK } from "../../src/modules/match-host/deal-guard";
import { redealt, unsaid, witness } from "../support/card-witness";
import { TestCluster, until } from "../support/nodes";
import { TcpProxy } from "../support/tcp-proxy";
import { WsBot, type Message } from "../support/ws-bot";

// One node's database connections go through a proxy that the test blackholes: its lease lapses (6 s)
// and the other node takes its table over while it is still alive.
setDefaultTimeout(120_000);

let cluster: TestCluster;
let proxy: TcpProxy;
beforeAll(async () => {
  cluster = await TestCluster.create("database_cut");
  const target = new URL(cluster.testDb.url);
  proxy = TcpProxy.start(target.hostname, Number(target.port || 5432));
  const viaProxy = new URL(cluster.testDb.url);
  viaProxy.hostname = "127.0.0.1";
  viaProxy.port = String(proxy.port);
  await cluster.start("node_x", { DATABASE_URL: viaProxy.toString() });
  await cluster.start("node_y");
});
afterAll(async () => {
  proxy?.restore();
  await cluster.close();
  proxy?.stop();
});

const checkOrCall = (request: Message) => ({ action: request.legalActions.includes("check") ? "check" : "call" });

describe("split brain: a node cut off from its database", () => {
  test("stops dealing before its lease deadline; the node that takes the table over deals no number again; the cut node then leaves", async () => {
    const [owner, rival] = [await cluster.fundedDeveloper("node_y"), await cluster.fundedDeveloper("node_y")];
    const botA = (await cluster.api("node_y", "POST", "/api/bots", { token: owner, body: { name: "cut-a" } })).body;
    const botB = (await cluster.api("node_y", "POST", "/api/bots", { token: rival, body: { name: "cut-b" } })).body;
    // The bots' sockets are on node_y; the table is hosted by node_x (relayed through NATS).
    const a = await new WsBot(cluster.url("node_y"), botA.apiKey, checkOrCall).connect();
    const b = await new WsBot(cluster.url("node_y"), botB.apiKey, checkOrCall).connect();
    const tableId = (await cluster.api("node_x", "POST", "/api/tables", { token: owner, body: { maxPlayers: 2, maxHands: 100_000, smallBlind: 1, bigBlind: 1 } })).body.tableId;
    for (const [token, botId] of [[owner, botA.botId], [rival, botB.botId]]) {
      expect((await cluster.api("node_x", "POST", `/api/tables/${tableId}/join`, { token, body: { botId } })).status).toBe(201);
    }
    const matchId = (await a.next((m) => m.type === "match_started")).matchId as string;
    await a.next((m) => m.type === "hand_ended" && m.handNumber >= 20, 30_000);
    expect(await cluster.hostOf(tableId)).toBe("node_x");

    const cutAt = performance.now();
    proxy.blackhole();
    const resumed = await a.next((m) => m.type === "match_resumed", 30_000);
    const resumedIndex = a.messages.indexOf(resumed);
    expect(await cluster.hostOf(tableId)).toBe("node_y");
    await a.next((m) => m.type === "hand_ended" && m.handNumber > resumed.handsPlayed + resumed.voidedHands.length + 10, 30_000);

    // Every hand node_x dealt (before the resumption) reached the bots before its lease deadline,
    // which is at most LEASE_TTL_MS after the cut (its last renewal was sent before it).
    const dealtByX = a.messages.slice(0, resumedIndex).flatMap((m, i) => (m.type === "hand_started" ? [{ n: m.handNumber as number, at: a.receivedAt[i] }] : []));
    const afterCut = dealtByX.filter((h) => h.at > cutAt);
    expect(dealtByX.length).toBeGreaterThan(20);
    // It kept dealing its reserved numbers for a while (at least 2 s of standing lease were left,
    // and a hand takes milliseconds): the checks below are about hands it did deal, not none.
    expect(afterCut.length).toBeGreaterThan(0);
    expect(afterCut.filter((hand) => hand.at - cutAt >= LEASE_TTL_MS)).toEqual([]);
    // And it stopped at once, not after thousands: at most the blocks it had reserved.
    expect(afterCut.length).toBeLessThanOrEqual(2 * RESERVATION_BLOCK);

    const lastAt = Math.max(cutAt, ...afterCut.map((h) => h.at));
    console.log(
      `[database-cut] node_x dealt ${afterCut.length} hand(s) after the cut, the last ${((lastAt - cutAt) / 1000).toFixed(2)} s after it; node_y resumed ${((a.receivedAt[resumedIndex] - cutAt) / 1000).toFixed(2)} s after the cut, voiding ${resumed.voidedHands.length}`,
    );

    // The cut node learns it lost its lease once its database answers again, and leaves.
    proxy.restore();
    const cut = cluster.nodes.get("node_x")!;
    expect(await Promise.race([cut.child.exited, Bun.sleep(30_000).then(() => "still running")])).toBe(1);
    expect(cut.stderr()).toContain("lease was taken over");
    cluster.nodes.delete("node_x");

    for (const [token, botId] of [[owner, botA.botId], [rival, botB.botId]]) {
      await until(async () => (await cluster.api("node_y", "POST", `/api/tables/${tableId}/leave`, { token, body: { botId } })).status === 200, 20_000, "a leave");
    }
    await a.next((m) => m.type === "match_ended", 30_000);
    const recorded = new Set(await cluster.sql(async (db) => (await db`select number from hands where match_id = ${matchId}`).map((r) => Number(r.number))));
    const seen = witness([{ name: "a", messages: a.messages }, { name: "b", messages: b.messages }], matchId);
    expect(seen.resumptions).toBe(2);
    // Whatever node_x dealt after the cut was never recorded: the resumption voided it, and dealt none of it again.
    expect(redealt(seen)).toEqual([]);
    expect(unsaid(seen, recorded)).toEqual([]);
    expect(afterCut.filter((hand) => recorded.has(hand.n)).map((hand) => hand.n)).toEqual([]);
    a.disconnect();
    b.disconnect();
    const report = await cluster.audit();
    expect(report.problems).toEqual([]);
  });
});
