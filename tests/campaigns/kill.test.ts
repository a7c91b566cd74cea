/**
 * Kill campaign: three nodes (real processes, one Postgres, one NATS), every request through a
 * random live node. N rounds of start matches (built-in and remote bots), SIGKILL of one node at a
 * chosen kind of moment, takeover of its tables by the live nodes, restart of the dead one. After
 * every takeover the audit is clean, no match was aborted, and the matches that were running go
 * on (same matchId) until their players leave.
 *
 *   KILL_ROUNDS (default 3), KILL_SEED (replay)
 *
 * Round r kills (r mod 3): 0 mid-hand the host of a remote bot's match (after some hand_ended
 * messages), 1 a random node right as matches end (short matches, so match-end writes are
 * frequent), 2 a random node in the middle of a burst of 30 joins.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { openDatabase, type Database } from "../../src/db";
import { auditLedger } from "../../src/modules/credits/audit";
import { TestCluster, until } from "../support/nodes";
import { WsBot } from "../support/ws-bot";
import { redealt, witness } from "../support/card-witness";
import { intFromEnv, matchProblems, perDeveloperProblems, developerBooks, Rng, rowsOf, runAuditCli, seedFrom } from "./support";

const ROUNDS = intFromEnv("KILL_ROUNDS", 3);
const SEED = seedFrom("KILL_SEED");
const NODES = ["kill_a", "kill_b", "kill_c"];
const MODES = ["mid-hand", "match-end", "buy-in burst"] as const;

let cluster: TestCluster;
let database: Database;
const sockets: WsBot[] = [];

beforeAll(async () => {
  // Twenty rounds of soak make hundreds of bots per developer: past the default cap (200), a POST /api/bots is 409 TOO_MANY_BOTS.
  cluster = await TestCluster.create("kill_campaign", { FAUCET_COOLDOWN_MS: "0", MAX_BOTS_PER_DEVELOPER: "5000" });
  await Promise.all(NODES.map((id) => cluster.start(id)));
  database = await openDatabase({ databaseUrl: cluster.testDb.url, maxConnections: 2 });
}, 60_000);
afterAll(async () => {
  for (const ws of sockets) if (!ws.closed) ws.disconnect();
  await database.close();
  await cluster.close();
}, 30_000);

interface Dev {
  token: string;
  developerId: string;
  grants: number;
}

/** Requests to a node that may be killed under them: a failed connection is an outcome, not an error. */
async function attempt<T>(work: () => Promise<T>): Promise<T | "connection lost"> {
  try {
    return await work();
  } catch {
    return "connection lost";
  }
}

