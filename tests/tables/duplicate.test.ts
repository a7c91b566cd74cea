/**
 * Duplicate matches as twin tables (issue 32, docs/FAIRNESS.md): a duplicate match is two ordinary
 * matches at two tables made together. A join at either copy seats the bot at both, copy 2 at the
 * other seat (two buy-ins in one transaction); copy 2's hand n deals copy 1's hand-n deck, so each
 * bot gets the cards and position its opponent had; each copy has its own seats, stacks and record;
 * the pair commits to one secret, revealed once both copies have ended.
 */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { createHash } from "node:crypto";
import { sql } from "drizzle-orm";
import { formatCard } from "@poker-bots/core/cards";
import { firstMismatch, pairMismatch, type DealtHand } from "../../src/cli/commands/verify";
import { type PairSeatRefs } from "../../src/modules/credits/ledger";
import { SEAT_LEDGER } from "../../src/modules/tables/seat-rows";
const { buyInInDb, buyInPairInDb, cashoutInDb } = SEAT_LEDGER;
import { tables } from "../../src/db/schema";
import { DUPLICATE_DECK_ALGORITHM, FAIR_DECK_ALGORITHM, fairDeck } from "../../src/poker/fair-deck";
import { rowsOf } from "../campaigns/support";
import { useHarness } from "../support/app";

setDefaultTimeout(60_000);

const h = useHarness("duplicate_matches");

const balanceOf = async (dev: { token: string }) => (await h.call("GET", "/api/me/balance", { token: dev.token })).body.balance;
const botOf = async (dev: { token: string }, name: string, strategy?: string) =>
  (await h.call("POST", "/api/bots", { token: dev.token, body: strategy ? { name, strategy } : { name } })).body.botId as string;
const ledgerOf = async (dev: { token: string }) =>
  (await h.call("GET", "/api/me/transactions?limit=100", { token: dev.token })).body as Array<{ transactionId: string; type: string; tableId: string; amount: number }>;

