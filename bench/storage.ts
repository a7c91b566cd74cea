/**
 * Database growth per hand (issue 35): everything the matches write (tables, seats, buy-ins and
 * cashouts, match records and players, stats, ratings, hand histories), divided by the hands they
 * played, for heads-up and six-max matches of built-in bots, each format on a fresh Postgres
 * database behind a real server process. The same bots play round after round (TABLES tables at a
 * time), as on the ladder, so their stats and ratings rows are updated, not made anew. Sizes are
 * pg_total_relation_size (heap, indexes, TOAST) summed over every table, after a first round
 * (every row kind exists) and after the last match's ratings are applied. Both ends are compacted
 * by VACUUM FULL, so the growth between is the live rows the other rounds added: what a
 * long-running database grows by once vacuum reuses the space of dead row versions (the figure
 * that moves least from run to run). The growth as written (dead versions of updated rows still in
 * the files, index pages split after the compaction) is printed beside it. BENCH_SERVER_ROOT runs
 * another checkout's server (the "before" figures: `BENCH_SERVER_ROOT=/work/wt/base bun run bench:storage`).
 * BENCH_MATCHES (per format, default 120), BENCH_MAX_HANDS (default 200), BENCH_STRATEGIES, BENCH_KEEP_DATABASE. Figures only.
 */
import postgres from "postgres";
import { join } from "node:path";
import { drizzle } from "drizzle-orm/postgres-js";
import type { Db } from "../src/db";
import * as schema from "../src/db/schema";
import { recordedMatchStored } from "../src/modules/ratings/store";
import { decodeParts } from "../src/modules/match-host/recorded-hands";
import { CHEAP_PASSWORDS, api, freshDatabase, spawnServer } from "./support";

const MATCHES = Number(process.env.BENCH_MATCHES ?? 120);
/** Tables playing at once (each round). */
const TABLES = 8;
const MAX_HANDS = Number(process.env.BENCH_MAX_HANDS ?? 200);
const SERVER_ROOT = process.env.BENCH_SERVER_ROOT;
/** BENCH_STRATEGIES: the built-ins seated in turn (default the e2e mix; "caller,tight" plays matches to their last hand, nobody busts). */
const STRATEGIES = (process.env.BENCH_STRATEGIES ?? "random,caller,tight,raiser").split(",");

interface Sizes {
  tables: number;
  hands: number;
  database: number;
}

async function sizes(sql: postgres.Sql): Promise<Sizes> {
  const [row] = await sql`select
      (select coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint from pg_class c join pg_namespace n on n.oid = c.relnamespace
        where n.nspname = 'public' and c.relkind in ('r', 'm')) as tables,
      (select coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint from pg_class c join pg_namespace n on n.oid = c.relnamespace
        where n.nspname = 'public' and c.relkind = 'r' and (c.relname like 'hand_chunks%' or c.relname in ('hands', 'hands_legacy'))) as hands,
      pg_database_size(current_database())::bigint as database`;
  return { tables: Number(row.tables), hands: Number(row.hands), database: Number(row.database) };
}

/** Each table's size (heap, indexes, TOAST), to see where the bytes go. */
async function sizesByTable(sql: postgres.Sql): Promise<Map<string, number>> {
  const rows = await sql`select c.relname as name, pg_total_relation_size(c.oid)::bigint as bytes from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = 'public' and c.relkind in ('r', 'm')`;
  return new Map(rows.map((row) => [row.name as string, Number(row.bytes)]));
}

/** Each index's size, to see which keys cost what. */
async function sizesByIndex(sql: postgres.Sql): Promise<Map<string, number>> {
  const rows = await sql`select c.relname as name, pg_relation_size(c.oid)::bigint as bytes from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = 'public' and c.relkind = 'i'`;
  return new Map(rows.map((row) => [row.name as string, Number(row.bytes)]));
}

