import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { eq, sql } from "drizzle-orm";
import { queryRows } from "../../src/db";
import { auditLedger } from "../../src/modules/credits/audit";
import { join } from "node:path";
import { main } from "../../src/cli/index";
import { ROOT } from "../support/process";
import { until } from "../support/nodes";
import { fixtureSource, uploadOverHttp } from "../hosted/duplicate-support";
import { endedMatches } from "../../src/modules/competitions/round-robin";
import { tables } from "../../src/db/schema";
import { newId } from "../../src/lib/ids";
import { createBot, registerWithCredits, startTestServer, type TestServer } from "../support/server";
import { tableConfigOf } from "../../src/db/table-config";

setDefaultTimeout(180_000);

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer("round_robin", { COMPETITIONS_TICK_MS: "50" });
});
afterAll(() => server.close());

const STRATEGIES = ["caller", "raiser", "tight", "random"];
const SETTINGS = { matchesPerPair: 2, handsPerMatch: 20, buyIn: 400, smallBlind: 5, bigBlind: 10 };
const balanceOf = async (token: string) => (await server.api("GET", "/api/me/balance", { token })).body.balance as number;

async function expectAuditClean() {
  const report = await auditLedger(server.database.db);
  expect(report.problems).toEqual([]);
  expect(report.ok).toBe(true);
}

/** A round robin of 4 bots (4 developers), 2 matches per pair, started by its creator and played to the end. */
async function playRoundRobin(division: "open" | "hosted") {
  const creator = await registerWithCredits(server, `creator-${division}`);
  const created = await server.api("POST", "/api/tournaments", { token: creator.token, body: { kind: "round-robin", division, ...SETTINGS } });
  expect(created.status).toBe(201);
  expect(created.body).toMatchObject({ kind: "round-robin", status: "registering", division, ...SETTINGS, matches: [], standings: [] });
  const id = created.body.tournamentId;
  const players = await Promise.all(
    STRATEGIES.map(async (strategy, i) => {
      const dev = await registerWithCredits(server, `${division}${i}`);
      const botId = (await createBot(server, dev.token, `${division}-${strategy}`, strategy)).botId;
      return { ...dev, botId, start: await balanceOf(dev.token) };
    }),
  );
  for (const p of players) expect((await server.api("POST", `/api/tournaments/${id}/entries`, { token: p.token, body: { botId: p.botId } })).status).toBe(201);
  expect((await server.api("POST", `/api/tournaments/${id}/start`, { token: players[0].token })).status).toBe(403);
  const started = await server.api("POST", `/api/tournaments/${id}/start`, { token: creator.token });
  expect(started.status).toBe(200);
  expect(started.body.status).toBe("running");
  expect(started.body.rounds).toBe(6);
  const finished = await until(async () => {
    const read = (await server.api("GET", `/api/tournaments/${id}`)).body;
    return read.status === "finished" ? read : null;
  }, 170_000, `the ${division} round robin to finish`);
  return { id, players, finished };
}

/** 12 matches in 6 rounds of 2 disjoint pairs, every pair twice (seats swapped). */
function expectRoundsOfDisjointPairs(matches: any[], botIds: string[]) {
  expect(matches.length).toBe(12);
  expect(matches.every((m) => m.status === "played" && m.matchId !== null)).toBe(true);
  const rounds = new Map<number, any[]>();
  for (const m of matches) rounds.set(m.round, [...(rounds.get(m.round) ?? []), m]);
  expect([...rounds.keys()].sort()).toEqual([1, 2, 3, 4, 5, 6]);
  for (const [, inRound] of rounds) {
    expect(inRound.length).toBe(2);
    expect(new Set(inRound.flatMap((m) => m.players)).size).toBe(4);
  }
  const pairs = new Map<string, string[][]>();
  for (const m of matches) {
    const key = [...m.players].sort().join("|");
    pairs.set(key, [...(pairs.get(key) ?? []), m.players]);
  }
  expect(pairs.size).toBe(6);
  for (const [, seatings] of pairs) {
    expect(seatings.length).toBe(2);
    expect(seatings[0]).toEqual([seatings[1][1], seatings[1][0]]);
  }
  expect(new Set(matches.flatMap((m) => m.players)).size).toBe(botIds.length);
}