describe("kill campaign", () => {
  test(
    `${ROUNDS} rounds of SIGKILL of one of three nodes, takeover and restart keep every credit and every match`,
    async () => {
      console.log(`[kill] seed ${SEED} (replay with KILL_SEED=${SEED}), ${ROUNDS} rounds`);
      const rng = new Rng(SEED);
      const started = performance.now();
      const live = () => NODES.filter((id) => cluster.nodes.has(id));
      const anyNode = () => rng.pick(live());
      const api = (method: string, path: string, options: { body?: unknown; token?: string } = {}) => cluster.api(anyNode(), method, path, options);
      const devs: Dev[] = [];
      for (let i = 0; i < 3; i++) {
        const r = await api("POST", "/api/auth/register", { body: { email: `kill${i}-${SEED}@example.com`, password: "a long password" } });
        expect(r.status).toBe(201);
        devs.push({ token: r.body.token, developerId: r.body.developer.developerId, grants: 0 });
      }
      let botCounter = 0;
      const summary: string[] = [];

      /** After a takeover: every invariant, through the database and through the API of a live node. */
      const verify = async (label: string) => {
        const report = await auditLedger(database.db);
        expect({ label, problems: report.problems }).toEqual({ label, problems: [] });
        expect({ label, problems: await perDeveloperProblems(database.db) }).toEqual({ label, problems: [] });
        expect({ label, problems: await matchProblems(database.db) }).toEqual({ label, problems: [] });
        const books = new Map((await developerBooks(database.db)).map((b) => [b.id, b]));
        for (const dev of devs) expect(books.get(dev.developerId)!.grantCount).toBe(dev.grants);
        // Open seats only at tables still playing or waiting; no match is ever aborted by a node's death.
        const stray = await rowsOf<{ id: string; status: string }>(
          database.db,
          sql`select s.seq::text as id, t.status from seats s join tables t on t.id = s.table_id where s.status = 'open' and t.status not in ('waiting', 'running')`,
        );
        expect({ label, stray }).toEqual({ label, stray: [] });
        const aborted = await rowsOf<{ id: string }>(database.db, sql`select id from matches where status = 'aborted'`);
        expect({ label, aborted }).toEqual({ label, aborted: [] });
        // Completed ones are consistent through the API too: final chips sum to the buy-ins.
        const listed = await api("GET", "/api/matches?limit=200");
        expect(listed.status).toBe(200);
        for (const match of listed.body) {
          const total = match.players.reduce((s: number, p: any) => s + p.finalChips, 0);
          expect(total).toBe(match.config.buyIn * match.players.length);
          expect(match.players.reduce((s: number, p: any) => s + p.profit, 0)).toBe(0);
        }
        return { completed: listed.body.length, report };
      };

      const claimAll = async () => {
        for (const dev of devs) {
          const r = await api("POST", "/api/me/balance/faucet", { token: dev.token });
          expect(r.status).toBe(200);
          dev.grants += 1;
        }
      };
      const newBot = async (dev: Dev, strategy?: string) => {
        const r = await api("POST", "/api/bots", { token: dev.token, body: strategy ? { name: `k${++botCounter}`, strategy } : { name: `k${++botCounter}` } });
        expect({ status: r.status, error: r.body?.error?.code ?? null }).toEqual({ status: 201, error: null });
        return r.body as { botId: string; apiKey: string };
      };
      /** A table is hosted by the node that created it: `node` chooses it. */
      const newTable = async (dev: Dev, config: Record<string, number>, node = anyNode()) => {
        const r = await cluster.api(node, "POST", "/api/tables", { token: dev.token, body: config });
        expect(r.status).toBe(201);
        return r.body.tableId as string;
      };
      const join = (dev: Dev, tableId: string, botId: string) => api("POST", `/api/tables/${tableId}/join`, { token: dev.token, body: { botId } });
      const policy = (request: any) => {
        if (request.legalActions.includes("raise") && rng.chance(0.2)) return { action: "raise", amount: request.minRaiseTo };
        return { action: request.legalActions.includes("check") ? "check" : "call" };
      };
      const remoteBot = async (dev: Dev, node = anyNode()) => {
        const bot = await newBot(dev);
        const ws = await new WsBot(cluster.url(node), bot.apiKey, policy).connect();
        sockets.push(ws);
        return { ...bot, ws };
      };
      const hostOf = async (tableId: string) => (await rowsOf<{ host_id: string }>(database.db, sql`select host_id from tables where id = ${tableId}`))[0].host_id;
      /** Long matches of this round: every seat leaves (through random nodes) and the match completes. */
      const endMatches = async (long: Array<{ tableId: string; seats: Array<[Dev, string]> }>) => {
        for (const { tableId, seats } of long) {
          // Once all but one have left, the match ends at its next hand boundary: the last leave may find it finished (409).
          // Right after a takeover the new host may still be resuming the table: 503 says retry (Retry-After).
          for (const [dev, botId] of seats) {
            let status = 503;
            for (let attempt = 0; attempt < 50 && status === 503; attempt++) {
              if (attempt > 0) await Bun.sleep(200);
              status = (await api("POST", `/api/tables/${tableId}/leave`, { token: dev.token, body: { botId } })).status;
            }
            expect([200, 409]).toContain(status);
          }
        }
        for (const { tableId } of long) {
          await until(async () => (await api("GET", `/api/tables/${tableId}`)).body.status === "finished", 60_000, `table ${tableId} to finish`);
        }
      };

      for (let round = 0; round < ROUNDS; round++) {
        const mode = MODES[round % 3];
        await claimAll();
        const [a, b, c] = devs;
        let note = "";
        let background: Promise<unknown> = Promise.resolve();
        let stop = false;
        let victim = anyNode();
        const long: Array<{ tableId: string; seats: Array<[Dev, string]> }> = [];
        let remote: { tableId: string; matchId: string; apiKey: string; handNumber: number; ws: WsBot } | null = null;

        if (mode === "mid-hand") {
          for (let t = 0; t < 2; t++) {
            // Deep stacks and callers only (pots stay at the blinds): these matches outlive the takeover; they end when their players leave.
            const tableId = await newTable(a, { maxPlayers: 3, maxHands: 100_000, buyIn: 3_000, smallBlind: 1, bigBlind: 2 }, t === 0 ? victim : anyNode());
            const seats: Array<[Dev, string]> = [];
            for (const dev of [a, b, c]) {
              const botId = (await newBot(dev, "caller")).botId;
              expect((await join(dev, tableId, botId)).status).toBe(201);
              seats.push([dev, botId]);
            }
            long.push({ tableId, seats });
          }
          // The remote bot's socket is on a node that survives; its table is on the victim.
          const bot = await remoteBot(b, rng.pick(live().filter((id) => id !== victim)));
          const tableId = await newTable(b, { maxPlayers: 2, maxHands: 100_000, buyIn: 1_000, smallBlind: 1, bigBlind: 2 }, victim);
          const house = (await newBot(c, "caller")).botId;
          expect((await join(b, tableId, bot.botId)).status).toBe(201);
          expect((await join(c, tableId, house)).status).toBe(201);
          long.push({ tableId, seats: [[b, bot.botId], [c, house]] });
          const hands = rng.int(2, 6);
          const seen = await bot.ws.next((m) => m.type === "hand_ended" && m.handNumber >= hands, 30_000);
          remote = { tableId, matchId: (await api("GET", `/api/tables/${tableId}`)).body.matchId, apiKey: bot.apiKey, handNumber: seen.handNumber, ws: bot.ws };
          await Bun.sleep(rng.int(0, 60));
          note = `after the remote bot saw hand ${hands} end`;
        } else if (mode === "match-end") {
          // Short matches, one after another, so a kill lands near a match-end write.
          const bot = await remoteBot(a);
          let ended = 0;
          const loop = async (dev: Dev, withRemote: boolean) => {
            while (!stop) {
              const result = await attempt(async () => {
                const tableId = await newTable(dev, { maxPlayers: 2, maxHands: rng.int(1, 3), buyIn: 100 });
                const first = withRemote ? bot.botId : (await newBot(dev, "raiser")).botId;
                const since = bot.ws.messages.length;
                await join(dev, tableId, first);
                await join(dev === a ? b : a, tableId, (await newBot(dev === a ? b : a, "caller")).botId);
                if (withRemote) await bot.ws.next((m) => m.type === "match_ended" && m.tableId === tableId, 10_000, since);
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
          // A long match running on the victim, and 10 tables of 3 seats bought into by a burst of 30 joins.
          const running = await newTable(c, { maxPlayers: 2, maxHands: 100_000, buyIn: 3_000, smallBlind: 1, bigBlind: 2 }, victim);
          const seats: Array<[Dev, string]> = [];
          for (const dev of [a, b]) {
            const botId = (await newBot(dev, "caller")).botId;
            expect((await join(dev, running, botId)).status).toBe(201);
            seats.push([dev, botId]);
          }
          long.push({ tableId: running, seats });
          const tableIds: string[] = [];
          for (let t = 0; t < 10; t++) tableIds.push(await newTable(a, { maxPlayers: 3, maxHands: rng.int(5, 50), buyIn: 100 }));
          const burstSeats: Array<[Dev, string, string]> = [];
          for (const tableId of tableIds) for (const dev of [a, b, c]) burstSeats.push([dev, tableId, (await newBot(dev, rng.pick(["random", "caller"]))).botId]);
          const results = new Map<string, number>();
          const burst = burstSeats.map(([dev, tableId, botId]) =>
            attempt(() => join(dev, tableId, botId)).then((r) => {
              const key = r === "connection lost" ? r : String(r.status);
              results.set(key, (results.get(key) ?? 0) + 1);
            }),
          );
          background = Promise.all(burst);
          const delay = rng.int(0, 400);
          await Bun.sleep(delay);
          note = `${delay} ms into a burst of ${burstSeats.length} joins (answered before the kill: ${JSON.stringify(Object.fromEntries(results))})`;
          background = background.then(() => {
            note += `; all answers: ${JSON.stringify(Object.fromEntries(results))}`;
            // A join caught by the kill is answered 503 (retry) by a live node, never 500.
            expect([...results.keys()].filter((status) => status.startsWith("5") && status !== "503")).toEqual([]);
          });
        }

        const dead = cluster.nodes.get(victim)!;
        cluster.kill(victim);
        const killedAt = performance.now();
        await dead.child.exited;
        const [interrupted] = await rowsOf<{ running: number; waiting: number }>(
          database.db,
          sql`select count(*) filter (where status = 'running')::int as running, count(*) filter (where status = 'waiting')::int as waiting
              from tables where host_id = ${victim} and status in ('waiting', 'running')`,
        );
        // The live nodes claim every table of the dead one (its lease expires), without its restart.
        const takenOver = until(
          async () => (await rowsOf(database.db, sql`select 1 from tables where host_id = ${victim} and status in ('waiting', 'running')`)).length === 0,
          30_000,
          `the tables of ${victim} to be taken over`,
        ).then(() => performance.now());
        stop = true;
        await background;

        // Killed: the committed state balances already.
        expect((await auditLedger(database.db)).problems).toEqual([]);
        const takenAt = await takenOver;
        const takeover = interrupted.running + interrupted.waiting > 0 ? `seen ${((takenAt - killedAt) / 1000).toFixed(1)} s after the kill` : "nothing to take over";
        if (remote) {
          // The remote bot's match resumes on a live node, same matchId, and its bot plays on.
          const view = (await api("GET", `/api/tables/${remote.tableId}`)).body;
          expect({ status: view.status, matchId: view.matchId }).toEqual({ status: "running", matchId: remote.matchId });
          expect(await hostOf(remote.tableId)).not.toBe(victim);
          await remote.ws.next((m) => m.type === "hand_ended" && m.tableId === remote!.tableId && m.handNumber > remote!.handNumber + 1, 30_000);
          // No deck it saw was dealt again: no hand number reached it twice across the kill.
          const seen = witness([{ name: "remote", messages: remote.ws.messages }], remote.matchId);
          expect({ round, redealt: redealt(seen) }).toEqual({ round, redealt: [] });
        }
        const checked = await verify(`round ${round}`);
        await endMatches(long);
        const ended = await verify(`round ${round}, after its long matches ended`);
        // The API's consistency check above walked the completed matches: this round's long ones at least.
        expect({ round, completed: ended.completed >= long.length }).toEqual({ round, completed: true });
        for (const ws of sockets) if (!ws.closed) ws.disconnect();
        await cluster.start(victim);
        const line =
          `[kill] round ${round} (${mode}): killed ${victim} ${note}; its ${interrupted.running} running and ${interrupted.waiting} waiting table(s) ` +
          `taken over (${takeover}); audit clean: ${checked.report.faucetGrants} granted = ${checked.report.totalBalances} balances + ${checked.report.openSeatChips} in seats; ` +
          `${long.length} long match(es) resumed and completed; ${ended.completed} completed matches so far`;
        console.log(line);
        summary.push(line);
      }

      // The CLI agrees, and a clean stop of every node keeps the books.
      const cli = await runAuditCli(cluster.testDb.url);
      expect(cli.exitCode).toBe(0);
      expect(cli.stdout).toContain("audit OK");
      for (const id of NODES) expect(await cluster.stop(id)).toBe(0);
      expect((await auditLedger(database.db)).problems).toEqual([]);
      expect(await perDeveloperProblems(database.db)).toEqual([]);
      console.log(`[kill] seed ${SEED}: ${ROUNDS} rounds in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    },
    { timeout: Math.max(180_000, ROUNDS * 60_000) },
  );
});
