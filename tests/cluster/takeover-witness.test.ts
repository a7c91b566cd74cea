import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { deckReused, firstMismatch } from "../../src/cli/commands/verify";
import { redealt, unsaid, witness } from "../support/card-witness";
import { allPages } from "../support/http";
import { TestCluster, until } from "../support/nodes";
import { Spectator, streamFaults } from "../support/spectator";
import { WsBot, type Message } from "../support/ws-bot";

// The hosting node is killed (SIGKILL): its lease expires (6 s) and a peer takes its tables over.
setDefaultTimeout(180_000);

let cluster: TestCluster;
beforeAll(async () => {
  cluster = await TestCluster.create("takeover_witness");
  await Promise.all(["node_a", "node_b", "node_c"].map((id) => cluster.start(id)));
});
afterAll(() => cluster.close());

const checkOrCall = (request: Message) => ({ action: request.legalActions.includes("check") ? "check" : "call" });
const recordedNumbers = async (matchId: string) =>
  new Set(await cluster.sql(async (db) => (await db`select number from hands where match_id = ${matchId}`).map((r) => Number(r.number))));

describe("SIGKILL of the node hosting a match, bots and spectators on the other nodes", () => {
  test("no deck dealt twice, nothing shown silently unsaid, each spectator gets each message once with no gap on every node, an acknowledged leave holds", async () => {
    const [owner, rival] = [await cluster.fundedDeveloper("node_a"), await cluster.fundedDeveloper("node_b")];
    const bot = async (token: string, name: string, strategy?: string) =>
      (await cluster.api("node_a", "POST", "/api/bots", { token, body: strategy ? { name, strategy } : { name } })).body;
    const table = async (maxPlayers: number) =>
      (await cluster.api("node_a", "POST", "/api/tables", { token: owner, body: { maxPlayers, maxHands: 100_000, smallBlind: 1, bigBlind: 1 } })).body.tableId as string;
    const join = async (token: string, tableId: string, botId: string) =>
      expect((await cluster.api("node_a", "POST", `/api/tables/${tableId}/join`, { token, body: { botId } })).status).toBe(201);

    // A heads-up match of two remote bots whose sockets are on node_b and node_c; spectators on both.
    const [botA, botB] = [await bot(owner, "witness-a"), await bot(rival, "witness-b")];
    const a = await new WsBot(cluster.url("node_b"), botA.apiKey, checkOrCall).connect();
    const b = await new WsBot(cluster.url("node_c"), botB.apiKey, checkOrCall).connect();
    const duel = await table(2);
    const spectators = [await Spectator.watch(cluster.url("node_b"), duel), await Spectator.watch(cluster.url("node_c"), duel)];
    await join(owner, duel, botA.botId);
    await join(rival, duel, botB.botId);
    const matchId = (await a.next((m) => m.type === "match_started")).matchId as string;

    // A three-seat match where a remote bot (socket on node_b) leaves just before its host dies.
    const leaver = await bot(rival, "leaver");
    const l = await new WsBot(cluster.url("node_b"), leaver.apiKey, checkOrCall).connect();
    const trio = await table(3);
    await join(rival, trio, leaver.botId);
    for (const name of ["c1", "c2"]) await join(owner, trio, (await bot(owner, name, "caller")).botId);

    await a.next((m) => m.type === "hand_ended" && m.handNumber >= 5, 30_000);
    await l.next((m) => m.type === "hand_ended" && m.handNumber >= 2, 30_000);
    expect(await cluster.hostOf(duel)).toBe("node_a");
    const left = await cluster.api("node_b", "POST", `/api/tables/${trio}/leave`, { token: rival, body: { botId: leaver.botId } });
    expect(left.status).toBe(200);
    expect(left.body.status).toBe("leaving");
    const lastDealtToLeaver = Math.max(...l.ofType("hand_started").map((m) => m.handNumber as number));
    cluster.kill("node_a");

    const newHost = await until(async () => {
      const host = await cluster.hostOf(duel);
      return host !== "node_a" ? host : null;
    }, 30_000, "a takeover");
    const resumed = await a.next((m) => m.type === "match_resumed", 30_000);
    await a.next((m) => m.type === "hand_ended" && m.handNumber >= resumed.handsPlayed + resumed.voidedHands.length + 10, 30_000);
    for (const spectator of spectators) {
      await until(async () => spectator.messages.filter((m) => m.type === "hand_ended" && m.handNumber > resumed.handsPlayed + resumed.voidedHands.length + 10).length > 0, 20_000, "hands on every spectator");
    }

    // The acknowledged leave holds on the new host: the leaver is cashed out, never dealt in again.
    await until(async () => (await cluster.sql((db) => db`select status from seats where bot_id = ${leaver.botId} and table_id = ${trio}`))[0].status === "closed", 20_000, "the leaver's cashout");
    const trioView = (await cluster.api(newHost, "GET", `/api/tables/${trio}`)).body;
    expect(trioView.seats.map((s: any) => s.botId)).not.toContain(leaver.botId);
    const dealtToLeaverAfter = l.ofType("hand_started").filter((m) => m.handNumber > lastDealtToLeaver + 1);
    expect(dealtToLeaverAfter).toEqual([]);

    // End the duel: both leave through node_c.
    for (const [token, botId] of [[owner, botA.botId], [rival, botB.botId]]) {
      await until(async () => (await cluster.api("node_c", "POST", `/api/tables/${duel}/leave`, { token, body: { botId } })).status === 200, 20_000, "a leave");
    }
    await a.next((m) => m.type === "match_ended", 30_000);
    for (const spectator of spectators) await until(async () => spectator.messages.some((m) => m.type === "match_ended"), 20_000, "match_ended on every spectator");

    const recorded = await recordedNumbers(matchId);
    const seen = witness([{ name: "a", messages: a.messages }, { name: "b", messages: b.messages }], matchId);
    // Both bots were connected (on other nodes) when the match resumed: each heard match_resumed.
    expect(seen.resumptions).toBe(2);
    expect(redealt(seen)).toEqual([]);
    expect(unsaid(seen, recorded)).toEqual([]);
    const fairness = (await cluster.api("node_c", "GET", `/api/matches/${matchId}/fairness`)).body;
    expect(fairness.voidedHands).toEqual(resumed.voidedHands);
    expect(deckReused([...recorded], fairness.voidedHands, false)).toBeNull();
    const history = await allPages(cluster.url("node_c"), `/api/matches/${matchId}/hands?limit=1000`, "hands", { token: owner });
    expect(history.length).toBe(recorded.size);
    expect(firstMismatch(fairness, history)).toBeNull();

    // Every spectator, on every node, got each message once and every hand of the new host.
    for (const spectator of spectators) {
      const faults = streamFaults(spectator.messages);
      expect(faults.doubled).toEqual([]);
      expect(faults.gaps).toEqual([]);
      expect(faults.checkedAfterResume).toBeGreaterThan(10);
      spectator.close();
    }
    for (const socket of [a, b, l]) socket.disconnect();
    const report = await cluster.audit();
    expect(report.problems).toEqual([]);
  });
});
