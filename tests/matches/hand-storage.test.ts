/**
 * Hands in chunks (issue 35): what the API serves is the same before and after the conversion of
 * hands stored as JSON; the conversion survives a kill -9 (a real child process) and goes on where
 * it stopped; a hand that does not come back identical keeps its JSON; deck secrets never rest in
 * plain form while a match runs.
 */
import { selectMatches } from "../../src/modules/match-host/match-rows";
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { sql } from "drizzle-orm";
import { queryRows } from "../../src/db";
import { ROOT } from "../support/process";
import { useHarness } from "../support/app";
import { restoreAsJson } from "../support/stored-hands";
import { until } from "../support/nodes";
import { loadConfig } from "../../src/config";
import { TableRuntime } from "../../src/modules/tables/runtime";
import { DeckSeal } from "../../src/modules/match-host/deck-seal";
import { finishMatches } from "../../src/modules/match-host/match-finish";
import { emptyBatch } from "../../src/modules/match-host/persistence";
import { archivePartition, monthOfMatchId, restorePartition } from "../../src/modules/match-host/hand-archive";
import { Matches } from "../../src/modules/matches/service";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { drizzle } from "drizzle-orm/postgres-js";
import type { Db } from "../../src/db";
import * as schema from "../../src/db/schema";
import { newId } from "../../src/lib/ids";
import { migrateToLatest, withDatabaseMigratedUpTo } from "../support/migrations";
import { convertLegacyHands } from "../../src/modules/match-host/hand-conversion";
import { recordedHands } from "../../src/modules/match-host/hand-store";
import { decodeRecorded, matchDealOf } from "../../src/modules/match-host/recorded-hands";
import { deckCommitment, fairDeck } from "../../src/poker/fair-deck";
import { applyActionInPlace, startHand } from "../../src/poker/hand";
import { storedHandOf, type StoredHand } from "../../src/poker/hand-record";
import { nextButton, seatsInPlay, stacksAfterHand } from "../../src/poker/match";

setDefaultTimeout(180_000);

const h = useHarness("hand_storage");

/** Every page of a match's hands as the API serves it: JSON (anonymous and owner) and PHH. */
async function served(matchId: string, token: string) {
  const json: string[] = [];
  for (const auth of [undefined, token]) {
    for (let after = 0; ; ) {
      const page = await h.call("GET", `/api/matches/${matchId}/hands?limit=150&after=${after}`, { token: auth });
      expect(page.status).toBe(200);
      json.push(JSON.stringify(page.body));
      if (page.body.hands.length < 150) break;
      after = page.body.hands.at(-1).handNumber;
    }
  }
  const phh = await h.app.handle(new Request(`http://localhost/api/matches/${matchId}/hands?format=phh`));
  const ownPhh = await h.app.handle(new Request(`http://localhost/api/matches/${matchId}/hands?format=phh&limit=77&after=33`, { headers: { authorization: `Bearer ${token}` } }));
  return { json, phh: await phh.text(), ownPhh: await ownPhh.text() };
}

async function playMatch(token: string, body: Record<string, unknown>, strategies: string[]): Promise<string> {
  const created = await h.call("POST", "/api/tables", { token, body });
  if (created.status !== 201) throw new Error(`POST /api/tables ${JSON.stringify(body)}: ${created.status} ${JSON.stringify(created.body)}`);
  const table = created.body;
  for (const [i, strategy] of strategies.entries()) {
    const bot = (await h.call("POST", "/api/bots", { token, body: { name: `${table.tableId.slice(-6)}-${i}`, strategy } })).body;
    expect((await h.call("POST", `/api/tables/${table.tableId}/join`, { token, body: { botId: bot.botId } })).status).toBe(201);
  }
  await h.app.services.host.settled();
  const view = (await h.call("GET", `/api/tables/${table.tableId}`)).body;
  expect(view.status).toBe("finished");
  return view.matchId;
}

const legacyRows = async (matchIds: string[]) =>
  Number((await queryRows<{ n: number }>(h.database.db, sql`select count(*)::int as n from hands_legacy where match_id = any(${sql.param(matchIds)}::text[])`))[0].n);