/** Hands decoded per second on this thread (chunks read first, then decoded: the decoding alone is timed). */
async function decodeRate(sql: postgres.Sql): Promise<number> {
  const db = drizzle(sql, { schema }) as unknown as Db;
  const ids = (await sql`select id from matches where status = 'completed'`).map((row) => row.id as string);
  const stored = await Promise.all(ids.map((id) => recordedMatchStored(db, id)));
  const started = performance.now();
  let hands = 0;
  for (const { parts } of stored) hands += decodeParts(parts).length;
  const rate = Math.round(hands / ((performance.now() - started) / 1000));
  const [payload] = await sql`select sum(length(data))::int as bytes, sum(last_number - first_number + 1)::int as hands, count(*)::int as rows from hand_chunks`;
  console.log(`chunks: ${payload.rows} rows, ${(payload.bytes / payload.hands).toFixed(1)} bytes of encoded hands a hand (${Math.round(payload.hands / payload.rows)} hands a row)`);
  return rate;
}

/** The columns of a match's own rows, bytes a match (pg_column_size summed over every row, all matches): where a row's bytes go, before its indexes. */
async function printColumnBytes(sql: postgres.Sql, name: string, matches: number): Promise<void> {
  const tablesOfAMatch = ["transactions", "matches", "seats", "match_players", "bot_rating_history", "tables"];
  const columns = await sql`select table_name, column_name from information_schema.columns where table_schema = 'public' and table_name = any(${tablesOfAMatch}) order by table_name, ordinal_position`;
  const byTable = new Map<string, string[]>();
  for (const c of columns) byTable.set(c.table_name, [...(byTable.get(c.table_name) ?? []), c.column_name]);
  for (const [table, names] of byTable) {
    const sums = names.map((column) => `coalesce(sum(pg_column_size("${column}")), 0)::bigint as "${column}"`).join(", ");
    const [row] = await sql.unsafe(`select count(*)::int as rows, ${sums} from "${table}"`);
    const parts = names.map((column) => [column, Number(row[column]) / matches] as const).sort((a, b) => b[1] - a[1]);
    console.log(`${name}: ${table} columns, bytes a match (${(row.rows / matches).toFixed(1)} rows): ${parts.map(([column, bytes]) => `${column} ${bytes.toFixed(0)}`).join(", ")}`);
  }
}