describe("duplicate pairs: creating and seating", () => {
  test("bad input (400); POST answers copy 1 naming its twin, both in the lobby; a stranger's bot 403, a remote bot 409, at either copy; nothing charged", async () => {
    const alice = await h.fundedDeveloper();
    for (const body of [{ duplicate: true, maxPlayers: 3 }, { duplicate: true }, { duplicate: "yes", maxPlayers: 2 }]) {
      const refused = await h.call("POST", "/api/tables", { token: alice.token, body });
      expect(refused.status).toBe(400);
      expect(refused.body.error.code).toBe("VALIDATION_ERROR");
    }
    const created = await h.call("POST", "/api/tables", { token: alice.token, body: { duplicate: true, maxPlayers: 2 } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ config: { duplicate: true }, copy: 1, status: "waiting" });
    const twinId = created.body.twinTableId as string;
    const twin = (await h.call("GET", `/api/tables/${twinId}`)).body;
    expect(twin).toMatchObject({ tableId: twinId, copy: 2, twinTableId: created.body.tableId, config: { duplicate: true } });
    const lobby = (await h.call("GET", "/api/tables?limit=100")).body as Array<{ tableId: string }>;
    expect(lobby.filter((t) => t.tableId === created.body.tableId || t.tableId === twinId)).toHaveLength(2);
    // An ordinary table names no twin.
    const plain = (await h.call("POST", "/api/tables", { token: alice.token, body: { maxPlayers: 2 } })).body;
    expect([plain.twinTableId, plain.copy]).toEqual([null, null]);

    const bob = await h.fundedDeveloper();
    const intruder = await botOf(bob, "intruder", "caller");
    const remote = await botOf(alice, "remote-alice");
    const [bobBefore, aliceBefore] = [await balanceOf(bob), await balanceOf(alice)];
    let refusals = 0;
    for (const tableId of [created.body.tableId, twinId]) {
      const stranger = await h.call("POST", `/api/tables/${tableId}/join`, { token: bob.token, body: { botId: intruder } });
      expect([stranger.status, stranger.body.error.code]).toEqual([403, "DUPLICATE_TABLE_PRIVATE"]);
      const socket = await h.call("POST", `/api/tables/${tableId}/join`, { token: alice.token, body: { botId: remote } });
      expect([socket.status, socket.body.error.code]).toEqual([409, "REMOTE_BOT_AT_DUPLICATE_TABLE"]);
      refusals += 2;
    }
    expect(refusals).toBe(4);
    expect([await balanceOf(bob), await balanceOf(alice)]).toEqual([bobBefore, aliceBefore]);
    await h.expectAuditClean();
  });

  test("a join at copy 2 seats the bot at both, seats swapped, two buy-ins; it sits nowhere else; a leave and a close refund both seats", async () => {
    const alice = await h.fundedDeveloper();
    const pair = (await h.call("POST", "/api/tables", { token: alice.token, body: { duplicate: true, maxPlayers: 2, buyIn: 500 } })).body;
    const [one, two] = [pair.tableId as string, pair.twinTableId as string];
    const a = await botOf(alice, "pair-a", "caller");
    const joined = await h.call("POST", `/api/tables/${two}/join`, { token: alice.token, body: { botId: a } });
    expect(joined.status).toBe(201);
    const [first, second] = [(await h.call("GET", `/api/tables/${one}`)).body, (await h.call("GET", `/api/tables/${two}`)).body];
    expect(first.seats).toEqual([{ seat: 0, botId: a, chips: 500, leaving: false }]);
    expect(second.seats).toEqual([{ seat: 1, botId: a, chips: 500, leaving: false }]);
    expect(joined.body).toEqual(second.seats[0]);
    expect(await balanceOf(alice)).toBe(10_000 - 1_000);
    expect((await ledgerOf(alice)).filter((t) => t.type === "buy_in").map((t) => [t.tableId, t.amount]).sort()).toEqual([[one, -500], [two, -500]].sort());
    // A pair is one seating: the bot sits at no other table meanwhile.
    const elsewhere = (await h.call("POST", "/api/tables", { token: alice.token, body: { maxPlayers: 2 } })).body.tableId;
    const twice = await h.call("POST", `/api/tables/${elsewhere}/join`, { token: alice.token, body: { botId: a } });
    expect([twice.status, twice.body.error.code]).toEqual([409, "BOT_ALREADY_SEATED"]);

    const left = await h.call("POST", `/api/tables/${one}/leave`, { token: alice.token, body: { botId: a } });
    expect(left.body).toEqual({ tableId: one, botId: a, status: "left", cashout: 500 });
    for (const id of [one, two]) expect((await h.call("GET", `/api/tables/${id}`)).body.seats).toEqual([]);
    expect(await balanceOf(alice)).toBe(10_000);

    await h.call("POST", `/api/tables/${one}/join`, { token: alice.token, body: { botId: a } });
    const closed = await h.call("DELETE", `/api/tables/${two}`, { token: alice.token });
    expect(closed.body).toEqual({ tableId: two, status: "closed", refunds: [{ botId: a, cashout: 500 }] });
    for (const id of [one, two]) expect((await h.call("GET", `/api/tables/${id}`)).body.status).toBe("closed");
    expect(await balanceOf(alice)).toBe(10_000);
    const cashouts = (await ledgerOf(alice)).filter((t) => t.type === "cashout");
    expect(cashouts).toHaveLength(4);
    await h.expectAuditClean();
  });
});

