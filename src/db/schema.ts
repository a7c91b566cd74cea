import { sql } from "drizzle-orm";
import type { TableConfig } from "@poker-bots/protocol";
import {
  bigint,
  boolean,
  bigserial,
  check,
  customType,
  doublePrecision,
  index,
  integer,
  json,
  jsonb,
  pgSequence,
  pgTable,
  primaryKey,
  serial,
  smallint,
  text,
  timestamp,
  uniqueIndex,
} from "drizzle-orm/pg-core";

const money = (name: string) => bigint(name, { mode: "number" });
const instant = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });

/** Service-wide settings that must survive restarts (e.g. the generated JWT secret). */
export const settings = pgTable("settings", {
  key: text("key").primaryKey(),
  value: text("value").notNull(),
});

export const developers = pgTable(
  "developers",
  {
    id: text("id").primaryKey(),
    email: text("email").notNull(),
    name: text("name"),
    passwordHash: text("password_hash").notNull(),
    balance: money("balance").notNull().default(sql`0`),
    lastFaucetAt: instant("last_faucet_at"),
    createdAt: instant("created_at").notNull(),
  },
  (t) => [uniqueIndex("developers_email_key").on(t.email), check("developers_balance_non_negative", sql`${t.balance} >= 0`)],
);

export const bots = pgTable(
  "bots",
  {
    id: text("id").primaryKey(),
    developerId: text("developer_id")
      .notNull()
      .references(() => developers.id),
    name: text("name").notNull(),
    description: text("description").notNull().default(""),
    strategy: text("strategy"),
    apiKeyHash: text("api_key_hash").notNull(),
    createdAt: instant("created_at").notNull(),
    /** Set by DELETE /api/bots/:botId: the bot plays no more, its records stay; its name is free again. */
    retiredAt: instant("retired_at"),
    /**
     * Set by DELETE /api/bots/:botId/code: its uploaded code no longer plays it (a match from then on
     * seats it as a remote bot); its versions stay. The next upload clears it. Null: its code, if any, plays it.
     */
    unhostedAt: instant("unhosted_at"),
  },
  (t) => [
    uniqueIndex("bots_developer_name_key").on(t.developerId, t.name).where(sql`${t.retiredAt} is null`),
    uniqueIndex("bots_api_key_hash_key").on(t.apiKeyHash),
    // GET /api/bots lists oldest first and pages by (created_at, id).
    index("bots_created_idx").on(t.createdAt, t.id),
  ],
);

export const TRANSACTION_TYPES = ["faucet", "buy_in", "cashout"] as const;
export type TransactionType = (typeof TRANSACTION_TYPES)[number];

/**
 * The ledger. `seq` is the order in which rows were committed for a developer: every row is
 * written while that developer's balance row is locked by the guarded UPDATE, so per developer
 * seq order is balance-change order, which is what `balance_after` chains along.
 */