/** `bun run hands:convert` as a child process; resolves with its output once it has printed `line` (or exited). */
function convertProcess(env: Record<string, string>) {
  const child = Bun.spawn(["bun", "src/hands-convert.ts"], { cwd: ROOT, env: { ...process.env, DATABASE_URL: h.config.databaseUrl!, ...env }, stdout: "pipe", stderr: "pipe" });
  let out = "";
  const reading = (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of child.stdout as ReadableStream<Uint8Array>) out += decoder.decode(chunk);
  })();
  return { child, output: () => out, reading };
}

describe("hand storage", () => {
  test("JSON and PHH are identical before, during and after converting JSON rows into chunks; the conversion survives kill -9", async () => {
    const dev = await h.fundedDeveloper();
    const matchIds = [
      await playMatch(dev.token, { maxPlayers: 2, maxHands: 160, buyIn: 2000, seed: "storage-seeded" }, ["caller", "tight"]),
      await playMatch(dev.token, { maxPlayers: 6, maxHands: 120, buyIn: 1000 }, ["random", "caller", "tight", "raiser", "random", "caller"]),
      await playMatch(dev.token, { maxPlayers: 2, maxHands: 40, buyIn: 1000, duplicate: true }, ["random", "tight"]),
      await playMatch(dev.token, { maxPlayers: 3, maxHands: 60, buyIn: 500 }, ["raiser", "random", "caller"]),
      await playMatch(dev.token, { maxPlayers: 2, maxHands: 30, buyIn: 500, seed: "7" }, ["random", "raiser"]),
    ];
    const before = await Promise.all(matchIds.map((id) => served(id, dev.token)));
    expect(await legacyRows(matchIds)).toBe(0);

    // The database as a version before chunks left it: every hand a JSON row, no seats recorded with the match.
    for (const id of matchIds) await restoreAsJson(h.config.databaseUrl!, id);
    await h.database.db.execute(sql`update matches set seat_bots = null where id = any(${sql.param(matchIds)}::text[])`);
    const handCount = await legacyRows(matchIds);
    // Every hand the five matches played is a JSON row now (how many: the unseeded matches' deals
    // decide, so the count is read, not guessed), each match holding some: the batches below have
    // more than one match to convert.
    const played = await queryRows<{ hands: number; matches: number }>(h.database.db, sql`select sum(hands_played)::int as hands, count(*) filter (where hands_played > 0)::int as matches from matches where id = any(${sql.param(matchIds)}::text[])`);
    expect(played[0]).toEqual({ hands: handCount, matches: matchIds.length });
    expect(await Promise.all(matchIds.map((id) => served(id, dev.token)))).toEqual(before);

    // One match per batch, a pause after each: killed (SIGKILL) after the first batch committed.
    const first = convertProcess({ HANDS_CONVERSION_BATCH: "1", HANDS_CONVERSION_PAUSE_MS: "60000" });
    await until(async () => first.output().includes("batch 1 committed"), 60_000, "the first batch");
    first.child.kill(9);
    expect(await first.child.exited).not.toBe(0);
    const afterKill = await legacyRows(matchIds);
    expect(afterKill).toBeGreaterThan(0);
    expect(afterKill).toBeLessThan(handCount);
    // Served the same while half converted: chunks and JSON rows side by side.
    expect(await Promise.all(matchIds.map((id) => served(id, dev.token)))).toEqual(before);

    // Killed again at once (mid-batch or not: a batch is one transaction), then run to the end.
    const second = convertProcess({ HANDS_CONVERSION_BATCH: "1" });
    second.child.kill(9);
    await second.child.exited;
    const last = convertProcess({ HANDS_CONVERSION_BATCH: "1" });
    expect(await last.child.exited).toBe(0);
    await last.reading;
    expect(last.output()).toMatch(/hands converted: \d+ hands of \d+ match\(es\); 0 match\(es\) keep their JSON rows/);
    expect(await legacyRows(matchIds)).toBe(0);
    expect(await Promise.all(matchIds.map((id) => served(id, dev.token)))).toEqual(before);
    // The seats are recorded with each match again, read off its hands.
    const rows = await queryRows<{ seat_bots: string[] | null }>(h.database.db, sql`select seat_bots from matches where id = any(${sql.param(matchIds)}::text[])`);
    expect(rows.every((row) => row.seat_bots !== null)).toBe(true);
  });

  test("a hand that does not decode back to its JSON keeps its JSON rows (the whole match), and is served from them", async () => {
    const dev = await h.fundedDeveloper();
    const matchId = await playMatch(dev.token, { maxPlayers: 2, maxHands: 50, buyIn: 1000 }, ["caller", "caller"]);
    let changed = 0;
    await restoreAsJson(h.config.databaseUrl!, matchId, (hand) => {
      if (hand.handNumber !== 20) return;
      hand.pots[0].amount += 1;
      changed++;
    });
    expect(changed).toBe(1);
    const before = await served(matchId, dev.token);
    const run = convertProcess({});
    expect(await run.child.exited).toBe(0);
    await run.reading;
    expect(run.output()).toContain(`match ${matchId} keeps its JSON rows (hand 20 does not decode to its JSON)`);
    expect(await legacyRows([matchId])).toBe(50);
    expect(await served(matchId, dev.token)).toEqual(before);
  });

  test("a running match's deck secret is stored only sealed (bound to its match and key); its end reveals it and drops the sealed copy", async () => {
    const dev = await h.fundedDeveloper();
    const tableRow = (await h.call("POST", "/api/tables", { token: dev.token, body: { maxPlayers: 2, buyIn: 1000 } })).body;
    const table = new TableRuntime(tableRow.tableId, dev.developerId, new Date(h.clock.now()), tableRow.config);
    table.beginMatch("m_sealed_test", h.clock.now());
    const secret = "ab".repeat(32);
    table.commitToDeck(secret, deckCommitment(secret));
    await h.app.services.host.journal.started(table);
    const rowOf = async () =>
      (await queryRows<{ deck_secret: string | null; deck_secret_sealed: string | null }>(h.database.db, sql`select deck_secret, deck_secret_sealed from matches where id = 'm_sealed_test'`))[0];
    const running = await rowOf();
    expect(running.deck_secret).toBeNull();
    expect(running.deck_secret_sealed).toMatch(/^v1:[A-Za-z0-9+/=]+$/);
    expect(running.deck_secret_sealed).not.toContain(secret);
    const seal = new DeckSeal(h.database.db, undefined);
    expect(await seal.unseal("m_sealed_test", running.deck_secret_sealed!)).toBe(secret);
    await expect(seal.unseal("m_other", running.deck_secret_sealed!)).rejects.toThrow(/does not unseal/);
    await expect(new DeckSeal(h.database.db, "cd".repeat(32)).unseal("m_sealed_test", running.deck_secret_sealed!)).rejects.toThrow(/does not unseal/);
    await finishMatches(h.database.db, [
      {
        outcome: { matchId: "m_sealed_test", tableId: table.tableId, handsPlayed: 0, voidedHands: [], deckSecret: secret, startedAt: new Date(0), endedAt: new Date(1), players: [], finalClosures: [], ranked: false, rated: false },
        lastBatch: emptyBatch(table.tableId, "m_sealed_test"),
      },
    ]);
    expect(await rowOf()).toEqual({ deck_secret: secret, deck_secret_sealed: null });
  });
});

