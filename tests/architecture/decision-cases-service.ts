/**
 * Cases for docs/ARCHITECTURE.md's "Where is it decided?" rows whose deciding function needs the
 * service's database or objects: each calls it on a real app (its own Postgres database) with an
 * input and checks the decision. Each returns how many decisions it checked.
 */
import { desc, eq, sql } from "drizzle-orm";
import { useHarness, type Harness } from "../support/app";
import type { TestDatabase } from "../support/db";
import { counter, type DecisionCase } from "./decision-cases-pure";
import { auditLedger } from "../../src/modules/credits/audit";
import { DeckSeal } from "../../src/modules/match-host/deck-seal";
import { keysetPage } from "../../src/lib/paging";
import { developers, seats, tournaments, transactions } from "../../src/db/schema";
import { SEAT_COLUMNS } from "../../src/db/seat-developer";
import { SEAT_LEDGER } from "../../src/modules/tables/seat-rows";
import { sequenceOfTransactionId, transactionIdColumn, transactionNamed } from "../../src/modules/credits/transaction-id";
import { TableConfigIds } from "../../src/modules/tables/config-rows";
import { commitRound, revealRound, roundSecret } from "../../src/modules/match-host/round-decks";
import { deckCommitment } from "../../src/poker/fair-deck";
import { validateUpload } from "../../src/modules/hosted/upload";
import { currentCodeVersions } from "../../src/modules/hosted/code-store";
import { writeMatchStats } from "../../src/modules/stats/writer";
import { DatabaseProbe } from "../../src/db/probe";
import { leastLoadedNodes } from "../../src/modules/ladder/placement";
import { developerWithBot, playTable, type PlayerBot } from "../support/rated-tables";
import { until } from "../support/nodes";

type ServiceHarness = Harness & { testDb: TestDatabase };

export function serviceHarness(): ServiceHarness {
  return useHarness("decisions");
}

const STARTER_BOT = `import { check, defineBot, fold } from "@poker-bots/sdk";\nexport default defineBot({ decide(state) { return state.legal.canCheck ? check() : fold(); } });\n`;

async function botOf(h: ServiceHarness, token: string, body: Record<string, unknown>): Promise<string> {
  const created = await h.call("POST", "/api/bots", { token, body });
  if (created.status !== 201) throw new Error(`bot not created: ${created.status} ${JSON.stringify(created.body)}`);
  return created.body.botId ?? created.body.id;
}

/** One rated heads-up match of two developers' built-ins, played once for the cases that read its rows. */
const played = new WeakMap<object, Promise<{ players: PlayerBot[]; matchId: string }>>();
function playedMatch(h: ServiceHarness): Promise<{ players: PlayerBot[]; matchId: string }> {
  const key = h.app;
  let match = played.get(key);
  if (!match) {
    match = (async () => {
      const players = [await developerWithBot(h.call, "decisions-raiser", "raiser"), await developerWithBot(h.call, "decisions-caller", "caller")];
      const tableId = await playTable(h.call, players, { maxHands: 30 });
      const matchId = await until(async () => {
        const table = await h.call("GET", `/api/tables/${tableId}`);
        return table.body.status === "finished" ? (table.body.matchId ?? table.body.lastMatchId ?? (await lastMatchOf(h, players[0].botId))) : null;
      }, 60_000, "the decisions match to finish");
      await h.app.services.ratingsApplier.settled();
      return { players, matchId };
    })();
    played.set(key, match);
  }
  return match;
}

async function lastMatchOf(h: ServiceHarness, botId: string): Promise<string | null> {
  const list = await h.call("GET", `/api/matches?botId=${botId}`);
  return list.body.matches?.[0]?.matchId ?? null;
}