describe("duplicate pairs: playing", () => {
  test("copy 2's hand n deals copy 1's hand-n deck with the seats swapped; two records, one commitment, revealed once both ended", async () => {
    const alice = await h.fundedDeveloper();
    const pair = (await h.call("POST", "/api/tables", { token: alice.token, body: { duplicate: true, maxPlayers: 2, maxHands: 40, buyIn: 2000 } })).body;
    const [one, two] = [pair.tableId as string, pair.twinTableId as string];
    const [x, y] = [await botOf(alice, "d1", "caller"), await botOf(alice, "d2", "caller")];
    for (const botId of [x, y]) expect((await h.call("POST", `/api/tables/${one}/join`, { token: alice.token, body: { botId } })).status).toBe(201);
    await h.app.services.host.settled();
    const [m1, m2] = [(await h.call("GET", `/api/tables/${one}`)).body.matchId, (await h.call("GET", `/api/tables/${two}`)).body.matchId];
    expect(m1).not.toBe(m2);
    const handsOf = async (matchId: string) => (await h.call("GET", `/api/matches/${matchId}/hands`, { token: alice.token })).body.hands as any[];
    const [copy1, copy2] = [await handsOf(m1), await handsOf(m2)];
    const holeOf = (hand: any, seat: number) => hand.events.find((e: any) => e.type === "hole_cards" && e.seat === seat).cards;
    const botAt = (hand: any, seat: number) => hand.players.find((p: any) => p.seat === seat).botId;
    let compared = 0;
    for (const second of copy2) {
      const first = copy1.find((hand) => hand.handNumber === second.handNumber);
      if (!first) continue;
      expect(second.button).toBe(first.button);
      for (const seat of [0, 1]) {
        // The same seat gets the same cards; the bot there is the other one.
        expect(holeOf(second, seat)).toEqual(holeOf(first, seat));
        expect(botAt(second, seat)).toBe(botAt(first, 1 - seat));
      }
      const common = Math.min(first.board.length, second.board.length);
      expect(second.board.slice(0, common)).toEqual(first.board.slice(0, common));
      compared++;
    }
    expect(compared).toBeGreaterThan(3);
    // Each copy its own record with its own players, seats swapped.
    const players = await rowsOf<{ match_id: string; bot_id: string; position: number }>(
      h.database.db,
      sql`select match_id, bot_id, position from match_players where match_id in (${m1}, ${m2}) order by match_id, position`,
    );
    expect(players.filter((p) => p.match_id === m1).map((p) => p.bot_id)).toEqual([x, y]);
    expect(players.filter((p) => p.match_id === m2).map((p) => p.bot_id)).toEqual([y, x]);

    const [f1, f2] = [(await h.call("GET", `/api/matches/${m1}/fairness`)).body, (await h.call("GET", `/api/matches/${m2}/fairness`)).body];
    expect([f1.twinMatchId, f2.twinMatchId]).toEqual([m2, m1]);
    expect([f1.algorithm, f2.algorithm]).toEqual([FAIR_DECK_ALGORITHM, FAIR_DECK_ALGORITHM]);
    expect(f2.deckSecret).toBe(f1.deckSecret);
    expect(pairMismatch(f1, f2)).toBeNull();
    expect(pairMismatch(f1, { ...f2, deckSecret: "00".repeat(32) })).not.toBeNull();
    expect(firstMismatch(f1, copy1)).toBeNull();
    expect(firstMismatch(f2, copy2)).toBeNull();
    // While the other copy waits or plays, neither reveals the secret (the rule, on the row state of a copy in play).
    for (const status of ["waiting", "running"]) {
      await h.database.db.execute(sql`update tables set status = ${status} where id = ${two}`);
      try {
        expect((await h.call("GET", `/api/matches/${m1}/fairness`)).status).toBe(404);
      } finally {
        await h.database.db.execute(sql`update tables set status = 'finished' where id = ${two}`);
      }
    }
    expect((await h.call("GET", `/api/matches/${m1}/fairness`)).status).toBe(200);
    // Four buy-ins and four cashouts: each copy's seats are paid what each holds.
    const ledger = await ledgerOf(alice);
    expect(ledger.filter((t) => [one, two].includes(t.tableId)).map((t) => t.type).sort()).toEqual(["buy_in", "buy_in", "buy_in", "buy_in", "cashout", "cashout", "cashout", "cashout"]);
    await h.expectAuditClean();
  });

  test("a duplicate match recorded before the two-copy model still verifies by its own rule (hand n dealt from deck ⌈n / 2⌉)", () => {
    const secret = "ab".repeat(32);
    const record = { matchId: "m_old", deckCommitment: createHash("sha256").update(Buffer.from(secret, "hex")).digest("hex"), deckSecret: secret, algorithm: DUPLICATE_DECK_ALGORITHM };
    const hands: DealtHand[] = [1, 2, 3, 4].map((n) => {
      const deck = fairDeck(secret, Math.ceil(n / 2)).map(formatCard);
      const button = n % 2 === 1 ? 0 : 1;
      // Heads-up: the hole cards go first to the seat left of the button.
      const [first, second] = button === 0 ? [1, 0] : [0, 1];
      return {
        handNumber: n,
        button,
        players: [{ seat: 0 }, { seat: 1 }],
        board: [deck[5], deck[6], deck[7]],
        events: [
          { type: "hole_cards", seat: first, cards: [deck[0], deck[2]] },
          { type: "hole_cards", seat: second, cards: [deck[1], deck[3]] },
        ],
      };
    });
    expect(firstMismatch(record, hands)).toBeNull();
    expect(firstMismatch({ ...record, algorithm: FAIR_DECK_ALGORITHM }, hands)).not.toBeNull();
  });

  test("a one-match duplicate table left from before (no twin) is not resumed: aborted, its seat refunded", async () => {
    const alice = await h.fundedDeveloper();
    const bot = await botOf(alice, "legacy", "caller");
    const id = `tbl_legacy_${crypto.randomUUID().slice(0, 8)}`;
    const config = { buyIn: 300, smallBlind: 5, bigBlind: 10, maxPlayers: 2, maxHands: 10, actionTimeoutMs: 2000, duplicate: true };
    const [row] = await h.database.db.insert(tables).values({ id, createdBy: alice.developerId, config, status: "waiting", hostId: "elsewhere", createdAt: new Date() }).returning();
    await buyInInDb(h.database.db, alice.developerId, 300, { botId: bot, tableId: id, position: 0 }, new Date());
    expect(await balanceOf(alice)).toBe(9_700);
    await h.app.services.host.adopt([{ ...row, config }]);
    expect(h.app.services.host.hosts(id)).toBe(false);
    const [after] = await rowsOf<{ status: string }>(h.database.db, sql`select status from tables where id = ${id}`);
    expect(after.status).toBe("aborted");
    expect(await balanceOf(alice)).toBe(10_000);
    await h.expectAuditClean();
  });
});

