import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { sql } from "drizzle-orm";
import { useHarness } from "../support/app";
import { until } from "../support/nodes";

// Integration tests talk to a real Postgres and play whole matches (the default is 5 s per test).
setDefaultTimeout(60_000);

const h = useHarness("seating");

async function bot(token: string, name: string, strategy?: string) {
  const created = await h.call("POST", "/api/bots", { token, body: strategy ? { name, strategy } : { name } });
  expect(created.status).toBe(201);
  return created.body.botId as string;
}

async function ledgerSnapshot() {
  const result: any = await h.database.db.execute(
    sql`select (select count(*) from transactions)::int as txs, (select coalesce(sum(balance),0) from developers)::text as balances, (select count(*) from seats where status = 'open')::int as open_seats`,
  );
  return (Array.isArray(result) ? result : result.rows)[0];
}

describe("creating tables", () => {
  test("defaults come from the brief and SPEC", async () => {
    const dev = await h.registerDeveloper();
    const table = await h.call("POST", "/api/tables", { token: dev.token, body: {} });
    expect(table.status).toBe(201);
    expect(table.body.tableId).toMatch(/^tbl_/);
    expect(table.body).toMatchObject({
      config: { buyIn: 1000, smallBlind: 5, bigBlind: 10, maxPlayers: 6, maxHands: 200, actionTimeoutMs: 2000 },
      status: "waiting",
      seats: [],
      matchId: null,
    });
    const lobby = await h.call("GET", "/api/tables");
    expect(lobby.body.some((t: any) => t.tableId === table.body.tableId)).toBe(true);
    expect((await h.call("GET", `/api/tables/${table.body.tableId}`)).body).toEqual(table.body);
  });

  test("nonsense configurations are 400 and create nothing", async () => {
    const dev = await h.registerDeveloper();
    const before = (await h.call("GET", "/api/tables")).body.length;
    const bad: Array<[Record<string, unknown>, string]> = [
      [{ smallBlind: 0 }, "smallBlind"],
      [{ bigBlind: -10 }, "bigBlind"],
      [{ smallBlind: 20, bigBlind: 10 }, "smallBlind"],
      [{ bigBlind: 2000, buyIn: 1000 }, "bigBlind"],
      [{ maxPlayers: 1 }, "maxPlayers"],
      [{ maxPlayers: 11 }, "maxPlayers"],
      [{ buyIn: 10.5 }, "buyIn"],
      [{ buyIn: "1000" }, "buyIn"],
      [{ maxHands: 0 }, "maxHands"],
      [{ actionTimeoutMs: 1e12 }, "actionTimeoutMs"],
      [{ rake: 5 }, "rake"],
    ];
    for (const [body, field] of bad) {
      const response = await h.call("POST", "/api/tables", { token: dev.token, body });
      expect({ body, status: response.status, field: response.body.error?.details?.field }).toEqual({ body, status: 400, field });
    }
    expect((await h.call("POST", "/api/tables", { body: {} })).status).toBe(401);
    expect((await h.call("GET", "/api/tables")).body.length).toBe(before);
    expect((await h.call("GET", "/api/tables/tbl_nope")).status).toBe(404);
  });
});

