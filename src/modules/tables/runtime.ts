import type { LadderFormat, TableConfig, TableStatus } from "../../db/schema";
import type { HandState } from "../../poker/hand-types";
import type { BuiltInStrategy } from "../bots/model";
import { invariant } from "../../lib/assert";

/**
 * A duplicate match is two ordinary matches at two twin tables (docs/FAIRNESS.md): each copy's
 * link to the other. Copy 2 seats every bot at the other position and deals hand n from the same
 * deck as copy 1's hand n, so each bot gets in copy 2 the cards and position its opponent had in
 * copy 1; nothing else is shared (stacks, seats, time banks, hosted contexts, clocks).
 */
export interface TwinLink {
  /** Which copy this table plays: 1, or 2 (the seats swapped). */
  copy: 1 | 2;
  /** The other copy's table. */
  tableId: string;
  /** The other copy's match, once the pair has started (both ids are drawn together). */
  matchId: string | null;
}

/** One bot's seat at a table, as the hosting process sees it. */
export interface SeatRuntime {
  seatId: string;
  position: number;
  botId: string;
  developerId: string;
  /** null: a remote bot over WebSocket, or a hosted bot (codeVersion set). */
  strategy: BuiltInStrategy | null;
  /**
   * The hosted bot's code version this match plays (pinned at match start, seats.code_version);
   * null: a built-in, a remote bot, or no match yet.
   */
  codeVersion: number | null;
  buyIn: number;
  chips: number;
  /** Asked to leave during the match: folds from now on, removed after the current hand. */
  leaving: boolean;
  handsPlayed: number;
  handsWon: number;
  /** Extra thinking time beyond the per-action timeout (remote bots). */
  timeBankMs: number;
}

/** A seat that left the match before its end, with what it cashed out. */
export interface DepartedSeat extends SeatRuntime {
  finalChips: number;
}

export interface TableRuntime {
  tableId: string;
  /** The ladder format of a table the ladder made; null for one a developer made. */
  ladder: LadderFormat | null;
  /** A copy of a duplicate pair: its twin (null for every other table). */
  twin: TwinLink | null;
  createdBy: string;
  createdAt: Date;
  config: TableConfig;
  status: TableStatus;
  matchId: string | null;
  startedAt: number | null;
  /** Seated bots by position. */
  seats: Map<number, SeatRuntime>;
  /** Positions promised to joins whose buy-in is still in flight. */
  reserved: Set<number>;
  departed: DepartedSeat[];
  handNumber: number;
  /** The hand in play (for snapshots), null between hands. */
  hand: HandState | null;
  buttonPosition: number | null;
  /** Set at shutdown: the match stops at the next hand boundary and the table is aborted. */
  stopRequested: boolean;
  /**
   * The running match's deck secret (hex; every deck derives from it and the hand number) and its
   * SHA-256, published at match start. Null for a seeded match and before the match.
   */
  deckSecret: string | null;
  deckCommitment: string | null;
  /**
   * Hand numbers given up, ascending: a match resumed after its host died voids every number its
   * host had reserved and not recorded (dealt perhaps, and shown; never dealt again: see
   * deal-guard.ts). handNumber − voidedHands.length hands were played.
   */
  voidedHands: number[];
  /** The numbers the resumption that started this run of the match voided (told in match_resumed). */
  voidedAtResume: number[];
  /** Hand numbers up to this one are reserved durably: this host may deal them (deal-guard.ts). */
  handsReserved: number;
}

/** A table before its match: no seats yet, nothing played. */
export function newTableRuntime(
  tableId: string,
  createdBy: string,
  createdAt: Date,
  config: TableConfig,
  ladder: LadderFormat | null = null,
  twin: TwinLink | null = null,
): TableRuntime {
  return {
    tableId,
    ladder,
    twin,
    createdBy,
    createdAt,
    config,
    status: "waiting",
    matchId: null,
    startedAt: null,
    seats: new Map(),
    reserved: new Set(),
    deckSecret: null,
    deckCommitment: null,
    voidedHands: [],
    voidedAtResume: [],
    handsReserved: 0,
    departed: [],
    handNumber: 0,
    hand: null,
    buttonPosition: null,
    stopRequested: false,
  };
}

/** A bot just seated with its buy-in, nothing played yet. */
export function newSeatRuntime(
  seat: Omit<SeatRuntime, "leaving" | "handsPlayed" | "handsWon" | "codeVersion"> & { leaving?: boolean; codeVersion?: number | null },
): SeatRuntime {
  return { leaving: false, codeVersion: null, ...seat, handsPlayed: 0, handsWon: 0 };
}

export function seatsInOrder(table: TableRuntime): SeatRuntime[] {
  return [...table.seats.values()].sort((a, b) => a.position - b.position);
}

export function isFull(table: TableRuntime): boolean {
  return table.seats.size >= table.config.maxPlayers;
}

export function freePosition(table: TableRuntime): number | null {
  for (let position = 0; position < table.config.maxPlayers; position++) {
    if (!table.seats.has(position) && !table.reserved.has(position)) return position;
  }
  return null;
}

/** Chips on the table now: seated stacks (the hand in play is settled into them at its end). */
export function chipsOnTable(table: TableRuntime): number {
  let total = 0;
  for (const seat of table.seats.values()) total += seat.chips;
  return total;
}

/**
 * Chips in seats + balances = grants (the ledger audit checks the sums in SQL; this is the host's
 * side of it): a seat leaving the table is paid what it holds, which is never negative and never
 * more than the chips on the table. More would pay out chips no seat lost. Call it while the seat
 * is still on the table.
 */
export function assertCashout(table: TableRuntime, seat: SeatRuntime): void {
  const onTable = chipsOnTable(table);
  invariant(table.seats.get(seat.position) === seat && seat.chips >= 0 && seat.chips <= onTable, `table ${table.tableId}: cashout ${seat.chips} of seat ${seat.seatId} is not covered by the ${onTable} chips on the table`);
}

export { isSeeded, publicConfig } from "../protocol/table-in-play";

/**
 * Where copy 2 seats a bot that sits at `position` in copy 1 (and back): the other seat. Duplicate
 * matches are heads-up, so the button's alternation gives each copy-2 seat the position and cards
 * its copy-1 opponent had.
 */
export function mirroredPosition(table: Pick<TableRuntime, "config">, position: number): number {
  invariant(table.config.maxPlayers === 2, "a duplicate pair is heads-up");
  return 1 - position;
}

/** Hands actually played (numbers of voided hands are skipped). */
export function handsPlayedAt(table: TableRuntime): number {
  return table.handNumber - table.voidedHands.length;
}
