import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { TestCluster, until } from "../support/nodes";
import { parseGameDefinition, randomAction, runAcpcPlayer, seeded } from "../support/acpc-player";
import { agentClient, callTool, checkOrCall, type Request } from "../support/mcp-agent";

setDefaultTimeout(120_000);

let cluster: TestCluster;
beforeAll(async () => {
  cluster = await TestCluster.create("gateways_cluster", { FAUCET_AMOUNT: "10000000" });
  await cluster.start("node_a");
  await cluster.start("node_b");
});
afterAll(() => cluster.close());

describe("agents and ACPC players on every node (the gateway's relay)", () => {
  test("an agent waits on one node and acts on either while its table lives on the other: a whole match, every answer played", async () => {
    const token = await cluster.fundedDeveloper("node_a");
    const remote = (await cluster.api("node_a", "POST", "/api/bots", { token, body: { name: "roaming-agent" } })).body.botId as string;
    const house = (await cluster.api("node_a", "POST", "/api/bots", { token, body: { name: "roaming-house", strategy: "caller" } })).body.botId as string;
    const tableId = (await cluster.api("node_a", "POST", "/api/tables", { token, body: { maxPlayers: 2, maxHands: 10, actionTimeoutMs: 10_000 } })).body.tableId as string;
    expect(await cluster.hostOf(tableId)).toBe("node_a");
    const onA = await agentClient(cluster.url("node_a"), token);
    const onB = await agentClient(cluster.url("node_b"), token);
    // The agent is connected (through B) before the match starts.
    expect((await callTool(onB, "wait_for_turn", { botId: remote, timeoutMs: 10 })).structuredContent).toMatchObject({ status: "idle" });
    await cluster.api("node_a", "POST", `/api/tables/${tableId}/join`, { token, body: { botId: remote } });
    await cluster.api("node_a", "POST", `/api/tables/${tableId}/join`, { token, body: { botId: house } });
    const acted = { node_a: 0, node_b: 0 };
    let ended: { handsPlayed: number; matchId: string } | null = null;
    for (let calls = 0; ended === null && calls < 500; calls++) {
      const turn = (await callTool(onB, "wait_for_turn", { botId: remote, timeoutMs: 20_000 })).structuredContent as { status: string; request: Request | null; events: { type: string }[] };
      if (turn.status === "match_ended") ended = turn.events.at(-1) as unknown as { handsPlayed: number; matchId: string };
      if (turn.status !== "your_turn") continue;
      // Acts alternate: on A (the table's host) and on B (where the agent's seat is, forwarded to A).
      const node = (acted.node_a + acted.node_b) % 2 === 0 ? "node_a" : "node_b";
      const answer = await callTool(node === "node_a" ? onA : onB, "act", { botId: remote, requestId: turn.request!.requestId, ...checkOrCall(turn.request!) });
      expect({ node, answer: answer.structuredContent ?? answer.content }).toEqual({ node, answer: { accepted: true, requestId: turn.request!.requestId } });
      acted[node] += 1;
    }
    expect(ended?.handsPlayed).toBe(10);
    expect(acted.node_a).toBeGreaterThan(3);
    expect(acted.node_b).toBeGreaterThan(3);
    const hands = (await cluster.api("node_b", "GET", `/api/matches/${ended!.matchId}/hands?limit=100`, { token })).body.hands as { players: { seat: number; botId: string }[]; events: { type: string; seat?: number; action?: string }[] }[];
    const agentActions = hands.flatMap((hand) => {
      const seat = hand.players.find((p) => p.botId === remote)!.seat;
      return hand.events.filter((e) => e.type === "action" && e.seat === seat);
    });
    // Every action of the agent's seat is one it sent (none a timeout's fallback).
    expect(agentActions).toHaveLength(acted.node_a + acted.node_b);
    expect((await cluster.audit()).problems).toEqual([]);
    await onA.close();
    await onB.close();
  });

  test("an ACPC player on a port of one node plays at a table the other node hosts", async () => {
    const token = await cluster.fundedDeveloper("node_a");
    const remote = (await cluster.api("node_a", "POST", "/api/bots", { token, body: { name: "acpc-roaming" } })).body.botId as string;
    const house = (await cluster.api("node_a", "POST", "/api/bots", { token, body: { name: "acpc-roaming-house", strategy: "random" } })).body.botId as string;
    const tableId = (await cluster.api("node_a", "POST", "/api/tables", { token, body: { maxPlayers: 2, maxHands: 60, buyIn: 100_000, resetStacks: 1000, actionTimeoutMs: 10_000 } })).body.tableId as string;
    expect(await cluster.hostOf(tableId)).toBe("node_a");
    await cluster.api("node_a", "POST", `/api/tables/${tableId}/join`, { token, body: { botId: remote } });
    const port = await cluster.api("node_b", "POST", `/api/bots/${remote}/acpc`, { token });
    expect(port.status).toBe(201);
    const random = seeded(5);
    const player = await runAcpcPlayer(port.body.host, port.body.port, parseGameDefinition(port.body.gameDefinition), (state) => randomAction(state.turn!, random));
    await until(async () => (await cluster.api("node_a", "GET", `/api/bots/${remote}`, { token })).body.connection === "acpc", 30_000, "the player connected on node_b");
    await cluster.api("node_a", "POST", `/api/tables/${tableId}/join`, { token, body: { botId: house } });
    const match = await until(async () => (await cluster.api("node_b", "GET", `/api/matches?botId=${remote}`)).body[0], 60_000, "the match recorded");
    expect(match.handsPlayed).toBe(60);
    const finals = new Map<number, string>();
    for (const state of player.states) finals.set(Number(state.split(":")[2]), state.split(":")[3]!);
    expect(finals.size).toBe(60);
    for (const answer of player.answers) {
      const [, , hand, betting] = answer.state.split(":");
      expect(finals.get(Number(hand))!.startsWith(betting + answer.action)).toBe(true);
    }
    expect(player.answers.length).toBeGreaterThan(60);
    expect((await cluster.audit()).problems).toEqual([]);
    player.socket.end();
  });
});