async function format(name: string, seats: number) {
  const database = await freshDatabase(`bench_storage_${name}_${process.pid}`);
  const server = await spawnServer(
    { ...CHEAP_PASSWORDS, DATABASE_URL: database.url, FAUCET_AMOUNT: "100000000", MAX_OPEN_TABLES_PER_DEVELOPER: "1000", LOG_LEVEL: "warn" },
    SERVER_ROOT ? ["bun", join(SERVER_ROOT, "src/main.ts")] : undefined,
  );
  const sql = postgres(database.url, { max: 1, onnotice: () => {} });
  try {
    // Two developers (their bots always meet, so every match is rated, as on the ladder), a bot per seat and match.
    const tokens: string[] = [];
    for (const who of ["a", "b"]) {
      const { token } = await api(server.url, "POST", "/api/auth/register", { email: `${name}-${who}@example.com`, password: "bench-password" });
      await api(server.url, "POST", "/api/me/balance/faucet", undefined, token);
      tokens.push(token);
    }
    const bots: string[][] = [];
    for (let t = 0; t < TABLES; t++) {
      const row: string[] = [];
      for (let s = 0; s < seats; s++) {
        row.push((await api(server.url, "POST", "/api/bots", { name: `t${t}s${s}`, strategy: STRATEGIES[(t + s) % STRATEGIES.length] }, tokens[s % 2])).botId);
      }
      bots.push(row);
    }
    let played = 0;
    const round = async () => {
      await Promise.all(
        bots.map(async (row) => {
          const table = await api(server.url, "POST", "/api/tables", { maxPlayers: seats, maxHands: MAX_HANDS, buyIn: 2000 }, tokens[0]);
          await Promise.all(row.map((botId, s) => api(server.url, "POST", `/api/tables/${table.tableId}/join`, { botId }, tokens[s % 2])));
        }),
      );
      played += TABLES;
      // Every match of the round recorded and rated.
      for (;;) {
        const [row] = await sql`select count(*) filter (where status = 'completed')::int as done, count(*) filter (where rating_pending)::int as pending from matches`;
        if (row.done === played && row.pending === 0) return;
        await Bun.sleep(50);
      }
    };
    const handsSoFar = async () => Number((await sql`select coalesce(sum(hands_played), 0)::int as hands from matches`)[0].hands);
    await round();
    const firstRoundHands = await handsSoFar();
    await sql`vacuum full`;
    const before = await sizes(sql);
    const tablesBefore = await sizesByTable(sql);
    const indexesBefore = await sizesByIndex(sql);
    const started = performance.now();
    while (played < MATCHES) await round();
    const seconds = (performance.now() - started) / 1000;
    const hands = (await handsSoFar()) - firstRoundHands;
    const after = await sizes(sql);
    const perHand = (bytes: number) => Math.round(bytes / hands);
    const decoding = SERVER_ROOT ? null : await decodeRate(sql);
    await sql`vacuum full`;
    const compacted = await sizes(sql);
    const growth = [...(await sizesByTable(sql))].map(([table, bytes]) => [table, bytes - (tablesBefore.get(table) ?? 0)] as const).filter(([, bytes]) => bytes > 0);
    console.log(`${name}: live rows added by table (bytes a hand): ${growth.sort((a, b) => b[1] - a[1]).map(([table, bytes]) => `${table} ${Math.round(bytes / hands)}`).join(", ")}`);
    const indexGrowth = [...(await sizesByIndex(sql))].map(([index, bytes]) => [index, bytes - (indexesBefore.get(index) ?? 0)] as const).filter(([, bytes]) => bytes > 0);
    console.log(`${name}: of which indexes, bytes a match: ${indexGrowth.sort((a, b) => b[1] - a[1]).map(([index, bytes]) => `${index} ${Math.round(bytes / (MATCHES - TABLES))}`).join(", ")}`);
    // A match's own rows do not depend on its length: bytes a match compare runs whose matches last longer or shorter.
    const rounds = MATCHES - TABLES;
    console.log(`${name}: the same, bytes a match (${(hands / rounds).toFixed(1)} hands a match): ${Math.round((compacted.tables - before.tables) / rounds)}; ${growth.map(([table, bytes]) => `${table} ${Math.round(bytes / rounds)}`).join(", ")}`);
    const figures = {
      format: name,
      matches: MATCHES - TABLES,
      hands,
      seconds: Number(seconds.toFixed(2)),
      bytesPerHand: perHand(after.tables - before.tables),
      handHistoryBytesPerHand: perHand(after.hands - before.hands),
      databaseBytesPerHand: perHand(after.database - before.database),
      liveBytesPerHand: perHand(compacted.tables - before.tables),
      liveHandHistoryBytesPerHand: perHand(compacted.hands - before.hands),
      liveBytesPerMatch: Math.round((compacted.tables - before.tables) / (MATCHES - TABLES)),
      ...(decoding ? { decodedHandsPerSecond: decoding } : {}),
    };
    await printColumnBytes(sql, name, MATCHES);
    if (decoding) console.log(`${name}: decoding every match's hands from their chunks, one thread: ${decoding} hands/s`);
    console.log(
      `${name.padEnd(8)} ${MATCHES - TABLES} matches, ${hands} hands: ${figures.liveBytesPerHand} bytes a hand of live rows over every table (${figures.liveHandHistoryBytesPerHand} of them hand histories); as written ${figures.bytesPerHand} (${figures.handHistoryBytesPerHand}), ${figures.databaseBytesPerHand} by pg_database_size`,
    );
    return figures;
  } finally {
    await sql.end();
    await server.stop();
    // BENCH_KEEP_DATABASE=1 leaves each format's database to look into (its URL is printed).
    if (process.env.BENCH_KEEP_DATABASE) console.log(`${name}: database kept at ${database.url}`);
    else await database.drop();
  }
}

const headsUp = await format("heads-up", 2);
const sixMax = await format("six-max", 6);
// Issue 35's goal is stated for a mix of both formats: every live byte both runs added over every hand they played.
const mix = Math.round((headsUp.liveBytesPerMatch * headsUp.matches + sixMax.liveBytesPerMatch * sixMax.matches) / (headsUp.hands + sixMax.hands));
console.log(`both formats together: ${mix} bytes a hand of live rows (${headsUp.hands + sixMax.hands} hands; a hand's share moves with a run's match lengths, bytes a match do not)`);
console.log(JSON.stringify({ server: SERVER_ROOT ?? "this checkout", strategies: STRATEGIES.join(","), headsUp, sixMax, mixLiveBytesPerHand: mix }));