describe("joining and leaving", () => {
  test("every refusal has its code and changes nothing", async () => {
    const owner = await h.fundedDeveloper();
    const other = await h.fundedDeveloper();
    const broke = await h.registerDeveloper();
    const table = (await h.call("POST", "/api/tables", { token: owner.token, body: { maxPlayers: 3 } })).body.tableId;
    const mine = await bot(owner.token, "mine", "caller");
    const theirs = await bot(other.token, "theirs", "caller");
    const poor = await bot(broke.token, "poor", "caller");
    const before = await ledgerSnapshot();
    const join = (token: string, tableId: string, botId: string) => h.call("POST", `/api/tables/${tableId}/join`, { token, body: { botId } });
    expect((await join(owner.token, "tbl_missing", mine)).body.error.code).toBe("NOT_FOUND");
    expect((await join(owner.token, table, "bot_missing")).body.error.code).toBe("NOT_FOUND");
    const forbidden = await join(owner.token, table, theirs);
    expect([forbidden.status, forbidden.body.error.code]).toEqual([403, "FORBIDDEN"]);
    const insufficient = await join(broke.token, table, poor);
    expect([insufficient.status, insufficient.body.error.code]).toEqual([402, "INSUFFICIENT_BALANCE"]);
    expect((await h.call("POST", `/api/tables/${table}/join`, { body: { botId: mine } })).status).toBe(401);
    expect((await h.call("POST", `/api/tables/${table}/join`, { token: owner.token, body: {} })).status).toBe(400);
    expect(await ledgerSnapshot()).toEqual(before);

    expect((await join(owner.token, table, mine)).status).toBe(201);
    const twice = await join(owner.token, table, mine);
    expect([twice.status, twice.body.error.code]).toEqual([409, "BOT_ALREADY_SEATED"]);
    const elsewhere = (await h.call("POST", "/api/tables", { token: owner.token, body: {} })).body.tableId;
    expect((await join(owner.token, elsewhere, mine)).body.error.code).toBe("BOT_ALREADY_SEATED");
    const notSeated = await h.call("POST", `/api/tables/${table}/leave`, { token: other.token, body: { botId: theirs } });
    expect(notSeated.status).toBe(404);
    const leaveOthers = await h.call("POST", `/api/tables/${table}/leave`, { token: other.token, body: { botId: mine } });
    expect(leaveOthers.status).toBe(403);
  });

  test("leaving a waiting table refunds the whole buy-in at once and frees the seat", async () => {
    const dev = await h.fundedDeveloper();
    const table = (await h.call("POST", "/api/tables", { token: dev.token, body: { maxPlayers: 2, buyIn: 700 } })).body.tableId;
    const first = await bot(dev.token, "first", "caller");
    await h.call("POST", `/api/tables/${table}/join`, { token: dev.token, body: { botId: first } });
    expect((await h.call("GET", "/api/me/balance", { token: dev.token })).body.balance).toBe(9_300);
    const left = await h.call("POST", `/api/tables/${table}/leave`, { token: dev.token, body: { botId: first } });
    expect(left.status).toBe(200);
    expect(left.body).toEqual({ tableId: table, botId: first, status: "left", cashout: 700 });
    expect((await h.call("GET", "/api/me/balance", { token: dev.token })).body.balance).toBe(10_000);
    const txs = (await h.call("GET", "/api/me/transactions", { token: dev.token })).body;
    expect(txs[0]).toMatchObject({ type: "cashout", amount: 700, botId: first, tableId: table });
    expect((await h.call("GET", `/api/tables/${table}`)).body.seats).toEqual([]);
    const again = await h.call("POST", `/api/tables/${table}/join`, { token: dev.token, body: { botId: first } });
    expect(again.body.seat).toBe(0);
    await h.expectAuditClean();
  });

  test("a full table starts its match; a join after that is TABLE_FULL; a finished table is not joinable", async () => {
    const dev = await h.fundedDeveloper();
    // Long enough to be running still at the third join (5 hands of two built-ins could be over before it arrives);
    // two callers only ever call (±10 chips a hand), so 400 hands bust a 1,000-chip stack only on a 5σ walk.
    const table = (await h.call("POST", "/api/tables", { token: dev.token, body: { maxPlayers: 2, maxHands: 400 } })).body.tableId;
    const a = await bot(dev.token, "fa", "caller");
    const b = await bot(dev.token, "fb", "caller");
    const c = await bot(dev.token, "fc", "caller");
    await h.call("POST", `/api/tables/${table}/join`, { token: dev.token, body: { botId: a } });
    await h.call("POST", `/api/tables/${table}/join`, { token: dev.token, body: { botId: b } });
    const full = await h.call("POST", `/api/tables/${table}/join`, { token: dev.token, body: { botId: c } });
    expect([full.status, full.body.error.code]).toEqual([409, "TABLE_FULL"]);
    await h.app.services.host.settled();
    const finished = await h.call("POST", `/api/tables/${table}/join`, { token: dev.token, body: { botId: c } });
    expect([finished.status, finished.body.error.code]).toEqual([409, "TABLE_NOT_JOINABLE"]);
    await h.expectAuditClean();
  });

  test("a bot leaving mid-match folds from then on and is cashed out after the hand", async () => {
    const dev = await h.fundedDeveloper();
    const table = (await h.call("POST", "/api/tables", { token: dev.token, body: { maxPlayers: 3, maxHands: 400 } })).body.tableId;
    const bots = [await bot(dev.token, "la", "caller"), await bot(dev.token, "lb", "caller"), await bot(dev.token, "lc", "caller")];
    for (const b of bots) await h.call("POST", `/api/tables/${table}/join`, { token: dev.token, body: { botId: b } });
    const leaving = await h.call("POST", `/api/tables/${table}/leave`, { token: dev.token, body: { botId: bots[2] } });
    expect(leaving.body).toEqual({ tableId: table, botId: bots[2], status: "leaving", cashout: null });
    await h.app.services.host.settled();
    const [match] = (await h.call("GET", `/api/matches?botId=${bots[2]}`)).body;
    const leaver = match.players.find((p: any) => p.botId === bots[2]);
    const stats = (await h.call("GET", `/api/stats/${bots[2]}`)).body;
    expect(stats.handsPlayed).toBeLessThan(match.handsPlayed);
    const txs = (await h.call("GET", "/api/me/transactions?limit=500", { token: dev.token })).body;
    const cashout = txs.find((t: any) => t.type === "cashout" && t.botId === bots[2]);
    expect(cashout).toMatchObject({ amount: leaver.finalChips, matchId: match.matchId, tableId: table });
    const hands = (await h.call("GET", `/api/matches/${match.matchId}/hands`)).body.hands;
    // Dealt into its first handsPlayed hands, never after; cashed out at its stack after the last one.
    const dealtIn = hands.map((hand: any) => hand.players.some((p: any) => p.botId === bots[2]));
    expect(dealtIn).toEqual(hands.map((_: unknown, i: number) => i < stats.handsPlayed));
    const stackAfterLastHand =
      stats.handsPlayed === 0 ? 1000 : hands[stats.handsPlayed - 1].players.find((p: any) => p.botId === bots[2]).finalStack;
    expect(leaver.finalChips).toBe(stackAfterLastHand);
    await h.expectAuditClean();
  });

  test("regression: a bot that left mid-match may sit at another table of the same process once cashed out, while that match goes on", async () => {
    const dev = await h.fundedDeveloper();
    const long = (await h.call("POST", "/api/tables", { token: dev.token, body: { maxPlayers: 3, maxHands: 100_000, smallBlind: 1, bigBlind: 2 } })).body.tableId;
    const bots = [await bot(dev.token, "ra", "caller"), await bot(dev.token, "rb", "caller"), await bot(dev.token, "rc", "caller")];
    for (const b of bots) expect((await h.call("POST", `/api/tables/${long}/join`, { token: dev.token, body: { botId: b } })).status).toBe(201);
    expect((await h.call("POST", `/api/tables/${long}/leave`, { token: dev.token, body: { botId: bots[2] } })).body.status).toBe("leaving");
    const other = (await h.call("POST", "/api/tables", { token: dev.token, body: { maxPlayers: 2 } })).body.tableId;
    // Refused while it still holds its seat at the long table, seated once it was cashed out there.
    const joined = await until(async () => {
      const answer = await h.call("POST", `/api/tables/${other}/join`, { token: dev.token, body: { botId: bots[2] } });
      if (answer.status === 201) return answer;
      expect([answer.status, answer.body.error.code]).toEqual([409, "BOT_ALREADY_SEATED"]);
      return null;
    }, 20_000, "the leaver's seat at the other table");
    expect(joined.status).toBe(201);
    expect((await h.call("GET", `/api/tables/${long}`)).body.status).toBe("running");
    for (const b of bots.slice(0, 2)) await h.call("POST", `/api/tables/${long}/leave`, { token: dev.token, body: { botId: b } });
    expect((await h.call("POST", `/api/tables/${other}/leave`, { token: dev.token, body: { botId: bots[2] } })).body.status).toBe("left");
    await h.app.services.host.settled();
    await h.expectAuditClean();
  });

  test("40 concurrent joins across 40 tables on a balance for 10: exactly 10 seated, the rest 402", async () => {
    const dev = await h.fundedDeveloper(); // 10,000 = ten buy-ins of 1,000
    const tableIds = await Promise.all(
      Array.from({ length: 40 }, async () => (await h.call("POST", "/api/tables", { token: dev.token, body: { maxPlayers: 2 } })).body.tableId),
    );
    const botIds = await Promise.all(Array.from({ length: 40 }, (_, i) => bot(dev.token, `j${i}`, "caller")));
    const results = await Promise.all(
      tableIds.map((tableId, i) => h.call("POST", `/api/tables/${tableId}/join`, { token: dev.token, body: { botId: botIds[i] } })),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(10);
    const refused = results.filter((r) => r.status !== 201);
    expect(refused).toHaveLength(30);
    for (const r of refused) expect([r.status, r.body.error.code]).toEqual([402, "INSUFFICIENT_BALANCE"]);
    expect((await h.call("GET", "/api/me/balance", { token: dev.token })).body.balance).toBe(0);
    const seated = (await Promise.all(tableIds.map((id) => h.call("GET", `/api/tables/${id}`)))).filter((t) => t.body.seats.length === 1);
    expect(seated).toHaveLength(10);
    await h.expectAuditClean();
  });
});