export const transactions = pgTable(
  "transactions",
  {
    /** The row's key (migration 0028): its id is derived from it. */
    seq: bigserial("seq", { mode: "number" }).primaryKey(),
    /**
     * Stored only by rows written before migration 0028 (issue 35: ~26 bytes a row, ~40 more in
     * the key): a row's id is `transaction_id(seq, created_at)` (credits/transaction-id.ts):
     * "tx_" then its millisecond's 10 digits then the sequence in 12.
     */
    id: text("id"),
    developerId: text("developer_id")
      .notNull()
      .references(() => developers.id),
    type: text("type", { enum: TRANSACTION_TYPES }).notNull(),
    amount: money("amount").notNull(),
    balanceAfter: money("balance_after").notNull(),
    botId: text("bot_id"),
    tableId: text("table_id"),
    matchId: text("match_id"),
    /** Written before migration 0030 (the seat's text id); the migration copied it into seat_seq, and nothing reads it. */
    seatId: text("seat_id"),
    createdAt: instant("created_at").notNull(),
    /** A buy-in's or cashout's seat (seats.seq; migration 0030, issue 35: a bigint, not a 26-byte text). */
    seatSeq: bigint("seat_seq", { mode: "number" }),
  },
  (t) => [
    // A developer's rows by time (GET /api/me/transactions): ties of one millisecond are sorted by id
    // after the index scan (an incremental sort of a few rows), so the id is not here (migration 0023).
    index("transactions_developer_order_idx").on(t.developerId, t.createdAt),
    // The stored ids of rows written before 0028 (a cursor names one; rows since have none).
    uniqueIndex("transactions_stored_id_key").on(t.id).where(sql`${t.id} is not null`),
    // No index by seat (migration 0027, issue 35: ~38 bytes a seat's row): nothing the service
    // runs finds ledger rows by seat (a row reaches its seat through seats' key), and the audit's
    // check of every seat joins the two tables whole, by hash (bench:audit: 1.4 -> 2.0 s a million rows).
    check("transactions_type_valid", sql`${t.type} in ('faucet', 'buy_in', 'cashout')`),
    check(
      "transactions_amount_sign",
      sql`(${t.type} = 'faucet' and ${t.amount} > 0) or (${t.type} = 'buy_in' and ${t.amount} < 0) or (${t.type} = 'cashout' and ${t.amount} >= 0)`,
    ),
    check("transactions_balance_after_non_negative", sql`${t.balanceAfter} >= 0`),
    // A buy-in always opens a seat: the buy-in statement relies on this to undo itself when the seat is refused.
    check("transactions_buy_in_has_seat", sql`${t.type} <> 'buy_in' or ${t.seatSeq} is not null`),
  ],
);

/**
 * Chips a bot holds at a table. A seat is opened in the same database transaction as its
 * buy_in row and closed in the same transaction as its cashout row, so at every committed
 * instant: sum(balances) + sum(chips of open seats) = sum(faucet grants).
 */
export const seats = pgTable(
  "seats",
  {
    /**
     * The seat's key (migration 0030, issue 35): a seat is internal (no route names one), so it
     * needs no text id; its ledger rows name it by this (transactions.seat_seq).
     */
    seq: bigserial("seq", { mode: "number" }).primaryKey(),
    /** Stored only by seats opened before migration 0030 (~26 bytes a seat, ~35 more in the key); read by nothing. */
    id: text("id"),
    /**
     * Written only where the seat's bot does not name it (a seat with no bot, a ledger-only stake)
     * and by seats opened before migration 0032: else it is its bot's owner (db/seat-developer.ts, issue 35).
     */
    developerId: text("developer_id").references(() => developers.id),
    botId: text("bot_id"),
    tableId: text("table_id"),
    /** Seat number at the table (0-based); null for a ledger-only stake. */
    position: integer("position"),
    buyIn: money("buy_in").notNull(),
    chips: money("chips").notNull(),
    status: text("status", { enum: ["open", "closed"] }).notNull(),
    cashout: money("cashout"),
    /** Asked to leave during its match (answered "leaving"): kept here so a node that takes the table over honours it. */
    leaving: boolean("leaving").notNull().default(false),
    /** A hosted bot's code version pinned for this seat's current match (null: not hosted, or between matches). */
    codeVersion: integer("code_version"),
    /**
     * 2 for the seat at a duplicate pair's copy-2 table, 1 for every other seat. A copy-2 seat is
     * only ever opened in the transaction that opens its copy-1 twin (ledger.ts `buyInPairInDb`).
     */
    copy: smallint("copy").notNull().default(1),
    openedAt: instant("opened_at").notNull(),
    closedAt: instant("closed_at"),
  },
  (t) => [
    // One open seat per bot and copy: a bot sits at one table, or at the two copies of one duplicate pair.
    uniqueIndex("seats_one_open_seat_per_bot").on(t.botId, t.copy).where(sql`${t.status} = 'open' and ${t.botId} is not null`),
    index("seats_table_idx").on(t.tableId),
    uniqueIndex("seats_one_open_seat_per_position")
      .on(t.tableId, t.position)
      .where(sql`${t.status} = 'open' and ${t.position} is not null`),
    check("seats_chips_non_negative", sql`${t.chips} >= 0`),
    check("seats_status_valid", sql`${t.status} in ('open', 'closed')`),
    check("seats_copy_valid", sql`${t.copy} in (1, 2)`),
  ],
);

