import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { useHarness } from "../support/app";

setDefaultTimeout(60_000);

const h = useHarness("seeded_tables");

async function botOf(dev: { token: string }, name: string, strategy = "caller") {
  const bot = await h.call("POST", "/api/bots", { token: dev.token, body: { name, strategy } });
  expect(bot.status).toBe(201);
  return bot.body.botId as string;
}

const balanceOf = async (dev: { token: string }) => (await h.call("GET", "/api/me/balance", { token: dev.token })).body.balance;

describe("a seeded table is private to its creator (whoever knows the seed knows every card)", () => {
  test("another developer's bot is refused with 403 SEEDED_TABLE_PRIVATE and nothing is charged", async () => {
    const alice = await h.fundedDeveloper();
    const bob = await h.fundedDeveloper();
    const table = await h.call("POST", "/api/tables", { token: alice.token, body: { maxPlayers: 2, maxHands: 5, seed: "alice-knows" } });
    expect(table.status).toBe(201);
    const bobBot = await botOf(bob, "bobbot");
    const before = await balanceOf(bob);
    const refused = await h.call("POST", `/api/tables/${table.body.tableId}/join`, { token: bob.token, body: { botId: bobBot } });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe("SEEDED_TABLE_PRIVATE");
    expect(await balanceOf(bob)).toBe(before);
    expect((await h.call("GET", "/api/me/transactions", { token: bob.token })).body.filter((t: any) => t.type === "buy_in")).toEqual([]);
    // The creator's own bots sit there.
    const joined = await h.call("POST", `/api/tables/${table.body.tableId}/join`, { token: alice.token, body: { botId: await botOf(alice, "a1") } });
    expect(joined.status).toBe(201);
    await h.call("POST", `/api/tables/${table.body.tableId}/leave`, { token: alice.token, body: { botId: joined.body.botId } });
    await h.expectAuditClean();
  });

  test("the seed is shown only to its creator: never in the lobby, an anonymous read or a rival's read", async () => {
    const alice = await h.fundedDeveloper();
    const bob = await h.fundedDeveloper();
    const table = await h.call("POST", "/api/tables", { token: alice.token, body: { maxPlayers: 3, seed: "secret-seed-42" } });
    expect(table.body.config.seed).toBe("secret-seed-42");
    expect(table.body.seeded).toBe(true);
    const id = table.body.tableId;

    const own = await h.call("GET", `/api/tables/${id}`, { token: alice.token });
    expect(own.body.config.seed).toBe("secret-seed-42");
    for (const read of [await h.call("GET", `/api/tables/${id}`), await h.call("GET", `/api/tables/${id}`, { token: bob.token })]) {
      expect(read.status).toBe(200);
      expect(read.body.seeded).toBe(true);
      expect(read.body.config).not.toHaveProperty("seed");
      expect(JSON.stringify(read.body)).not.toContain("secret-seed-42");
    }
    const lobby = await h.call("GET", "/api/tables", { token: alice.token });
    expect(lobby.body.find((t: any) => t.tableId === id)).toMatchObject({ seeded: true });
    expect(JSON.stringify(lobby.body)).not.toContain("secret-seed-42");
    // A bad token is a 401, not an anonymous read.
    expect((await h.call("GET", `/api/tables/${id}`, { token: "forged.token.here" })).status).toBe(401);
  });

  test("an unseeded table is open to everyone and says seeded: false", async () => {
    const alice = await h.fundedDeveloper();
    const bob = await h.fundedDeveloper();
    const table = await h.call("POST", "/api/tables", { token: alice.token, body: { maxPlayers: 2, maxHands: 1 } });
    expect(table.body.seeded).toBe(false);
    const joined = await h.call("POST", `/api/tables/${table.body.tableId}/join`, { token: bob.token, body: { botId: await botOf(bob, "open") } });
    expect(joined.status).toBe(201);
    await h.call("POST", `/api/tables/${table.body.tableId}/leave`, { token: bob.token, body: { botId: joined.body.botId } });
    await h.expectAuditClean();
  });

  test("a seeded match is recorded and paid out but never counts toward statistics or the leaderboard", async () => {
    const alice = await h.fundedDeveloper();
    const table = await h.call("POST", "/api/tables", { token: alice.token, body: { maxPlayers: 2, maxHands: 30, seed: "practice" } });
    const botIds = [await botOf(alice, "s1", "raiser"), await botOf(alice, "s2", "caller")];
    for (const botId of botIds) {
      expect((await h.call("POST", `/api/tables/${table.body.tableId}/join`, { token: alice.token, body: { botId } })).status).toBe(201);
    }
    await h.app.services.host.settled();
    const [match] = (await h.call("GET", `/api/matches?botId=${botIds[0]}`)).body;
    expect(match.handsPlayed).toBeGreaterThan(0);
    expect(match.players.map((p: any) => p.finalChips).reduce((a: number, b: number) => a + b, 0)).toBe(2000);
    for (const botId of botIds) {
      const stats = (await h.call("GET", `/api/stats/${botId}`)).body;
      expect(stats).toMatchObject({ matchesPlayed: 0, handsPlayed: 0, netChips: 0, lastPlayed: null });
    }
    const board = (await h.call("GET", "/api/stats?limit=100")).body;
    expect(board.filter((row: any) => botIds.includes(row.botId))).toEqual([]);
    const hands = await h.call("GET", `/api/matches/${match.matchId}/hands`);
    expect(hands.body.seeded).toBe(true);
    expect(JSON.stringify(hands.body)).not.toContain("practice");
    await h.expectAuditClean();
  });
});
