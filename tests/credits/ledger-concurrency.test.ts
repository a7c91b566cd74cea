import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { sql } from "drizzle-orm";
import { createApp } from "../../src/app";
import { openDatabase, type Database } from "../../src/db";
import { AppError } from "../../src/lib/errors";
import { ManualClock } from "../../src/lib/clock";
import { SEAT_LEDGER } from "../../src/modules/tables/seat-rows";
const { buyInInDb } = SEAT_LEDGER;
import { harnessFor, useHarness } from "../support/app";
import { transactionNamed } from "../../src/modules/credits/transaction-id";

// Integration tests talk to a real Postgres and play whole matches (the default is 5 s per test).
setDefaultTimeout(60_000);

const h = useHarness("ledger_concurrency", { FAUCET_AMOUNT: "3700" });

async function countRows(developerId: string, type: string): Promise<number> {
  const result: any = await h.database.db.execute(
    sql`select count(*)::int as n from transactions where developer_id = ${developerId} and type = ${type}`,
  );
  return (Array.isArray(result) ? result : result.rows)[0].n;
}

describe("buy-ins under concurrency", () => {
  test("200 concurrent buyIn calls on a balance that covers 37: exactly 37 succeed, the rest INSUFFICIENT_BALANCE", async () => {
    const dev = await h.fundedDeveloper(); // 3,700 credits; buy-in 100 → 37 fit
    const outcomes = await Promise.allSettled(
      Array.from({ length: 200 }, () => h.app.services.accounts.buyIn(dev.developerId, 100, { tableId: null })),
    );
    const succeeded = outcomes.filter((o) => o.status === "fulfilled");
    const refused = outcomes.filter((o) => o.status === "rejected") as PromiseRejectedResult[];
    expect(succeeded).toHaveLength(37);
    expect(refused).toHaveLength(163);
    for (const r of refused) {
      expect(r.reason).toBeInstanceOf(AppError);
      expect((r.reason as AppError).code).toBe("INSUFFICIENT_BALANCE");
      expect((r.reason as AppError).status).toBe(402);
    }
    const balances = succeeded.map((o) => (o as PromiseFulfilledResult<{ balance: number }>).value.balance).sort((a, b) => b - a);
    expect(balances[balances.length - 1]).toBe(0);
    expect(Math.min(...balances)).toBeGreaterThanOrEqual(0);
    expect(await countRows(dev.developerId, "buy_in")).toBe(37);
    expect((await h.call("GET", "/api/me/balance", { token: dev.token })).body.balance).toBe(0);
    await h.expectAuditClean();
  });

  test("the SQL guard alone (no actor) refuses what the balance cannot cover", async () => {
    const dev = await h.fundedDeveloper();
    const now = new Date(h.clock.now());
    const outcomes = await Promise.allSettled(
      Array.from({ length: 60 }, () => buyInInDb(h.database.db, dev.developerId, 1000, {}, now)),
    );
    expect(outcomes.filter((o) => o.status === "fulfilled")).toHaveLength(3);
    expect(await countRows(dev.developerId, "buy_in")).toBe(3);
    await h.expectAuditClean();
  });

  test("a bot holds one open seat at a time (409 BOT_ALREADY_SEATED), and the refused buy-in costs nothing", async () => {
    const dev = await h.fundedDeveloper();
    const bot = await h.call("POST", "/api/bots", { token: dev.token, body: { name: "seated", strategy: "caller" } });
    const first = await h.app.services.accounts.buyIn(dev.developerId, 500, { botId: bot.body.botId, tableId: "tbl_a" });
    expect(first.balance).toBe(3200);
    const second = h.app.services.accounts.buyIn(dev.developerId, 500, { botId: bot.body.botId, tableId: "tbl_b" });
    await expect(second).rejects.toMatchObject({ code: "BOT_ALREADY_SEATED", status: 409 });
    expect((await h.call("GET", "/api/me/balance", { token: dev.token })).body.balance).toBe(3200);
    const cashout = await h.app.services.accounts.cashout(dev.developerId, first.seatId, 650, { matchId: "m_x" });
    expect(cashout.balance).toBe(3850);
    await expect(h.app.services.accounts.cashout(dev.developerId, first.seatId, 650, {})).rejects.toMatchObject({ status: 409 });
    const txs = await h.call("GET", "/api/me/transactions", { token: dev.token });
    expect(txs.body[0]).toMatchObject({ type: "cashout", amount: 650, botId: bot.body.botId, tableId: "tbl_a", matchId: "m_x" });
    expect(txs.body[1]).toMatchObject({ type: "buy_in", amount: -500, balanceAfter: 3200, botId: bot.body.botId, tableId: "tbl_a" });
    // The ids the writes answered are the rows' (derived from their keys: credits/transaction-id.ts).
    expect([txs.body[0].transactionId, txs.body[1].transactionId]).toEqual([cashout.transactionId, first.transactionId]);
    // The 150 won came from another seat in a real match; here the audit must notice it was created.
    const report = await import("../../src/modules/credits/audit").then((m) => m.auditLedger(h.database.db));
    expect(report.ok).toBe(false);
    expect(report.problems.join("\n")).toContain("faucet grants");
    // Put the books right again for the tests after this one.
    await h.database.db.execute(sql`update developers set balance = balance - 150 where id = ${dev.developerId}`);
    await h.database.db.execute(
      sql`update transactions set amount = 500, balance_after = balance_after - 150 where ${transactionNamed(txs.body[0].transactionId)}`,
    );
    await h.database.db.execute(sql`update seats set cashout = 500 where seq = ${first.seatId}`);
    await h.expectAuditClean();
  });
});