/** A table's config as stored, seed included: the one definition is @poker-bots/protocol's (packages/protocol). */
export type { TableConfig };

export const TABLE_STATUSES = ["waiting", "running", "finished", "aborted", "closed"] as const;
export type TableStatus = (typeof TABLE_STATUSES)[number];
/** A table is live while it waits for players or plays its match: then exactly one node hosts it. */
export const isLive = (status: TableStatus) => status === "waiting" || status === "running";

/** The service's own bots (bots.strategy); a bot without one is remote. */
export const BUILT_IN_STRATEGIES = ["random", "caller", "tight", "raiser"] as const;
export type BuiltInStrategy = (typeof BUILT_IN_STRATEGIES)[number];

export const LADDER_FORMATS = ["heads-up", "six-max"] as const;
export type LadderFormat = (typeof LADDER_FORMATS)[number];

/**
 * Each distinct table config once (issue 35: ~160 bytes a table): the ladder's and a competition's
 * tables share a handful. A table names its own (tables.config_id); read through
 * tables/config-rows.ts. Rows are only added, never changed or removed.
 */
export const tableConfigs = pgTable("table_configs", { id: serial("id").primaryKey(), config: jsonb("config").$type<TableConfig>().notNull() }, (t) => [
  uniqueIndex("table_configs_config_key").on(t.config),
]);

export const tables = pgTable(
  "tables",
  {
    id: text("id").primaryKey(),
    createdBy: text("created_by")
      .notNull()
      .references(() => developers.id),
    /** Stored only by tables made before migration 0029; read the config through tables/config-rows.ts. */
    config: jsonb("config").$type<TableConfig>(),
    /** The table's config (table_configs), for tables made since migration 0029. A table's config never changes. */
    configId: integer("config_id").references(() => tableConfigs.id),
    status: text("status", { enum: TABLE_STATUSES }).notNull(),
    /** The process instance hosting the table's actor; recovery after a crash is per host. */
    hostId: text("host_id").notNull(),
    matchId: text("match_id"),
    createdAt: instant("created_at").notNull(),
    /** A table the ladder made (its format), null for one a developer made. */
    ladder: text("ladder", { enum: LADDER_FORMATS }),
    /**
     * A duplicate match is two ordinary matches at two twin tables (docs/FAIRNESS.md): the other
     * copy's table, and which copy this one plays (1 or 2). Both null for any other table.
     */
    twinId: text("twin_id"),
    copy: smallint("copy"),
  },
  (t) => [
    // Live tables only (every query by status asks for waiting or running ones): a finished table leaves it (migration 0023).
    index("tables_status_idx").on(t.status, t.hostId).where(sql`${t.status} in ('waiting', 'running')`),
    check("tables_config_known", sql`${t.config} is not null or ${t.configId} is not null`),
    check("tables_twin_copy", sql`(${t.twinId} is null and ${t.copy} is null) or (${t.twinId} is not null and ${t.copy} in (1, 2))`),
  ],
);

