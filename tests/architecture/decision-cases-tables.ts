/**
 * Cases for the "Where is it decided?" rows about tables and seats (issue 34's one table, one seat,
 * one composition): each calls the row's function with an input and checks the decision it makes.
 * Each returns how many decisions it checked.
 */
import { eq, inArray, sql } from "drizzle-orm";
import { until } from "../support/nodes";
import { createActor } from "xstate";
import type { Harness } from "../support/app";
import type { TestDatabase } from "../support/db";
import { developerWithBot } from "../support/rated-tables";
import { counter, type DecisionCase } from "./decision-cases-pure";
import { chipsAfterHand, handStartingStack, leavesBetweenHands, resetStacksMatchOver } from "../../src/modules/match-host/reset-stacks";
import { DealGuard, DealStalledError } from "../../src/modules/match-host/deal-guard";
import { firstUndealtNumber } from "../../src/modules/match-host/resume";
import { claimOrphanedTables } from "../../src/modules/cluster/takeover";
import { createTableMachine } from "../../src/modules/tables/table-machine";
import { newSeatRuntime, TableRuntime, type SeatRuntime } from "../../src/modules/tables/runtime";
import { decide } from "../../src/modules/seats/decide";
import { HostedSandboxSeat, hostedRequestIds, type SandboxDecision } from "../../src/modules/seats/hosted";
import { NO_TIME_BANK } from "../../src/modules/seats/rules";
import type { AskedSeat, SeatAnswer, Turn } from "../../src/modules/seats/model";
import { legalActions, startHand } from "../../src/poker/hand";
import { fullDeck } from "@poker-bots/core/cards";
import { compose } from "../../src/compose";
import { seats, tables } from "../../src/db/schema";
import type { TableConfig } from "../../src/db/schema";

type ServiceHarness = Harness & { testDb: TestDatabase };

const config = (over: Partial<TableConfig> = {}) => ({ maxPlayers: 2, smallBlind: 5, bigBlind: 10, buyIn: 500, ...over }) as TableConfig;
const seatWith = (chips: number, leaving = false) => ({ chips, leaving }) as SeatRuntime;
const tableWith = (over: Partial<TableConfig>, seatList: SeatRuntime[] = []) => ({ config: config(over), seats: new Map(seatList.map((s, i) => [i, s])) }) as unknown as TableRuntime;

/** A heads-up hand at its first decision: the small blind may call, raise or fold (no check). */
function firstTurn(leaving = false): Turn {
  const state = startHand({ seats: [{ seatIndex: 0, stack: 200 }, { seatIndex: 1, stack: 200 }], buttonSeatIndex: 0, smallBlind: 1, bigBlind: 2, deck: fullDeck() });
  return { state, legal: legalActions(state)!, actionTimeoutMs: 100, timeBankMs: 0, leaving: () => leaving, request: (requestId) => ({ requestId }) as never };
}

/** A seat that answers what it is scripted to (the seat interface's other side, as a bot would). */
const scripted = (answer: SeatAnswer): AskedSeat => ({ kind: "remote", botId: "b_scripted", ask: async () => answer });

const rules = { clock: { now: () => 0 } as never, timeBank: NO_TIME_BANK, onSilence: () => {} };

async function tableOf(h: ServiceHarness, token: string, body: Record<string, unknown> = {}): Promise<string> {
  const created = await h.call("POST", "/api/tables", { token, body: { maxPlayers: 2, buyIn: 500, ...body } });
  if (created.status !== 201) throw new Error(`table: ${created.status} ${JSON.stringify(created.body)}`);
  return created.body.tableId;
}

const balanceOf = async (h: ServiceHarness, token: string): Promise<number> => (await h.call("GET", "/api/me/balance", { token })).body.balance;

