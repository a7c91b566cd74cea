/**
 * Kill campaign: N rounds of start the server, start matches (built-in and remote bots), SIGKILL
 * at a chosen kind of moment, restart; after every restart the audit is clean and every credit is
 * accounted for.
 *
 *   KILL_ROUNDS (default 3), KILL_SEED (replay)
 *
 * Round r kills (r mod 3): 0 mid-hand (after some hand_ended messages), 1 right as matches end
 * (short matches, so match-end writes are frequent), 2 in the middle of a burst of 30 joins.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { openDatabase, type Database } from "../../src/db";
import { auditLedger } from "../../src/modules/credits/audit";
import { createTestDatabase, type TestDatabase } from "../support/db";
import { WsBot } from "../support/ws-bot";
import { intFromEnv, matchProblems, perDeveloperProblems, developerBooks, Rng, rowsOf, runAuditCli, seedFrom, spawnServer, type ServerProcess } from "./support";

const ROUNDS = intFromEnv("KILL_ROUNDS", 3);
const SEED = seedFrom("KILL_SEED");
const HOST = "kill-host";
const ENV = { FAUCET_COOLDOWN_MS: "0" };
const MODES = ["mid-hand", "match-end", "buy-in burst"] as const;

let testDb: TestDatabase;
let database: Database;
let current: ServerProcess | undefined;
const sockets: WsBot[] = [];

beforeAll(async () => {
  testDb = await createTestDatabase("kill_campaign");
  database = await openDatabase({ databaseUrl: testDb.url, maxConnections: 2 });
});
afterAll(async () => {
  for (const ws of sockets) if (!ws.closed) ws.disconnect();
  if (current && current.child.exitCode === null) current.child.kill("SIGKILL");
  await current?.child.exited;
  await database.close();
  await testDb.drop();
});

interface Dev {
  token: string;
  developerId: string;
  grants: number;
}

/** Requests to a server that may be killed under them: a failed connection is an outcome, not an error. */
async function attempt<T>(work: () => Promise<T>): Promise<T | "connection lost"> {
  try {
    return await work();
  } catch {
    return "connection lost";
  }
}