/** The crosstable and standings recomputed from the match records (both copies of a hosted pair together). */
async function expectResultsFromRecords(finished: any) {
  const perMatch: Array<{ players: string[]; profit: Map<string, number>; hands: number; perBotBb: Map<string, number> }> = [];
  for (const m of finished.matches) {
    const records = [m.matchId, ...(m.twinMatchId ? [m.twinMatchId] : [])].map(async (id) => (await server.api("GET", `/api/matches/${id}`)).body);
    const bodies = await Promise.all(records);
    const profit = new Map<string, number>(m.players.map((botId: string) => [botId, bodies.flatMap((b) => b.players).filter((p: any) => p.botId === botId).reduce((s: number, p: any) => s + p.profit, 0)]));
    const hands = bodies.reduce((s, b) => s + b.handsPlayed, 0);
    perMatch.push({ players: m.players, profit, hands, perBotBb: new Map([...profit].map(([b, v]) => [b, (100 * v) / SETTINGS.bigBlind / hands])) });
  }
  let checked = 0;
  for (const row of finished.standings) {
    const mine = perMatch.filter((m) => m.players.includes(row.botId));
    const points = mine.reduce((s, m) => s + (m.profit.get(row.botId)! > 0 ? 1 : m.profit.get(row.botId)! === 0 ? 0.5 : 0), 0);
    const profit = mine.reduce((s, m) => s + m.profit.get(row.botId)!, 0);
    const hands = mine.reduce((s, m) => s + m.hands, 0);
    expect({ botId: row.botId, points: row.points, matches: row.matches }).toEqual({ botId: row.botId, points, matches: 6 });
    expect(row.bbPer100).toBeCloseTo((100 * profit) / SETTINGS.bigBlind / hands, 1);
    expect(row.ci95[0]).toBeLessThanOrEqual(row.ci95[1]);
    checked += 1;
  }
  expect(checked).toBe(4);
  // Ranked by points, then bb/100; each rank says how sure it is over the next.
  for (let i = 1; i < finished.standings.length; i++) {
    const [above, below] = [finished.standings[i - 1], finished.standings[i]];
    expect(above.points > below.points || (above.points === below.points && above.bbPer100 >= below.bbPer100)).toBe(true);
    expect(above.overNext).toBeGreaterThanOrEqual(0);
    expect(above.overNext).toBeLessThanOrEqual(1);
  }
  expect(finished.standings[3].overNext).toBeNull();
  expect(finished.standings.map((s: any) => s.rank)).toEqual([1, 2, 3, 4]);
  // The crosstable: every ordered pair, its two matches, bb/100 from the records.
  expect(finished.crosstable.length).toBe(12);
  for (const cell of finished.crosstable) {
    const between = perMatch.filter((m) => m.players.includes(cell.botId) && m.players.includes(cell.opponentBotId));
    expect(cell.matches).toBe(2);
    const profit = between.reduce((s, m) => s + m.profit.get(cell.botId)!, 0);
    const hands = between.reduce((s, m) => s + m.hands, 0);
    expect(cell.bbPer100).toBeCloseTo((100 * profit) / SETTINGS.bigBlind / hands, 1);
  }
}

async function expectMoney(players: any[], finished: any) {
  for (const p of players) {
    const mine = finished.matches.filter((m: any) => m.players.includes(p.botId));
    let net = 0;
    for (const m of mine) for (const id of [m.matchId, ...(m.twinMatchId ? [m.twinMatchId] : [])]) net += (await server.api("GET", `/api/matches/${id}`)).body.players.find((x: any) => x.botId === p.botId).profit;
    expect(await balanceOf(p.token)).toBe(p.start + net);
  }
  await expectAuditClean();
}

const fairnessOf = async (matchId: string) => (await server.api("GET", `/api/matches/${matchId}/fairness`)).body;