describe("each node's start", () => {
  test("seals the plain deck secrets an older version left to unfinished matches, makes the coming months' partitions, and converts JSON rows in the background", async () => {
    const dev = await h.fundedDeveloper();
    const matchId = await playMatch(dev.token, { maxPlayers: 2, maxHands: 40, buyIn: 1000 }, ["caller", "tight"]);
    await restoreAsJson(h.config.databaseUrl!, matchId);
    // An aborted match of an older version: its secret in plain form, never to be revealed.
    const tableRow = (await h.call("POST", "/api/tables", { token: dev.token, body: { maxPlayers: 2 } })).body;
    await h.database.db.execute(sql`insert into matches (id, table_id, status, config, started_at, deck_commitment, deck_secret)
      values ('m_old_aborted', ${tableRow.tableId}, 'aborted', ${JSON.stringify(tableRow.config)}::jsonb, now(), ${deckCommitment("cd".repeat(32))}, ${"cd".repeat(32)})`);
    const maintenance = h.app.services.handMaintenance;
    maintenance.start();
    await maintenance.settled();
    await maintenance.stop();
    const [aborted] = await queryRows<{ deck_secret: string | null; deck_secret_sealed: string | null }>(h.database.db, sql`select deck_secret, deck_secret_sealed from matches where id = 'm_old_aborted'`);
    expect(aborted.deck_secret).toBeNull();
    expect(await new DeckSeal(h.database.db, undefined).unseal("m_old_aborted", aborted.deck_secret_sealed!)).toBe("cd".repeat(32));
    expect(await legacyRows([matchId])).toBe(0);
    const next = new Date(Date.UTC(new Date(h.clock.now()).getUTCFullYear(), new Date(h.clock.now()).getUTCMonth() + 2, 1)).toISOString().slice(0, 7).replace("-", "_");
    expect((await queryRows<{ made: boolean }>(h.database.db, sql`select to_regclass(${`hand_chunks_${next}`}) is not null as made`))[0].made).toBe(true);
  });
});