export const DECISION_CASES_SERVICE: DecisionCase<ServiceHarness>[] = [
  {
    question: /^where a hosted round's one deck secret is committed/,
    async decide(h) {
      const c = counter();
      const db = h.database.db;
      const seal = new DeckSeal(db, undefined);
      const { developerId } = await h.registerDeveloper();
      await db.insert(tournaments).values({ id: "trn_decisions", kind: "round-robin", createdBy: developerId, settings: {}, status: "running", createdAt: new Date() });
      const round = { tournamentId: "trn_decisions", round: 1 };
      const commitment = await commitRound(db, seal, round, new Date());
      c.same(await commitRound(db, seal, round, new Date()), commitment); // committed once: a second call keeps the first
      const secret = await roundSecret(db, seal, round);
      c.same(deckCommitment(secret), commitment); // every match of the round deals from the committed secret
      c.same(await revealRound(db, seal, round, [], [], new Date()), secret);
      return c.count;
    },
  },
  {
    question: /^what a ledger row's id is/,
    async decide(h) {
      const c = counter();
      const dev = await h.fundedDeveloper();
      const [row] = await h.database.db.select({ seq: transactions.seq, stored: transactions.id, id: transactionIdColumn }).from(transactions).where(eq(transactions.developerId, dev.developerId));
      c.same(row.stored, null); // none stored: derived from the key
      c.same(sequenceOfTransactionId(row.id), row.seq);
      c.same(sequenceOfTransactionId("tx_01kdvdna00aaaaaaaaaaaaaaaa"), null); // a stored id's shape is looked up as it is
      const [named] = await h.database.db.select({ seq: transactions.seq }).from(transactions).where(transactionNamed(row.id));
      c.same(named.seq, row.seq);
      return c.count;
    },
  },
  {
    question: /^where a table's config is stored/,
    async decide(h) {
      const c = counter();
      const config = { buyIn: 640, smallBlind: 2, bigBlind: 4, maxPlayers: 3, maxHands: 12, actionTimeoutMs: 1000 };
      const ids = new TableConfigIds(h.database.db);
      const id = await ids.of(config);
      c.same(await new TableConfigIds(h.database.db).of({ ...config }), id); // one row a distinct config
      c.same(await ids.of({ ...config, maxHands: 13 }) === id, false);
      return c.count;
    },
  },
  {
    question: /^how a seat is keyed, and whose it is/,
    async decide(h) {
      const c = counter();
      const dev = await h.fundedDeveloper();
      const bot = (await h.call("POST", "/api/bots", { token: dev.token, body: { name: "keyed", strategy: "caller" } })).body;
      const bought = await SEAT_LEDGER.buyInInDb(h.database.db, dev.developerId, 100, { botId: bot.botId, tableId: "tbl_keyed", position: 0 }, new Date());
      const [seat] = await h.database.db.select({ ...SEAT_COLUMNS, id: seats.id, stored: seats.developerId }).from(seats).where(eq(seats.seq, bought.seatId));
      c.same(seat.id, null); // no text id: the number is the key
      c.same(seat.stored, null); // a seat with a bot stores no developer
      c.same(seat.developerId, dev.developerId); // its bot's owner
      const [row] = await h.database.db.select({ seat: transactions.seatSeq }).from(transactions).where(eq(transactions.developerId, dev.developerId)).orderBy(desc(transactions.seq)).limit(1);
      c.same(row.seat, bought.seatId); // the buy-in names the seat by its number
      // The cashout's guard: only the seat's developer is paid (another's is refused, nothing moves).
      const other = await h.fundedDeveloper();
      const refused = await SEAT_LEDGER.cashoutInDb(h.database.db, other.developerId, bought.seatId, 100, { botId: bot.botId, tableId: "tbl_keyed" }, new Date()).catch((error) => error.status);
      c.same(refused, 409);
      c.same((await SEAT_LEDGER.cashoutInDb(h.database.db, dev.developerId, bought.seatId, 100, { botId: bot.botId, tableId: "tbl_keyed" }, new Date())).balance > 0, true);
      c.same((await auditLedger(h.database.db)).ok, true);
      return c.count;
    },
  },
  {
    question: /^what the ledger audit checks/,
    async decide(h) {
      const c = counter();
      await h.fundedDeveloper();
      c.same((await auditLedger(h.database.db)).ok, true);
      // A balance no ledger row explains is found, and put back.
      await h.database.db.execute(sql`update developers set balance = balance + 1 where id = (select id from developers order by id limit 1)`);
      const tampered = await auditLedger(h.database.db);
      await h.database.db.execute(sql`update developers set balance = balance - 1 where id = (select id from developers order by id limit 1)`);
      c.same(tampered.ok, false);
      c.same((await auditLedger(h.database.db)).ok, true);
      return c.count;
    },
  },
  {
    question: /^where a running match's deck secret is sealed/,
    async decide(h) {
      const c = counter();
      const seal = new DeckSeal(h.database.db, undefined);
      const secret = "ab".repeat(32);
      const sealed = await seal.seal("m_decisions", secret);
      c.same(sealed.startsWith("v1:") && !sealed.includes(secret), true);
      c.same(await seal.secretOf({ id: "m_decisions", deckSecret: null, deckSecretSealed: sealed }), secret);
      c.same(await seal.secretOf({ id: "m_decisions", deckSecret: "cd".repeat(32), deckSecretSealed: null }), "cd".repeat(32)); // revealed: as it is
      return c.count;
    },
  },
  {
    question: /^how a list pages/,
    async decide(h) {
      const c = counter();
      await h.registerDeveloper();
      await h.registerDeveloper();
      const query = () => h.database.db.select({ id: developers.id }).from(developers).$dynamic();
      const order = [{ column: developers.id, order: "asc" as const }];
      const first = await keysetPage(query(), { order, limit: 1 }, (row) => row.id);
      c.same(first.items.length, 1);
      c.same(first.next !== null, true); // limit + 1 rows read: a next page exists
      const all = await keysetPage(query(), { order, limit: 1_000 }, (row) => row.id);
      c.same(all.next, null);
      return c.count;
    },
  },
  {
    question: /^what an upload may be and how often/,
    async decide(h) {
      const c = counter();
      let refused: unknown = null;
      await validateUpload(new Uint8Array(2 * 1024 * 1024), h.app.services.sandbox).catch((error) => (refused = error));
      c.same((refused as { code?: string })?.code, "PAYLOAD_TOO_LARGE");
      const valid = await validateUpload(STARTER_BOT, h.app.services.sandbox, "application/typescript");
      c.same(typeof valid, "object");
      return c.count;
    },
  },
  {
    question: /^whether a bot's uploaded code plays it/,
    async decide(h) {
      const c = counter();
      const { token } = await h.registerDeveloper();
      const botId = await botOf(h, token, { name: "decisions-hosted" });
      const uploaded = await h.call("PUT", `/api/bots/${botId}/code`, { token, rawBody: STARTER_BOT, headers: { "content-type": "application/typescript" } });
      c.same([200, 201].includes(uploaded.status), true);
      c.same((await currentCodeVersions(h.database.db, [botId])).has(botId), true);
      c.same((await h.call("DELETE", `/api/bots/${botId}/code`, { token })).status < 300, true);
      c.same((await currentCodeVersions(h.database.db, [botId])).has(botId), false); // hosting off: the code no longer plays
      return c.count;
    },
  },
  {
    question: /^where the leaderboard row is written after a match/,
    async decide(h) {
      const c = counter();
      c.same(await h.database.db.transaction(async (tx) => writeMatchStats(tx, [])), null); // no ranked match, nothing written
      const { players } = await playedMatch(h);
      const stats = await Promise.all(players.map((p) => h.call("GET", `/api/stats/${p.botId}`)));
      c.same(stats.map((s) => s.body.matchesPlayed), [1, 1]);
      c.same(stats.reduce((sum, s) => sum + s.body.netChips, 0), 0); // what one won the other lost
      return c.count;
    },
  },
  {
    question: /^where a bot's rating over time and its results by opponent come from/,
    async decide(h) {
      const c = counter();
      const { players, matchId } = await playedMatch(h);
      const history = await h.app.services.ratings.history(players[0].botId);
      c.same(history.map((point) => point.matchId), [matchId]);
      const byOpponent = await h.app.services.ratings.byOpponent(players[0].botId);
      c.same(byOpponent.map((row) => [row.opponentId, row.matches]), [[players[1].botId, 1]]);
      return c.count;
    },
  },
  {
    question: /^which match \/tv plays/,
    async decide(h) {
      const c = counter();
      const { matchId } = await playedMatch(h);
      const program = await h.call("GET", "/tv/program.json");
      c.same(program.body.program?.matchId, matchId); // the only rated match: it is on
      c.same(program.body.program.frames > 0, true);
      return c.count;
    },
  },
  {
    question: /^whether a bot may be challenged/,
    async decide(h) {
      const c = counter();
      const [me, them] = [await developerWithBot(h.call, "decisions-challenger", "tight"), await developerWithBot(h.call, "decisions-challenged", "caller")];
      const challenge = { botId: me.botId, opponentBotId: them.botId, hands: 20, buyIn: 500 };
      const closed = await h.call("POST", "/api/challenges", { token: me.token, body: challenge });
      c.same(closed.status, 409); // not open to challenges: its owner did not opt in
      c.same((await h.call("PUT", `/api/bots/${them.botId}/challenges`, { token: them.token, body: { openToChallenges: true, maxBuyIn: 400 } })).status, 200);
      c.same((await h.call("POST", "/api/challenges", { token: me.token, body: challenge })).status, 409); // above the largest buy-in its owner accepts
      const accepted = await h.call("POST", "/api/challenges", { token: me.token, body: { ...challenge, buyIn: 400 } });
      c.same([accepted.status, accepted.body.rated], [201, false]);
      return c.count;
    },
  },
  {
    question: /^whether a node takes traffic/,
    async decide(h) {
      const c = counter();
      const reachable = new DatabaseProbe(h.testDb.url, 2_000, () => {}).start();
      const cut = new DatabaseProbe("postgres://postgres@127.0.0.1:1/none", 200, () => {}).start();
      try {
        await new Promise<void>((resolve) => (cut.reachable() ? cut.onChange((up) => !up && resolve()) : resolve()));
        c.same(cut.reachable(), false);
        c.same(reachable.reachable(), true);
      } finally {
        await Promise.all([reachable.stop(), cut.stop()]);
      }
      c.same((await h.call("GET", "/health")).status, 200);
      return c.count;
    },
  },
  {
    question: /^which node hosts a ladder table/,
    async decide(h) {
      const c = counter();
      const cluster = h.app.services.cluster;
      c.same(await leastLoadedNodes(h.database.db, cluster, 0), []);
      c.same(await leastLoadedNodes(h.database.db, cluster, 2), [cluster.hostId, cluster.hostId]); // alone: every table here
      return c.count;
    },
  },
  {
    question: /^who may connect to an ACPC port/,
    async decide(h) {
      const c = counter();
      const me = await developerWithBot(h.call, "decisions-acpc-builtin", "tight");
      c.same((await h.call("POST", `/api/bots/${me.botId}/acpc`, { token: me.token })).body.error?.code, "BUILT_IN_BOT");
      const remote = await botOf(h, me.token, { name: "decisions-acpc-remote" });
      const other = await h.registerDeveloper();
      c.same((await h.call("POST", `/api/bots/${remote}/acpc`, { token: other.token })).status, 403); // not the owner
      const unseated = await h.call("POST", `/api/bots/${remote}/acpc`, { token: me.token });
      c.same([unseated.status >= 400 && unseated.status < 500, unseated.body.error !== undefined], [true, true]); // no reset-stacks seat
      return c.count;
    },
  },
];