describe("round robin", () => {
  test("open division, 4 bots × 2 matches per pair: 12 plain matches in rounds of disjoint pairs, no two sharing decks", async () => {
    const { players, finished } = await playRoundRobin("open");
    expectRoundsOfDisjointPairs(finished.matches, players.map((p) => p.botId));
    expect(finished.matches.every((m: any) => m.twinMatchId === null)).toBe(true);
    const commitments = await Promise.all(finished.matches.map(async (m: any) => (await fairnessOf(m.matchId)).deckCommitment));
    expect(commitments.every((c) => /^[0-9a-f]{64}$/.test(c))).toBe(true);
    expect(new Set(commitments).size).toBe(12);
    await expectResultsFromRecords(finished);
    await expectMoney(players, finished);
  });

  test("hosted division: duplicate matches, one commitment per round shared by its matches, revealed only after the round's last match, no bot meeting the same decks twice", async () => {
    const { id, players, finished } = await playRoundRobin("hosted");
    expectRoundsOfDisjointPairs(finished.matches, players.map((p) => p.botId));
    expect(finished.matches.every((m: any) => m.twinMatchId !== null)).toBe(true);
    const byRound = new Map<number, string[]>();
    const seenBy = new Map<string, string[]>();
    for (const m of finished.matches) {
      const [copy1, copy2] = [await fairnessOf(m.matchId), await fairnessOf(m.twinMatchId)];
      expect(copy1.deckCommitment).toBe(copy2.deckCommitment);
      expect(copy1.deckSecret).toBe(copy2.deckSecret);
      byRound.set(m.round, [...(byRound.get(m.round) ?? []), copy1.deckCommitment]);
      for (const botId of m.players) seenBy.set(botId, [...(seenBy.get(botId) ?? []), copy1.deckCommitment]);
    }
    // One commitment per round, shared by its matches; a new one each round.
    for (const [, commitments] of byRound) expect(new Set(commitments).size).toBe(1);
    expect(new Set([...byRound.values()].map((c) => c[0])).size).toBe(6);
    // No bot meets the same decks in two matches.
    for (const [, commitments] of seenBy) expect(new Set(commitments).size).toBe(commitments.length);
    expect(seenBy.size).toBe(4);
    // No round's secret revealed before its last match ended.
    const rounds = await queryRows<{ round: number; ended_at: Date; last_match_end: Date }>(
      server.database.db,
      sql`select r.round, r.ended_at, max(m.ended_at) as last_match_end from tournament_rounds r
        join tournament_matches tm on tm.tournament_id = r.tournament_id and tm.round = r.round
        join tables t on t.id = tm.table_id or t.twin_id = tm.table_id
        join matches m on m.table_id = t.id
        where r.tournament_id = ${id} group by r.round, r.ended_at order by r.round`,
    );
    expect(rounds.length).toBe(6);
    for (const round of rounds) expect(new Date(round.ended_at).getTime()).toBeGreaterThanOrEqual(new Date(round.last_match_end).getTime());
    // The fairness record names the round; `cli verify` and the standalone script check every match of it.
    const sample = finished.matches.find((m: any) => m.round === 3);
    const record = await fairnessOf(sample.matchId);
    expect(record.round.round).toBe(3);
    expect(record.round.matchIds.length).toBe(4);
    let out = "";
    const code = await main(["verify", sample.matchId], { env: { POKER_SERVER: server.url, POKER_CONFIG: join(ROOT, "nonexistent-config.json") }, stdout: (t) => void (out += t), stderr: (t) => void (out += t), cwd: ROOT, isTTY: false });
    expect({ code, out }).toMatchObject({ code: 0 });
    expect(out).toContain("round 3 of");
    const script = Bun.spawn(["bun", join(ROOT, "docs/verify-deals.mjs"), server.url, sample.twinMatchId], { stdout: "pipe", stderr: "pipe" });
    const [scriptOut, scriptCode] = await Promise.all([new Response(script.stdout).text(), script.exited]);
    expect({ scriptCode, ok: scriptOut.startsWith("OK:") }).toEqual({ scriptCode: 0, ok: true });
    expect((await fairnessOf(finished.matches.find((m: any) => m.round === 1).matchId)).round.matchIds).not.toContain(sample.matchId);
    const sealedLeft = await queryRows<{ n: number }>(server.database.db, sql`select count(*)::int as n from tournament_rounds where tournament_id = ${id} and (deck_secret_sealed is not null or deck_secret is null)`);
    expect(sealedLeft[0].n).toBe(0);
    // Rated once per duplicate pair, once the round is revealed: one copy of each of the 12 pairs marked (or applied).
    const rated = await queryRows<{ n: number }>(
      server.database.db,
      sql`select count(*)::int as n from matches m join tables t on t.id = m.table_id where ${tableConfigOf("t")}->>'tournamentId' = ${id} and (m.rating_pending or m.rated_seq is not null)`,
    );
    expect(rated[0].n).toBe(12);
    await expectResultsFromRecords(finished);
    await expectMoney(players, finished);
  });

  test("a round's match has ended when its table has, and a duplicate pair's when both copies have (copy 2 may finish after copy 1)", async () => {
    const creator = await registerWithCredits(server, "ended-matches");
    const config = { buyIn: 400, smallBlind: 5, bigBlind: 10, maxPlayers: 2, maxHands: 20, actionTimeoutMs: 1000 };
    const [plain, copy1, copy2] = [newId("tbl"), newId("tbl"), newId("tbl")];
    const row = (id: string, status: "running" | "finished", twin?: { twinId: string; copy: number }) => ({
      id, createdBy: creator.developerId, config, status, hostId: "no-such-node", createdAt: new Date(), ...(twin ?? {}),
    });
    await server.database.db.insert(tables).values([row(plain, "finished"), row(copy1, "finished", { twinId: copy2, copy: 1 }), row(copy2, "running", { twinId: copy1, copy: 2 })]);
    // Copy 1 has finished, copy 2 still plays: only the plain match has ended.
    expect(await endedMatches(server.database.db, [plain, copy1])).toEqual([plain]);
    await server.database.db.update(tables).set({ status: "finished" }).where(eq(tables.id, copy2));
    expect((await endedMatches(server.database.db, [plain, copy1])).sort()).toEqual([plain, copy1].sort());
    // A running plain table has not ended.
    await server.database.db.update(tables).set({ status: "running" }).where(eq(tables.id, plain));
    expect(await endedMatches(server.database.db, [plain, copy1])).toEqual([copy1]);
  });

  test("startsAt: the competitions role's holder starts it by itself; entries and withdrawals before, none after; bad input refused", async () => {
    const creator = await registerWithCredits(server, "starts-at");
    const bad = [
      { kind: "round-robin", ...SETTINGS, smallBlind: 20 },
      { kind: "round-robin", ...SETTINGS, bigBlind: 1000 },
      { kind: "round-robin", ...SETTINGS, division: "closed" },
      { kind: "round-robin", ...SETTINGS, matchesPerPair: 0 },
      { kind: "round-robin", ...SETTINGS, startsAt: "tomorrow" },
    ];
    for (const body of bad) expect({ body, status: (await server.api("POST", "/api/tournaments", { token: creator.token, body })).status }).toEqual({ body, status: 400 });
    // The hosted division takes only bots the service runs.
    const hostedOnly = (await server.api("POST", "/api/tournaments", { token: creator.token, body: { kind: "round-robin", division: "hosted", ...SETTINGS } })).body;
    const remote = (await createBot(server, creator.token, "remote-one")).botId;
    const refused = await server.api("POST", `/api/tournaments/${hostedOnly.tournamentId}/entries`, { token: creator.token, body: { botId: remote } });
    expect(refused.body.error.code).toBe("REMOTE_BOT_AT_DUPLICATE_TABLE");
    expect((await server.api("GET", `/api/tournaments/${hostedOnly.tournamentId}`)).body.entries).toEqual([]);
    // Fewer than 2 entries: not started.
    expect((await server.api("POST", `/api/tournaments/${hostedOnly.tournamentId}/start`, { token: creator.token })).body.error.code).toBe("TOURNAMENT_NOT_REGISTERING");
    expect((await server.api("DELETE", `/api/tournaments/${hostedOnly.tournamentId}`, { token: creator.token })).body).toMatchObject({ status: "cancelled", refunds: [] });
    const startsAt = new Date(Date.now() + 1_500).toISOString();
    const created = (await server.api("POST", "/api/tournaments", { token: creator.token, body: { kind: "round-robin", ...SETTINGS, matchesPerPair: 1, handsPerMatch: 5, startsAt } })).body;
    expect(created.startsAt).toBe(startsAt);
    const players = await Promise.all(
      ["caller", "tight", "caller"].map(async (strategy, i) => {
        const dev = await registerWithCredits(server, `starts${i}`);
        return { ...dev, botId: (await createBot(server, dev.token, `sa-${i}`, strategy)).botId };
      }),
    );
    for (const p of players) expect((await server.api("POST", `/api/tournaments/${created.tournamentId}/entries`, { token: p.token, body: { botId: p.botId } })).status).toBe(201);
    expect((await server.api("DELETE", `/api/tournaments/${created.tournamentId}/entries/${players[2].botId}`, { token: players[2].token })).body.cashout).toBe(0);
    const done = await until(async () => {
      const read = (await server.api("GET", `/api/tournaments/${created.tournamentId}`)).body;
      return read.status === "finished" ? read : null;
    }, 60_000, "the startsAt round robin to start by itself and finish");
    expect(done.entries.length).toBe(2);
    expect(done.matches.length).toBe(1);
    const late = await server.api("POST", `/api/tournaments/${created.tournamentId}/entries`, { token: players[2].token, body: { botId: players[2].botId } });
    expect(late.body.error.code).toBe("TOURNAMENT_NOT_REGISTERING");
    const [role] = await queryRows<{ role: string }>(server.database.db, sql`select role from cluster_roles where role = 'competitions-director'`);
    expect(role.role).toBe("competitions-director");
  });

  test("hosted division with uploaded bots: other developers' hosted bots sit at the duplicate pairs, each copy playing its pinned version", async () => {
    const creator = await registerWithCredits(server, "hosted-creator");
    const created = (await server.api("POST", "/api/tournaments", { token: creator.token, body: { kind: "round-robin", division: "hosted", ...SETTINGS, matchesPerPair: 1, handsPerMatch: 10 } })).body;
    const source = await fixtureSource("calling-station");
    const players = await Promise.all(
      [0, 1, 2].map(async (i) => {
        const dev = await registerWithCredits(server, `uploader${i}`);
        const botId = (await createBot(server, dev.token, `station-${i}`)).botId;
        expect(await uploadOverHttp(server.url, dev.token, botId, source)).toBe(1);
        return { ...dev, botId };
      }),
    );
    for (const p of players) expect((await server.api("POST", `/api/tournaments/${created.tournamentId}/entries`, { token: p.token, body: { botId: p.botId } })).status).toBe(201);
    expect((await server.api("POST", `/api/tournaments/${created.tournamentId}/start`, { token: creator.token })).status).toBe(200);
    const done = await until(async () => {
      const read = (await server.api("GET", `/api/tournaments/${created.tournamentId}`)).body;
      return read.status === "finished" ? read : null;
    }, 90_000, "the hosted round robin of uploaded bots to finish");
    expect(done.matches.length).toBe(3);
    expect(done.matches.every((m: any) => m.status === "played" && m.twinMatchId !== null)).toBe(true);
    const ids = done.matches.flatMap((m: any) => [m.matchId, m.twinMatchId]);
    const pinned = await queryRows<{ n: number }>(server.database.db, sql`select count(*)::int as n from match_players where match_id = any(${sql.param(ids)}::text[]) and code_version = 1`);
    expect(pinned[0].n).toBe(12);
    await expectAuditClean();
  });

  test("a bot whose owner cannot pay at its match's start forfeits that match; the other bot's buy-in comes back", async () => {
    const creator = await registerWithCredits(server, "forfeit-creator");
    const created = await server.api("POST", "/api/tournaments", { token: creator.token, body: { kind: "round-robin", ...SETTINGS, matchesPerPair: 1 } });
    const id = created.body.tournamentId;
    const players = await Promise.all(
      ["caller", "tight", "raiser"].map(async (strategy, i) => {
        const dev = await registerWithCredits(server, `forfeit${i}`);
        const botId = (await createBot(server, dev.token, `ff-${strategy}`, strategy)).botId;
        return { ...dev, botId };
      }),
    );
    for (const p of players) expect((await server.api("POST", `/api/tournaments/${id}/entries`, { token: p.token, body: { botId: p.botId } })).status).toBe(201);
    // The third owner spends its whole balance at a table of its own.
    const broke = players[2];
    const spender = (await createBot(server, broke.token, "spender", "caller")).botId;
    const table = (await server.api("POST", "/api/tables", { token: broke.token, body: { maxPlayers: 2, buyIn: await balanceOf(broke.token) } })).body.tableId;
    expect((await server.api("POST", `/api/tables/${table}/join`, { token: broke.token, body: { botId: spender } })).status).toBe(201);
    expect(await balanceOf(broke.token)).toBe(0);
    const starts = await Promise.all(players.map((p) => balanceOf(p.token)));
    expect((await server.api("POST", `/api/tournaments/${id}/start`, { token: creator.token })).body.rounds).toBe(3);
    const finished = await until(async () => {
      const read = (await server.api("GET", `/api/tournaments/${id}`)).body;
      return read.status === "finished" ? read : null;
    }, 60_000, "the round robin with a forfeit to finish");
    expect(finished.matches.length).toBe(3);
    const forfeits = finished.matches.filter((m: any) => m.status === "forfeit");
    expect(forfeits.length).toBe(2);
    expect(forfeits.every((m: any) => m.forfeitedBy === broke.botId && m.matchId === null)).toBe(true);
    const played = finished.matches.find((m: any) => m.status === "played");
    expect([...played.players].sort()).toEqual([players[0].botId, players[1].botId].sort());
    const standing = new Map(finished.standings.map((s: any) => [s.botId, s]));
    expect((standing.get(broke.botId) as any).points).toBe(0);
    expect((standing.get(broke.botId) as any).rank).toBe(3);
    // Money: the broke owner paid nothing; the others' forfeited matches were refunded exactly, their played match settled.
    expect(await balanceOf(broke.token)).toBe(0);
    const record = (await server.api("GET", `/api/matches/${played.matchId}`)).body;
    for (const i of [0, 1]) {
      const profit = record.players.find((p: any) => p.botId === players[i].botId).profit;
      expect(await balanceOf(players[i].token)).toBe(starts[i] + profit);
    }
    await expectAuditClean();
  });
});