describe("DECK_SEAL_KEY", () => {
  test("required in production; 32 bytes as hex or base64, anything else refused at start", () => {
    const base = { JWT_SECRET: "x" };
    expect(() => loadConfig({ ...base, NODE_ENV: "production" })).toThrow(/DECK_SEAL_KEY is required/);
    expect(loadConfig({ ...base, NODE_ENV: "production", DECK_SEAL_KEY: "0f".repeat(32) }).deckSealKey).toBe("0f".repeat(32));
    expect(loadConfig({ ...base, DECK_SEAL_KEY: Buffer.alloc(32, 7).toString("base64") }).deckSealKey).toBeDefined();
    for (const bad of ["0f".repeat(31), "not a key", Buffer.alloc(16).toString("base64")]) expect(() => loadConfig({ ...base, DECK_SEAL_KEY: bad })).toThrow(/DECK_SEAL_KEY must be 32 bytes/);
    expect(loadConfig({}).deckSealKey).toBeUndefined();
  });
});

describe("archive of a month", () => {
  test("a month's partition goes to zstd files, read back and compared, then dropped; the hands are still served from the files; a restore puts them back", async () => {
    const dev = await h.fundedDeveloper();
    const matchId = await playMatch(dev.token, { maxPlayers: 3, maxHands: 80, buyIn: 1000 }, ["caller", "tight", "random"]);
    const month = monthOfMatchId(matchId)!;
    expect(month).toBe(new Date(h.clock.now()).toISOString().slice(0, 7).replace("-", "_"));
    const dir = mkdtempSync(join(tmpdir(), "hand-archive-"));
    try {
      // The test clock's month may have no partition yet: its rows are in the default one, and move.
      await h.database.db.execute(sql`select ensure_hand_chunks_partition(${`${month.replace("_", "-")}-01`}::date)`);
      const page = (matches: Matches) => matches.handsJson(matchId, { after: 10, limit: 500 }, dev.developerId).then((r) => JSON.stringify(r.body));
      const phh = async (matches: Matches) => new Response((await matches.handsPhh(matchId, { after: 0, limit: 10_000 })).stream).text();
      const live = new Matches(h.database.db, dir);
      const [beforeJson, beforePhh] = [await page(live), await phh(live)];
      const archived = await archivePartition(h.database.db, dir, month);
      expect(archived.hands).toBeGreaterThanOrEqual(Number((await h.call("GET", `/api/matches/${matchId}`)).body.handsPlayed));
      expect((await queryRows<{ gone: boolean }>(h.database.db, sql`select to_regclass(${`hand_chunks_${month}`}) is null as gone`))[0].gone).toBe(true);
      expect(await page(live)).toBe(beforeJson);
      expect(await phh(live)).toBe(beforePhh);
      // Without the archive directory, the hands are simply not there.
      expect(JSON.parse(await page(new Matches(h.database.db))).hands).toEqual([]);
      const restored = await restorePartition(h.database.db, dir, month);
      expect(restored.hands).toBe(archived.hands);
      expect(await page(new Matches(h.database.db))).toBe(beforeJson);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("migration 0017 on a database that already has hands", () => {
  test("the JSON rows stay readable (hands_legacy, the view `hands`), their month gets a partition, and they convert into chunks that decode to them", async () => {
    // The migrations up to 0014: the schema before compact hands.
    await withDatabaseMigratedUpTo("migration_0017", "0014_z", async (client) => {
      // A completed match of 2025-03 with its hands as JSON, as the service wrote them then.
      const secret = "5e".repeat(32);
      const config = { buyIn: 1000, smallBlind: 5, bigBlind: 10, maxPlayers: 2, maxHands: 30, actionTimeoutMs: 2000 };
      const matchId = newId("m", Date.UTC(2025, 2, 14));
      const hands = playedHands(secret, 30);
      await client`insert into developers (id, email, password_hash, created_at) values ('dev_old', 'old@example.com', 'x', now())`;
      await client`insert into tables (id, created_by, config, status, host_id, match_id, created_at) values ('tbl_old', 'dev_old', ${JSON.stringify(config)}::jsonb, 'finished', 'local', ${matchId}, now())`;
      await client`insert into matches (id, table_id, status, config, hands_played, started_at, ended_at, deck_commitment, deck_secret)
        values (${matchId}, 'tbl_old', 'completed', ${JSON.stringify(config)}::jsonb, ${hands.length}, '2025-03-14', '2025-03-14', ${deckCommitment(secret)}, ${secret})`;
      for (const hand of hands) await client`insert into hands (match_id, number, history, created_at) values (${matchId}, ${hand.handNumber}, ${JSON.stringify(hand)}::json, now())`;

      await migrateToLatest(client);
      expect((await client`select number from hands where match_id = ${matchId} order by number`).map((r) => r.number)).toEqual(hands.map((hand) => hand.handNumber));
      expect((await client`select to_regclass('hand_chunks_2025_03') is not null as made`)[0].made).toBe(true);
      const db = drizzle(client, { schema }) as unknown as Db;
      const served = async () => decodeRecorded(matchDealOf((await selectMatches(db))[0], secret), await recordedHands(db, matchId));
      expect(JSON.stringify(await served())).toBe(JSON.stringify(hands));

      const pass = await convertLegacyHands(db, new DeckSeal(db, undefined), { pauseMs: 0 });
      expect(pass).toMatchObject({ converted: 1, hands: hands.length, kept: 0 });
      expect((await client`select count(*)::int as n from hands_legacy`)[0].n).toBe(0);
      expect((await client`select tableoid::regclass::text as part from hand_chunks where match_id = ${matchId}`).map((r) => r.part)).toEqual(["hand_chunks_2025_03"]);
      expect(JSON.stringify(await served())).toBe(JSON.stringify(hands));
    });
  });
});

/** Hands as the match host records them: heads-up callers dealt from the secret's decks. */
function playedHands(secret: string, count: number): StoredHand[] {
  const hands: StoredHand[] = [];
  let stacks = [1000, 1000];
  let button: number | null = null;
  for (let n = 1; n <= count; n++) {
    button = nextButton(stacks, button);
    const state = startHand({ seats: seatsInPlay(stacks), buttonSeatIndex: button, smallBlind: 5, bigBlind: 10, deck: fairDeck(secret, n, 12) });
    while (!state.finished) applyActionInPlace(state, { type: "call" });
    stacks = stacksAfterHand(stacks, state.seats, state.result!.stacks);
    hands.push(storedHandOf(n, state, (p) => (state.seats[p] === 0 ? "bot_left" : "bot_right")));
  }
  return hands;
}