describe("kill campaign", () => {
  test(
    `${ROUNDS} rounds of SIGKILL and restart keep every credit`,
    async () => {
      console.log(`[kill] seed ${SEED} (replay with KILL_SEED=${SEED}), ${ROUNDS} rounds`);
      const rng = new Rng(SEED);
      const started = performance.now();
      let server = (current = await spawnServer(testDb.url, HOST, ENV));
      let bootedAt = new Date();
      const devs: Dev[] = [];
      for (let i = 0; i < 3; i++) {
        const r = await server.api("POST", "/api/auth/register", { body: { email: `kill${i}-${SEED}@example.com`, password: "a long password" } });
        expect(r.status).toBe(201);
        devs.push({ token: r.body.token, developerId: r.body.developer.developerId, grants: 0 });
      }
      let botCounter = 0;
      const summary: string[] = [];

      /** After a restart: every invariant, through the database and through the API. */
      const verify = async (label: string) => {
        const report = await auditLedger(database.db);
        expect({ label, problems: report.problems }).toEqual({ label, problems: [] });
        expect({ label, problems: await perDeveloperProblems(database.db) }).toEqual({ label, problems: [] });
        expect({ label, problems: await matchProblems(database.db) }).toEqual({ label, problems: [] });
        const books = new Map((await developerBooks(database.db)).map((b) => [b.id, b]));
        for (const dev of devs) expect(books.get(dev.developerId)!.grantCount).toBe(dev.grants);
        // Open seats only at waiting tables (or at a table whose match started after this boot:
        // a resumed table that was already full starts at once).
        const stray = await rowsOf<{ id: string; status: string }>(
          database.db,
          sql`select s.id, t.status from seats s join tables t on t.id = s.table_id left join matches m on m.id = t.match_id
              where s.status = 'open' and t.status <> 'waiting' and not (t.status = 'running' and m.started_at >= ${bootedAt.toISOString()}::timestamptz)`,
        );
        expect({ label, stray }).toEqual({ label, stray: [] });
        // Aborted matches are not listed, not readable, their hands not public.
        const aborted = await rowsOf<{ id: string }>(database.db, sql`select id from matches where status = 'aborted'`);
        const listed = await server.api("GET", "/api/matches?limit=200");
        expect(listed.status).toBe(200);
        const listedIds = new Set(listed.body.map((m: any) => m.matchId));
        for (const { id } of aborted) {
          expect(listedIds.has(id)).toBe(false);
          expect((await server.api("GET", `/api/matches/${id}`)).status).toBe(404);
          expect((await server.api("GET", `/api/matches/${id}/hands`)).status).toBe(404);
        }
        // Completed ones are consistent through the API too: final chips sum to the buy-ins.
        for (const match of listed.body) {
          const total = match.players.reduce((s: number, p: any) => s + p.finalChips, 0);
          expect(total).toBe(match.config.buyIn * match.players.length);
          expect(match.players.reduce((s: number, p: any) => s + p.profit, 0)).toBe(0);
        }
        return { aborted: aborted.length, completed: listed.body.length, report };
      };

      const claimAll = async () => {
        for (const dev of devs) {
          const r = await server.api("POST", "/api/me/balance/faucet", { token: dev.token });
          expect(r.status).toBe(200);
          dev.grants += 1;
        }
      };
      const newBot = async (dev: Dev, strategy?: string) => {
        const r = await server.api("POST", "/api/bots", { token: dev.token, body: strategy ? { name: `k${++botCounter}`, strategy } : { name: `k${++botCounter}` } });
        expect(r.status).toBe(201);
        return r.body as { botId: string; apiKey: string };
      };
      const newTable = async (dev: Dev, config: Record<string, number>) => {
        const r = await server.api("POST", "/api/tables", { token: dev.token, body: config });
        expect(r.status).toBe(201);
        return r.body.tableId as string;
      };
      const join = (dev: Dev, tableId: string, botId: string) => server.api("POST", `/api/tables/${tableId}/join`, { token: dev.token, body: { botId } });
      const remoteBot = async (dev: Dev) => {
        const bot = await newBot(dev);
        const ws = await new WsBot(server.url, bot.apiKey, (request) => ({ action: request.legalActions.includes("check") ? (rng.chance(0.3) ? "raise" : "check") : "call", ...(request.minRaiseTo ? {} : {}) })).connect();
        ws.policy = (request) => {
          if (request.legalActions.includes("raise") && rng.chance(0.2)) return { action: "raise", amount: request.minRaiseTo };
          return { action: request.legalActions.includes("check") ? "check" : "call" };
        };
        sockets.push(ws);
        return { ...bot, ws };
      };

      for (let round = 0; round < ROUNDS; round++) {
        const mode = MODES[round % 3];
        await claimAll();
        const [a, b, c] = devs;
        let note = "";
        let background: Promise<unknown> = Promise.resolve();
        let stop = false;
        let remoteTable: string | null = null;

        if (mode === "mid-hand") {
          for (let t = 0; t < 2; t++) {
            // Deep stacks and passive strategies: these matches outlive the round.
            const tableId = await newTable(a, { maxPlayers: 3, maxHands: 100_000, buyIn: 3_000, smallBlind: 1, bigBlind: 2 });
            for (const dev of [a, b, c]) expect((await join(dev, tableId, (await newBot(dev, rng.pick(["caller", "tight"]))).botId)).status).toBe(201);
          }
          const remote = await remoteBot(b);
          const tableId = await newTable(b, { maxPlayers: 2, maxHands: 100_000, buyIn: 1_000, smallBlind: 1, bigBlind: 2 });
          remoteTable = tableId;
          expect((await join(b, tableId, remote.botId)).status).toBe(201);
          expect((await join(c, tableId, (await newBot(c, "caller")).botId)).status).toBe(201);
          const hands = rng.int(2, 6);
          await remote.ws.next((m) => m.type === "hand_ended" && m.handNumber >= hands, 30_000);
          await Bun.sleep(rng.int(0, 60));
          note = `after the remote bot saw hand ${hands} end`;
        } else if (mode === "match-end") {
          // Short matches, one after another, so a kill lands near a match-end write.
          const remote = await remoteBot(a);
          let ended = 0;
          const loop = async (dev: Dev, withRemote: boolean) => {
            while (!stop) {
              const result = await attempt(async () => {
                const tableId = await newTable(dev, { maxPlayers: 2, maxHands: rng.int(1, 3), buyIn: 100 });
                const first = withRemote ? remote.botId : (await newBot(dev, "raiser")).botId;
                const since = remote.ws.messages.length;
                await join(dev, tableId, first);
                await join(dev === a ? b : a, tableId, (await newBot(dev === a ? b : a, "caller")).botId);
                if (withRemote) await remote.ws.next((m) => m.type === "match_ended" && m.tableId === tableId, 10_000, since);
                else await Bun.sleep(5);
                ended += 1;
              });
              if (result === "connection lost") return;
            }
          };
          background = Promise.all([loop(a, true), loop(b, false), loop(c, false)]);
          const delay = rng.int(300, 900);
          await Bun.sleep(delay);
          note = `${delay} ms into back-to-back short matches (${ended} ended before the kill)`;
        } else {
          // A long match running, and 10 tables of 3 seats bought into by a burst of 30 joins.
          const running = await newTable(c, { maxPlayers: 2, maxHands: 100_000, buyIn: 3_000, smallBlind: 1, bigBlind: 2 });
          for (const dev of [a, b]) expect((await join(dev, running, (await newBot(dev, "caller")).botId)).status).toBe(201);
          const tableIds: string[] = [];
          for (let t = 0; t < 10; t++) tableIds.push(await newTable(a, { maxPlayers: 3, maxHands: rng.int(5, 50), buyIn: 100 }));
          const seats: Array<[Dev, string, string]> = [];
          for (const tableId of tableIds) for (const dev of [a, b, c]) seats.push([dev, tableId, (await newBot(dev, rng.pick(["random", "caller"]))).botId]);
          const results = new Map<string, number>();
          const burst = seats.map(([dev, tableId, botId]) =>
            attempt(() => join(dev, tableId, botId)).then((r) => {
              const key = r === "connection lost" ? r : String(r.status);
              results.set(key, (results.get(key) ?? 0) + 1);
            }),
          );
          background = Promise.all(burst);
          const delay = rng.int(0, 400);
          await Bun.sleep(delay);
          note = `${delay} ms into a burst of ${seats.length} joins (answered before the kill: ${JSON.stringify(Object.fromEntries(results))})`;
          background = background.then(() => (note += `; all answers: ${JSON.stringify(Object.fromEntries(results))}`));
        }

        server.child.kill("SIGKILL");
        await server.child.exited;
        stop = true;
        await background;
        for (const ws of sockets) if (!ws.closed) ws.disconnect();

        // Killed: the committed state balances already.
        const down = await auditLedger(database.db);
        expect(down.problems).toEqual([]);
        const [interrupted] = await rowsOf<{ running: number; hands: number; seats: number; waiting: number; waiting_seats: number }>(
          database.db,
          sql`select (select count(*) from tables where status = 'running')::int as running,
                     (select coalesce(sum(m.hands_played), 0) from tables t join matches m on m.id = t.match_id where t.status = 'running')::int as hands,
                     (select count(*) from seats s join tables t on t.id = s.table_id where s.status = 'open' and t.status = 'running')::int as seats,
                     (select count(*) from tables where status = 'waiting')::int as waiting,
                     (select count(*) from seats s join tables t on t.id = s.table_id where s.status = 'open' and t.status = 'waiting')::int as waiting_seats`,
        );

        server = current = await spawnServer(testDb.url, HOST, ENV);
        bootedAt = new Date(Date.now() - 50);
        const recovered = /recovered tables: .*/.exec(server.stdout())?.[0] ?? "nothing to recover";
        const checked = await verify(`round ${round}`);
        const line =
          `[kill] round ${round} (${mode}): killed ${note}; interrupted ${interrupted.running} running match(es) ` +
          `(${interrupted.hands} hands written, ${interrupted.seats} open seats), ${interrupted.waiting} waiting table(s) with ${interrupted.waiting_seats} seat(s); ` +
          `restart: ${recovered}; audit clean: ${checked.report.faucetGrants} granted = ${checked.report.totalBalances} balances + ${checked.report.openSeatChips} in seats; ` +
          `${checked.completed} completed / ${checked.aborted} aborted matches so far`;
        console.log(line);
        summary.push(line);
        if (remoteTable) {
          // The remote bot's match was interrupted mid-way: aborted at the restart, not listed.
          const [row] = await rowsOf<{ status: string; match_status: string }>(
            database.db,
            sql`select t.status, m.status as match_status from tables t join matches m on m.id = t.match_id where t.id = ${remoteTable}`,
          );
          expect(row).toEqual({ status: "aborted", match_status: "aborted" });
          expect(interrupted.running).toBeGreaterThanOrEqual(1);
        }
      }

      // The CLI agrees, and a clean stop after the last restart keeps the books.
      const cli = await runAuditCli(testDb.url);
      expect(cli.exitCode).toBe(0);
      expect(cli.stdout).toContain("audit OK");
      server.child.kill("SIGTERM");
      expect(await server.child.exited).toBe(0);
      expect((await auditLedger(database.db)).problems).toEqual([]);
      expect(await perDeveloperProblems(database.db)).toEqual([]);
      console.log(`[kill] seed ${SEED}: ${ROUNDS} rounds in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    },
    { timeout: Math.max(110_000, ROUNDS * 15_000) },
  );
});