export const matches = pgTable(
  "matches",
  {
    id: text("id").primaryKey(),
    tableId: text("table_id")
      .notNull()
      .references(() => tables.id),
    /** running → completed | aborted. Only completed matches are listed. */
    status: text("status", { enum: ["running", "completed", "aborted"] }).notNull(),
    /**
     * No longer written (issue 35): a match's config is its table's (tables.config: one match a
     * table, and a table's config never changes), read through table_id. Rows written before keep
     * their copy, unread; a later migration may drop the column.
     */
    config: jsonb("config").$type<TableConfig>(),
    handsPlayed: integer("hands_played").notNull().default(0),
    winners: jsonb("winners").$type<Array<{ botId: string; amount: number }>>(),
    startedAt: instant("started_at").notNull(),
    endedAt: instant("ended_at"),
    durationMs: bigint("duration_ms", { mode: "number" }),
    /** Lowercase hex SHA-256 of deckSecret, published at match start (null: a seeded match). */
    deckCommitment: text("deck_commitment"),
    /** Hex of the 256-bit secret every deck derives from, once revealed: set only when the match is over (the fairness record). */
    deckSecret: text("deck_secret"),
    /**
     * The same secret while the match runs (and forever if it is aborted), sealed with the service's
     * deck seal key (AES-256-GCM, match-host/deck-seal.ts): a database dump taken meanwhile holds no
     * card. Cleared when the secret is revealed.
     */
    deckSecretSealed: text("deck_secret_sealed"),
    /** The bot at each seat (index = seat, null: empty), fixed at match start: stored hands name bots through it. */
    seatBots: text("seat_bots").array().$type<Array<string | null>>(),
    /** Order in which the match was applied to the ratings (null: not rated), for an exact rebuild. */
    ratedSeq: bigint("rated_seq", { mode: "number" }),
    /**
     * Recorded as rated and not yet applied to the ratings (applied off the hot path, in record
     * order). Migration 0014 indexes just these rows (matches_rating_pending_idx, partial): the
     * appliers' queue, polled every second on every node.
     */
    ratingPending: boolean("rating_pending").notNull().default(false),
    /** The estimator (ratings/estimator.ts) that rated this match; null while not rated. Matches rated before migration 0020: chance-1. */
    ratingEstimator: text("rating_estimator"),
    /**
     * Hand numbers up to this one may have been dealt: the host reserves them in blocks, durably and
     * fenced, before dealing any. A resume deals from the number after it, so no deck is dealt twice.
     */
    handsReserved: integer("hands_reserved").notNull().default(0),
    /** Numbers given up by resumes (reserved, possibly dealt and shown, never recorded): never dealt again. */
    voidedHands: integer("voided_hands").array().notNull().default(sql`'{}'::int[]`),
    /**
     * The other copy's match, for a copy of a duplicate pair (same deck secret, seats swapped); null
     * for any other match. The pair is rated once, when both copies are recorded (match-finish.ts).
     */
    twinMatchId: text("twin_match_id"),
  },
  (t) => [index("matches_listing_idx").on(t.status, t.endedAt, t.id)],
);

export const matchPlayers = pgTable(
  "match_players",
  {
    matchId: text("match_id")
      .notNull()
      .references(() => matches.id),
    botId: text("bot_id").notNull(),
    /**
     * No longer written (issue 35: ~31 bytes a player): a bot's owner never changes, so readers take
     * it from bots (join on bot_id). Rows written before keep theirs (the same); unread.
     */
    developerId: text("developer_id"),
    /**
     * No longer written (issue 35: ~32 bytes a player), and read by nothing: the player's seat is
     * the seat of its bot at the match's table closed at or after the match's start (resume.ts
     * finds a match's departed seats so). Rows written before keep theirs; a later migration may drop it.
     */
    seatId: text("seat_id"),
    position: integer("position").notNull(),
    buyIn: money("buy_in").notNull(),
    finalChips: money("final_chips").notNull(),
    profit: money("profit").notNull(),
    handsPlayed: integer("hands_played").notNull(),
    handsWon: integer("hands_won").notNull(),
    /** The hosted code version that played this match (null: a remote or built-in bot). */
    codeVersion: integer("code_version"),
  },
  // The key is (match, seat position), not (match, bot): an int instead of a 25-byte text in every
  // entry (migration 0031, issue 35: ~26 bytes a player). Both are unique in a match (bots join
  // only while a table waits, one seat each); every reader finds a match's players by the match.
  (t) => [primaryKey({ columns: [t.matchId, t.position] }), index("match_players_bot_idx").on(t.botId)],
);

/**
 * Hands recorded before compact storage (issue 35): one JSON document per hand. Read side by side
 * with hand_chunks; the conversion (match-host/hand-conversion.ts) moves them into chunks, match by
 * match, and leaves here only those it could not reproduce exactly. The view `hands` lists the
 * numbers recorded in either form.
 */