export const DECISION_CASES_TABLES: DecisionCase<ServiceHarness>[] = [
  {
    question: /^how a reset-stacks match moves chips/,
    decide() {
      const c = counter();
      const reset = tableWith({ resetStacks: 200 }, [seatWith(500), seatWith(150)]);
      c.same(handStartingStack(reset, seatWith(500)), 200); // every hand starts at the full stack
      c.same(chipsAfterHand(reset, seatWith(500), 200, 260), 560); // the hand's result moves the bankroll
      c.same(resetStacksMatchOver(reset), true); // a bankroll below a full stack ends the match
      c.same(leavesBetweenHands(reset, seatWith(0)), false);
      const ordinary = tableWith({}, [seatWith(500)]);
      c.same([handStartingStack(ordinary, seatWith(340)), chipsAfterHand(ordinary, seatWith(340), 340, 0), leavesBetweenHands(ordinary, seatWith(0))], [340, 0, true]);
      return c.count;
    },
  },
  {
    question: /^how a seat is asked for its action/,
    async decide() {
      const c = counter();
      const turn = firstTurn();
      c.same((await decide(scripted({ answered: false, why: "silent", foldedForMatch: false }), turn, rules)).action, { type: "fold" }); // no check to make: fold
      c.same((await decide(scripted({ answered: true, action: { type: "call" }, tookMs: 5 }), turn, rules)).action, { type: "call" });
      c.same((await decide(scripted({ answered: true, action: { type: "call" }, tookMs: 5 }), firstTurn(true), rules)).action, { type: "fold" }); // a leaver is not asked
      const builtIn = { kind: "built-in" as const, botId: "b_builtin", choose: () => ({ type: "call" as const }) };
      c.same((decide(builtIn, turn, rules) as { action: unknown }).action, { type: "call" }); // a built-in decides at once
      return c.count;
    },
  },
  {
    question: /^which code a hosted seat plays, and how it is asked/,
    async decide() {
      const c = counter();
      const sandboxSaying = (decision: SandboxDecision) => new HostedSandboxSeat("b_hosted", { decide: async () => decision }, hostedRequestIds());
      const question = (turn: Turn) => ({ turn, askedAt: 0, deadlineMs: 100, budgetMs: 100, illegality: (a: { type: string }) => (a.type === "check" ? "check is not legal" : null) });
      const asked = (decision: SandboxDecision) => sandboxSaying(decision).ask(question(firstTurn()) as never);
      c.same(await asked({ ok: true, action: { action: "call" }, ms: 3 }), { answered: true, action: { type: "call" }, tookMs: 3 });
      c.same(await asked({ ok: true, action: { action: "check" }, ms: 3 }), { answered: false, why: "failed", foldedForMatch: false }); // illegal: a failure
      c.same(await asked({ ok: false, ms: 100, timedOut: true, foldedForMatch: false }), { answered: false, why: "silent", foldedForMatch: false }); // past its run time
      c.same((await asked({ ok: false, ms: 1, timedOut: false, foldedForMatch: true })).answered === false, true);
      return c.count;
    },
  },
  {
    question: /^no deck is dealt twice, no dealing without a lease/,
    async decide() {
      const c = counter();
      const table = new TableRuntime("tbl_guard", "dev", new Date(), config());
      const reservations = { reserveHands: async (t: TableRuntime, through: number) => t.reservedThrough(through) };
      await new DealGuard(table, reservations).beforeDeal(1);
      c.same(table.handsReserved >= 1, true); // dealt only once reserved
      let stalled: unknown = null;
      await new DealGuard(table, reservations, () => false, 50).beforeDeal(2).catch((error) => (stalled = error));
      c.same(stalled instanceof DealStalledError, true); // no lease: no dealing
      c.same(firstUndealtNumber(10, 64), 65); // a resume deals after every reserved number
      return c.count;
    },
  },
  {
    question: /^what state a table is in/,
    async decide() {
      const c = counter();
      let finishMatch!: () => void;
      const machine = createTableMachine({ playMatch: () => new Promise<void>((resolve) => (finishMatch = resolve)), abort: async () => "aborted" });
      const table = new TableRuntime("tbl_machine", "dev", new Date(), config());
      const actor = createActor(machine, { input: { table } }).start();
      c.same(table.status, "waiting");
      table.seat(newSeatRuntime({ botId: "a", developerId: "d1", position: 0, chips: 500, seatId: "s1", strategy: "caller", timeBankMs: 0 } as never));
      table.seat(newSeatRuntime({ botId: "b", developerId: "d2", position: 1, chips: 500, seatId: "s2", strategy: "caller", timeBankMs: 0 } as never));
      actor.send({ type: "SEATS_CHANGED" });
      c.same(table.status, "running"); // full: its match starts
      actor.send({ type: "MATCH_RECORDED" });
      c.same(table.status, "finished");
      // TableRuntime is the one writer of the rest of its live state, and keeps its invariants: a
      // seat's chips are never negative, a hand number only grows (refused, nothing changes).
      c.throws(() => table.settleHand(0, -1, false), /cannot hold -1 chips/);
      c.same([table.seats.get(0)!.chips, table.seats.get(0)!.handsPlayed], [500, 0]);
      table.voidUnrecorded([1, 2], 3);
      c.throws(() => table.voidUnrecorded([1], 2), /a hand number only grows/);
      c.same([table.handNumber, table.voidedHands], [3, [3]]);
      finishMatch();
      const closing = new TableRuntime("tbl_closing", "dev", new Date(), config());
      createActor(machine, { input: { table: closing } }).start().send({ type: "CLOSED" });
      c.same(closing.status, "closed");
      return c.count;
    },
  },
  {
    question: /^where the buy-in is deducted, and who writes the seat/,
    async decide(h) {
      const c = counter();
      const rich = await developerWithBot(h.call, "decisions-buyer", "caller");
      const tableId = await tableOf(h, rich.token, { buyIn: 700 });
      const before = await balanceOf(h, rich.token);
      c.same((await h.call("POST", `/api/tables/${tableId}/join`, { token: rich.token, body: { botId: rich.botId } })).status, 201);
      c.same(await balanceOf(h, rich.token), before - 700);
      const [seat] = await h.database.db.select().from(seats).where(eq(seats.tableId, tableId));
      c.same([seat.botId, seat.buyIn], [rich.botId, 700]); // the seat written with its debit
      const poor = await h.registerDeveloper();
      const poorBot = (await h.call("POST", "/api/bots", { token: poor.token, body: { name: "decisions-poor", strategy: "caller" } })).body.botId;
      const refused = await h.call("POST", `/api/tables/${tableId}/join`, { token: poor.token, body: { botId: poorBot } });
      c.same([refused.status, refused.body.error.code, (await h.database.db.select().from(seats).where(eq(seats.tableId, tableId))).length], [402, "INSUFFICIENT_BALANCE", 1]);
      return c.count;
    },
  },
  {
    question: /^how a duplicate match is made, seated, started and rated/,
    async decide(h) {
      const c = counter();
      const me = await developerWithBot(h.call, "decisions-duplicate", "caller");
      const tableId = await tableOf(h, me.token, { duplicate: true });
      const copy1 = (await h.call("GET", `/api/tables/${tableId}`, { token: me.token })).body;
      c.same([copy1.copy, typeof copy1.twinTableId], [1, "string"]);
      const before = await balanceOf(h, me.token);
      c.same((await h.call("POST", `/api/tables/${tableId}/join`, { token: me.token, body: { botId: me.botId } })).status, 201);
      const positions = await h.database.db.select({ tableId: seats.tableId, position: seats.position }).from(seats).where(eq(seats.botId, me.botId));
      c.same(positions.map((p) => p.tableId).sort(), [tableId, copy1.twinTableId].sort()); // one join, both copies
      c.same(await balanceOf(h, me.token), before - 1_000); // a buy-in at each
      return c.count;
    },
  },
  {
    question: /^how a table fails over to another node/,
    async decide(h) {
      const c = counter();
      const me = await h.fundedDeveloper();
      const tableId = await tableOf(h, me.token);
      // Its host died: the row names a node that holds no lease.
      await h.database.db.update(tables).set({ hostId: "decisions-dead-node" }).where(eq(tables.id, tableId));
      // (This app runs alone, with no lease of its own: its live tables are claimed too, and given back below.)
      const claimed = await claimOrphanedTables(h.database.db, "decisions-claimer");
      c.same(claimed.find((row) => row.id === tableId)?.hostId, "decisions-claimer");
      c.same(claimed.every((row) => row.hostId === "decisions-claimer"), true);
      // The claimer alive (its lease stands): another node claims none of its tables.
      await h.database.db.execute(sql`insert into node_leases (host_id, epoch, expires_at) values ('decisions-claimer', nextval('node_lease_epochs'), now() + interval '1 hour')`);
      c.same((await claimOrphanedTables(h.database.db, "decisions-other")).length, 0);
      await h.database.db.execute(sql`delete from node_leases where host_id = 'decisions-claimer'`);
      await h.database.db.update(tables).set({ hostId: h.config.hostId }).where(inArray(tables.id, claimed.map((row) => row.id)));
      return c.count;
    },
  },
  {
    question: /^where a command reaches a table's host/,
    async decide(h) {
      const c = counter();
      const me = await h.fundedDeveloper();
      const tableId = await tableOf(h, me.token);
      let ranHere = 0;
      await h.app.services.routing.run(tableId, { op: "get", viewerId: null }, async () => void ranHere++);
      c.same(ranHere, 1); // hosted here: run here
      const view = (await h.app.services.commands.execute(tableId, { op: "get", viewerId: null })) as { tableId: string };
      c.same(view.tableId, tableId);
      return c.count;
    },
  },
  {
    question: /^which tables this node holds, and at which table a bot sits here/,
    async decide(h) {
      const c = counter();
      const me = await developerWithBot(h.call, "decisions-held", "caller");
      const tableId = await tableOf(h, me.token);
      const held = h.app.services.held;
      c.same(held.has(tableId), true);
      await h.call("POST", `/api/tables/${tableId}/join`, { token: me.token, body: { botId: me.botId } });
      c.same(held.tableOfBot.get(me.botId), tableId);
      c.same((await h.call("DELETE", `/api/tables/${tableId}`, { token: me.token })).status < 300, true);
      await held.get(tableId)?.done;
      c.same(held.has(tableId), false); // closed: released
      return c.count;
    },
  },
  {
    question: /^how the service's parts are wired/,
    async decide(h) {
      const c = counter();
      const services = compose({ db: h.database.db, dbKind: h.database.kind, config: h.config, jwtSecret: "decisions", clock: h.clock, log: () => {} });
      try {
        const parts = Object.entries(services);
        c.same(parts.filter(([, part]) => part === undefined || part === null).map(([name]) => name), []);
        c.same(parts.length >= 25, true);
        c.same(services.gateway === h.app.services.gateway, false); // each composition its own parts
      } finally {
        await services.host.shutdown();
        await services.ratingsApplier.stop();
        await services.accounts.stopAll();
        await services.sandbox.close();
      }
      return c.count;
    },
  },
  {
    question: /^when an LLM agent's bot counts as connected/,
    async decide(h) {
      const c = counter();
      const me = await h.registerDeveloper();
      const botId = (await h.call("POST", "/api/bots", { token: me.token, body: { name: "decisions-agent" } })).body.botId;
      const agents = h.app.services.agentSeats;
      c.same(agents.connectedHere(botId), false);
      const waiting = agents.waitForTurn(me.developerId, botId, 1_000);
      c.same(await until(async () => agents.connectedHere(botId), 10_000, "the agent's wait to open"), true); // connected while its wait is open
      h.clock.advance(1_000); // the wait ends (this app's clock is the test's)
      c.same((await waiting) !== undefined, true);
      const other = await h.registerDeveloper();
      let refused: unknown = null;
      await agents.waitForTurn(other.developerId, botId, 10).catch((error) => (refused = error));
      c.same((refused as { status?: number })?.status, 403); // only its owner's agent plays it
      return c.count;
    },
  },
];