describe("the ledger's pair rules", () => {
  test("two buy-ins in one transaction or none; an open copy-2 seat keeps the bot from sitting elsewhere; racing pair buy-ins seat it once", async () => {
    const alice = await h.fundedDeveloper();
    const bot = await botOf(alice, "ledger-pair", "caller");
    const db = h.database.db;
    const now = () => new Date();
    const seatsAt = (suffix: string): PairSeatRefs => [
      { botId: bot, tableId: `tbl_${suffix}_1`, position: 0 },
      { botId: bot, tableId: `tbl_${suffix}_2`, position: 1 },
    ];
    // 10,000 covers one 6,000 buy-in, not two: the second is refused and the first rolled back.
    const short = await buyInPairInDb(db, alice.developerId, 6_000, seatsAt("short"), now()).catch((error) => error);
    expect([short.status, short.code]).toEqual([402, "INSUFFICIENT_BALANCE"]);
    expect(await balanceOf(alice)).toBe(10_000);

    const racing = await Promise.allSettled([buyInPairInDb(db, alice.developerId, 100, seatsAt("r1"), now()), buyInPairInDb(db, alice.developerId, 100, seatsAt("r2"), now())]);
    expect(racing.map((r) => r.status).sort()).toEqual(["fulfilled", "rejected"]);
    const won = (racing.find((r) => r.status === "fulfilled") as PromiseFulfilledResult<{ seatIds: [number, number]; transactionIds: [string, string] }>).value;
    expect((racing.find((r) => r.status === "rejected") as PromiseRejectedResult).reason.code).toBe("BOT_ALREADY_SEATED");
    expect(await balanceOf(alice)).toBe(9_800);

    // Copy 1 over, copy 2 still playing: the bot is still seated (the guard in the buy-in statement).
    await cashoutInDb(db, alice.developerId, won.seatIds[0], 100, { botId: bot }, now());
    const meanwhile = await buyInInDb(db, alice.developerId, 100, { botId: bot, tableId: "tbl_other", position: 0 }, now()).catch((error) => error);
    expect([meanwhile.status, meanwhile.code]).toEqual([409, "BOT_ALREADY_SEATED"]);
    await cashoutInDb(db, alice.developerId, won.seatIds[1], 100, { botId: bot }, now());
    const free = await buyInInDb(db, alice.developerId, 100, { botId: bot, tableId: "tbl_other", position: 0 }, now());
    await cashoutInDb(db, alice.developerId, free.seatId, 100, { botId: bot }, now());
    expect(await balanceOf(alice)).toBe(10_000);
    const buyIns = (await ledgerOf(alice)).filter((t) => t.type === "buy_in");
    expect(buyIns).toHaveLength(3);
    // The pair's answer names its two rows (copy 1's, then copy 2's), and the lone buy-in its own.
    expect(buyIns.map((t) => t.transactionId)).toEqual([free.transactionId, won.transactionIds[1], won.transactionIds[0]]);
    await h.expectAuditClean();
  });
});