export const legacyHands = pgTable(
  "hands_legacy",
  {
    matchId: text("match_id")
      .notNull()
      .references(() => matches.id),
    number: integer("number").notNull(),
    history: json("history").notNull(),
    createdAt: instant("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.matchId, t.number] })],
);

const bytes = customType<{ data: Uint8Array; driverData: Uint8Array }>({ dataType: () => "bytea" });

/**
 * Hand histories, compact (src/poker/hand-codec.ts): consecutive hands first … last of one match
 * in one row, a few bytes a hand. Partitioned by range of match id (ids begin with their creation
 * time), a partition a month (migration 0017, match-host/hand-partitions.ts): every hand of a
 * match is in one partition, a read by match id touches only it, and old months are archived and
 * dropped whole. No foreign key: written thousands of times a second, only by the match's host.
 */
export const handChunks = pgTable(
  "hand_chunks",
  {
    matchId: text("match_id").notNull(),
    firstNumber: integer("first_number").notNull(),
    lastNumber: integer("last_number").notNull(),
    data: bytes("data").notNull(),
  },
  (t) => [primaryKey({ columns: [t.matchId, t.firstNumber] })],
);

export const botStats = pgTable("bot_stats", {
  botId: text("bot_id").primaryKey(),
  matchesPlayed: integer("matches_played").notNull().default(0),
  matchesWon: integer("matches_won").notNull().default(0),
  handsPlayed: integer("hands_played").notNull().default(0),
  handsWon: integer("hands_won").notNull().default(0),
  totalBuyIns: money("total_buy_ins").notNull().default(sql`0`),
  totalWinnings: money("total_winnings").notNull().default(sql`0`),
  netChips: money("net_chips").notNull().default(sql`0`),
  biggestWin: money("biggest_win").notNull().default(sql`0`),
  biggestLoss: money("biggest_loss").notNull().default(sql`0`),
  lastPlayed: instant("last_played"),
});

/** Gives each rated match its place in the ratings' history (taken after the bots' rating rows are locked). */
export const ratingSequence = pgSequence("rating_seq");

/**
 * OpenSkill (Weng–Lin, Plackett–Luce) rating per bot, and its per-hand results in big blinds as
 * running sums (n, Σx, Σx²) for the win rate and its confidence interval. Derived data: rebuilt
 * from the match records by `bun run ratings:rebuild`.
 */
export const botRatings = pgTable(
  "bot_ratings",
  {
    botId: text("bot_id").primaryKey(),
    mu: doublePrecision("mu").notNull(),
    sigma: doublePrecision("sigma").notNull(),
    /** mu − 3·sigma: the conservative estimate the list is sorted by. */
    rating: doublePrecision("rating").notNull(),
    matchesPlayed: integer("matches_played").notNull(),
    handsPlayed: integer("hands_played").notNull(),
    sumBb: doublePrecision("sum_bb").notNull(),
    sumBbSquared: doublePrecision("sum_bb_squared").notNull(),
    /** Σx and Σx² of the adjusted results (all-in adjusted, chance corrected: docs/RATINGS.md). */
    sumAdjustedBb: doublePrecision("sum_adjusted_bb").notNull().default(0),
    sumAdjustedBbSquared: doublePrecision("sum_adjusted_bb_squared").notNull().default(0),
    /**
     * Which estimator (ratings/estimator.ts) produced the adjusted sums: one name when every match in
     * them was rated by it, else "mixed" (until `ratings:rebuild`). Rows before migration 0020: chance-1.
     */
    estimator: text("estimator").notNull().default("chance-1"),
  },
  (t) => [index("bot_ratings_order_idx").on(t.rating.desc(), t.botId)],
);

/** A bot entered in a ladder format: it plays rated matches for as long as the row exists. */
export const ladderEntries = pgTable(
  "ladder_entries",
  {
    botId: text("bot_id")
      .notNull()
      .references(() => bots.id),
    format: text("format", { enum: LADDER_FORMATS }).notNull(),
    developerId: text("developer_id")
      .notNull()
      .references(() => developers.id),
    enteredAt: instant("entered_at").notNull(),
    /** Set by DELETE /api/ladder/entries/:botId: not paired again, its record stays in the standings (`left`); entering again clears it. */
    leftAt: instant("left_at"),
  },
  (t) => [primaryKey({ columns: [t.botId, t.format] })],
);

export * from "./schema-cluster";
export * from "./schema-hosted";
export * from "./schema-web";
export * from "./schema-competitions";
