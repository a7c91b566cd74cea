import { invariant } from "../../lib/assert";
import type { TableRuntime } from "../tables/runtime";

/**
 * Hand numbers are reserved this many at a time. A host that dies may have dealt (and shown) any
 * reserved number it had not recorded: the resume voids them all and says so (`match_resumed`
 * lists them), so a block bounds what a crash can take back. One fenced write per block is the
 * whole cost (two a second for a table playing 128 hands a second).
 */
export const RESERVATION_BLOCK = 64;

/** How often a table whose lease or reservation is not yet there looks again. */
const RECHECK_MS = 25;

/**
 * How long a hand waits for its number to be reserved, or a message for the lease to stand, before
 * the match stops with a DealStalledError. It stops resumable, with no write (the host drops the
 * table and takes its own tables up again once its database answers: MatchHost.resumeOwnTablesLater),
 * as after a restart: nothing dealt and unrecorded is dealt again. Ten times the lease's TTL: a peer
 * that reaches the database has long since taken the table over, and a node alone has been without
 * its database for a minute.
 */
export const DEAL_WAIT_LIMIT_MS = 60_000;

/** A hand could not be dealt, or its next message sent, within DEAL_WAIT_LIMIT_MS. */
export class DealStalledError extends Error {}

/** Where reservations are made durable: the journal (fenced by the lease), or memory for local play. */
export interface HandReservations {
  /**
   * Records, durably and only while this node's lease stands (else FencedError), that hand numbers
   * up to `through` may be dealt, with the match's voided numbers; then sets `table.handsReserved`.
   */
  reserveHands(table: TableRuntime, through: number): Promise<void>;
}

/**
 * The two rules a host obeys before any card of a hand reaches anyone:
 * - **No deck is ever dealt twice.** Hand n is dealt only once n is reserved durably; a resume
 *   deals from after the last reserved number (see resume.ts), whatever died when.
 * - **No dealing without a lease.** Dealing and every message of the hand in play wait while the
 *   lease is not provably current (see LeaseKeeper.standing): a node cut off from its database
 *   stops within one action, seconds before a peer may take its tables over.
 * The next block is reserved while the current one still has half its numbers left, so a table
 * that is not cut off never waits for it.
 */
export class DealGuard {
  private reserving: Promise<void> | null = null;
  private failure: unknown = null;

  constructor(
    private readonly table: TableRuntime,
    private readonly reservations: HandReservations,
    private readonly leaseStanding: () => boolean = () => true,
    private readonly waitLimitMs = DEAL_WAIT_LIMIT_MS,
  ) {}

  /** Resolves when hand `handNumber` may be dealt; throws when the table must stop instead. */
  async beforeDeal(handNumber: number): Promise<void> {
    const { table } = this;
    if (this.failure) throw this.failure;
    if (handNumber + RESERVATION_BLOCK / 2 > table.handsReserved) this.reserveNextBlock(handNumber);
    const deadline = performance.now() + this.waitLimitMs;
    while (handNumber > table.handsReserved) {
      this.throwIfPast(deadline, `hand ${handNumber}'s number to be reserved`);
      await Promise.race([this.reserving, Bun.sleep(RECHECK_MS)]);
      this.throwIfStopped();
      if (handNumber > table.handsReserved && this.reserving === null) this.reserveNextBlock(handNumber);
    }
    await this.standing();
    invariant(handNumber <= table.handsReserved && this.leaseStanding(), `table ${table.tableId}: hand ${handNumber} is dealt only reserved and under a standing lease`);
  }

  /** Before each message of the hand in play: nothing while the lease is not provably current. */
  standing(): Promise<void> | undefined {
    if (this.leaseStanding()) return undefined;
    return this.waitForLease();
  }

  private async waitForLease(): Promise<void> {
    const deadline = performance.now() + this.waitLimitMs;
    while (!this.leaseStanding()) {
      this.throwIfStopped();
      this.throwIfPast(deadline, "this node's lease to stand");
      await Bun.sleep(RECHECK_MS);
    }
  }

  private reserveNextBlock(handNumber: number): void {
    if (this.reserving) return;
    // A block of new numbers: after those reserved already, from this hand on.
    const through = Math.max(handNumber - 1, this.table.handsReserved) + RESERVATION_BLOCK;
    this.reserving = this.reservations.reserveHands(this.table, through).then(
      () => {
        this.reserving = null;
      },
      (error) => {
        this.failure = error;
        this.reserving = null;
      },
    );
  }

  private throwIfPast(deadline: number, what: string): void {
    if (performance.now() <= deadline) return;
    throw new DealStalledError(`table ${this.table.tableId}: waited ${this.waitLimitMs / 1000} s for ${what} (is the database reachable?): the match stops`);
  }

  private throwIfStopped(): void {
    if (this.failure) throw this.failure;
    if (this.table.stopRequested) throw new Error("the server is shutting down");
  }
}
