import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { firstMismatch } from "../../src/cli/commands/verify";
import { useHarness } from "../support/app";

setDefaultTimeout(60_000);

const h = useHarness("duplicate_matches");

const balanceOf = async (dev: { token: string }) => (await h.call("GET", "/api/me/balance", { token: dev.token })).body.balance;

describe("duplicate matches: every deal twice, seats swapped", () => {
  test("bad input: duplicate needs maxPlayers 2 (400), another developer's bot may not join (403); nothing charged", async () => {
    const alice = await h.fundedDeveloper();
    for (const body of [{ duplicate: true, maxPlayers: 3 }, { duplicate: true }, { duplicate: "yes", maxPlayers: 2 }]) {
      const refused = await h.call("POST", "/api/tables", { token: alice.token, body });
      expect(refused.status).toBe(400);
      expect(refused.body.error.code).toBe("VALIDATION_ERROR");
    }
    const table = await h.call("POST", "/api/tables", { token: alice.token, body: { duplicate: true, maxPlayers: 2 } });
    expect(table.status).toBe(201);
    expect(table.body.config.duplicate).toBe(true);
    const bob = await h.fundedDeveloper();
    const bot = await h.call("POST", "/api/bots", { token: bob.token, body: { name: "intruder", strategy: "caller" } });
    const before = await balanceOf(bob);
    const join = await h.call("POST", `/api/tables/${table.body.tableId}/join`, { token: bob.token, body: { botId: bot.body.botId } });
    expect(join.status).toBe(403);
    expect(join.body.error.code).toBe("DUPLICATE_TABLE_PRIVATE");
    expect(await balanceOf(bob)).toBe(before);
    await h.expectAuditClean();
  });

  test("hands 2k−1 and 2k deal the same cards with the seats swapped, and the fairness record verifies both copies", async () => {
    const alice = await h.fundedDeveloper();
    const table = await h.call("POST", "/api/tables", { token: alice.token, body: { duplicate: true, maxPlayers: 2, maxHands: 40, buyIn: 2000 } });
    for (const [name, strategy] of [["d1", "caller"], ["d2", "caller"]]) {
      const bot = await h.call("POST", "/api/bots", { token: alice.token, body: { name, strategy } });
      expect((await h.call("POST", `/api/tables/${table.body.tableId}/join`, { token: alice.token, body: { botId: bot.body.botId } })).status).toBe(201);
    }
    await h.app.services.host.settled();
    const matchId = (await h.call("GET", `/api/tables/${table.body.tableId}`)).body.matchId;
    const { hands } = (await h.call("GET", `/api/matches/${matchId}/hands`, { token: alice.token })).body;
    expect(hands.length).toBeGreaterThanOrEqual(4);
    const holeOf = (hand: any, seat: number) => hand.events.find((e: any) => e.type === "hole_cards" && e.seat === seat).cards;
    let pairs = 0;
    for (let i = 0; i + 1 < hands.length; i += 2) {
      const [first, second] = [hands[i], hands[i + 1]];
      expect(first.handNumber % 2).toBe(1);
      expect(second.button).not.toBe(first.button);
      expect(holeOf(second, 0)).toEqual(holeOf(first, 1));
      expect(holeOf(second, 1)).toEqual(holeOf(first, 0));
      const common = Math.min(first.board.length, second.board.length);
      expect(second.board.slice(0, common)).toEqual(first.board.slice(0, common));
      pairs++;
    }
    expect(pairs).toBeGreaterThan(1);
    const fairness = (await h.call("GET", `/api/matches/${matchId}/fairness`)).body;
    expect(fairness.algorithm).toBe("hmac-sha256-fisher-yates-v1-duplicate");
    expect(firstMismatch(fairness, hands)).toBeNull();
    expect(firstMismatch({ ...fairness, algorithm: "hmac-sha256-fisher-yates-v1" }, hands)).not.toBeNull();
    await h.expectAuditClean();
  });
});