describe("two app instances on one database", () => {
  let second: { database: Database; harness: ReturnType<typeof harnessFor> };

  beforeAll(async () => {
    const database = await openDatabase({ databaseUrl: h.testDb.url });
    const clock = new ManualClock(h.clock.now());
    const app = createApp({ db: database.db, dbKind: "postgres", config: h.config, jwtSecret: "test-secret", clock, log: () => {} });
    second = { database, harness: harnessFor(app, database, clock, h.config) };
  });
  afterAll(async () => {
    await second.harness.app.services.accounts.stopAll();
    await second.database.close();
  });

  test("faucet claims through both, at once: one grant in all", async () => {
    const dev = await h.registerDeveloper();
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        (i % 2 ? h : second.harness).call("POST", "/api/me/balance/faucet", { token: dev.token }),
      ),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 429)).toHaveLength(39);
    for (const r of results.filter((r) => r.status === 429)) expect(r.body.newBalance).toBe(3700);
    expect(await countRows(dev.developerId, "faucet")).toBe(1);
    await h.expectAuditClean();
  });

  test("buy-ins and cashouts hammered through both instances stay exact", async () => {
    const dev = await h.fundedDeveloper(); // 3,700
    const apps = [h.app, second.harness.app];
    const outcomes = await Promise.allSettled(
      Array.from({ length: 100 }, (_, i) => apps[i % 2].services.accounts.buyIn(dev.developerId, 100, {})),
    );
    const seated = outcomes.filter((o) => o.status === "fulfilled") as PromiseFulfilledResult<{ seatId: number }>[];
    expect(seated).toHaveLength(37);
    // Cash every seat out through the other instance, and try each twice: only one may count.
    const cashouts = await Promise.allSettled(
      seated.flatMap((s, i) => [
        apps[i % 2].services.accounts.cashout(dev.developerId, s.value.seatId, 100, {}),
        apps[(i + 1) % 2].services.accounts.cashout(dev.developerId, s.value.seatId, 100, {}),
      ]),
    );
    expect(cashouts.filter((c) => c.status === "fulfilled")).toHaveLength(37);
    expect((await h.call("GET", "/api/me/balance", { token: dev.token })).body.balance).toBe(3700);
    expect(await countRows(dev.developerId, "cashout")).toBe(37);
    await h.expectAuditClean();
  });
});
