import type { PublicTableConfig } from "@poker-bots/protocol";
import type { TableConfig, TableStatus } from "../../db/schema";
import type { HandState } from "../../poker/hand-types";

/** A seat as the messages name it. */
export interface SeatInPlay {
  readonly position: number;
  readonly botId: string;
  readonly chips: number;
}

/**
 * What the protocol's messages read of a table in play: declared here, below the table module, so
 * the messages depend on no table code (the table module's TableRuntime is one of these).
 */
export interface TableInPlay {
  readonly tableId: string;
  readonly config: TableConfig;
  readonly status: TableStatus;
  readonly matchId: string | null;
  readonly deckCommitment: string | null;
  /** Seated bots by position. */
  readonly seats: ReadonlyMap<number, SeatInPlay>;
  /** Seats that left the match before its end. */
  readonly departed: readonly SeatInPlay[];
  readonly handNumber: number;
  readonly voidedHands: readonly number[];
  /** The hand in play, null between hands. */
  readonly hand: HandState | null;
}

/** What anyone may see of a table's config: the seed deals every card, so only the creator sees it. */
export function publicConfig(config: TableConfig): PublicTableConfig {
  const { seed: _seed, ...rest } = config;
  return rest;
}

/** A seeded table deals cards its creator can know in advance: only the creator's own bots play there. */
export function isSeeded(config: TableConfig): boolean {
  return config.seed !== undefined;
}
