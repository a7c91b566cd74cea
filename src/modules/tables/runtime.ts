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

/** One bot's seat at a table, as the hosting process sees it: read-only; its table (TableRuntime) changes it. */
export interface SeatRuntime {
  /** The seat's key (seats.seq), which its ledger rows name. */
  readonly seatId: number;
  readonly position: number;
  readonly botId: string;
  readonly developerId: string;
  /** null: a remote bot over WebSocket, or a hosted bot (codeVersion set). */
  readonly strategy: BuiltInStrategy | null;
  /**
   * The hosted bot's code version this match plays (pinned at match start, seats.code_version);
   * null: a built-in, a remote bot, or no match yet.
   */
  readonly codeVersion: number | null;
  readonly buyIn: number;
  readonly chips: number;
  /** Asked to leave during the match: folds from now on, removed after the current hand. */
  readonly leaving: boolean;
  readonly handsPlayed: number;
  readonly handsWon: number;
  /** Extra thinking time beyond the per-action timeout (remote bots). */
  readonly timeBankMs: number;
}

/** A seat that left the match before its end, with what it cashed out. */
export interface DepartedSeat extends SeatRuntime {
  readonly finalChips: number;
}

/** A bot just seated with its buy-in, nothing played yet (its table takes it: TableRuntime.seat). */
export function newSeatRuntime(
  seat: Omit<SeatRuntime, "leaving" | "handsPlayed" | "handsWon" | "codeVersion"> & { leaving?: boolean; codeVersion?: number | null },
): SeatRuntime {
  return { leaving: false, codeVersion: null, ...seat, handsPlayed: 0, handsWon: 0 };
}


/** A seat as its table holds it: the table alone changes it. */
type SeatState = { -readonly [K in keyof SeatRuntime]: SeatRuntime[K] };

/** What a match's recorded rows say when a node resumes it (match-host/resume.ts). */
export interface MatchResumption {
  matchId: string;
  twinMatchId: string | null;
  startedAt: number;
  deckSecret: string | null;
  deckCommitment: string | null;
  handsReserved: number;
  /** Seats that left or busted during the match, cashed out then. */
  departed: DepartedSeat[];
  /** The recorded hands in order: their button, who played at which seat, who won a pot. */
  recorded: ReadonlyArray<{ button: number; players: ReadonlyArray<{ botId: string; seat: number }>; winners: ReadonlySet<number> }>;
}

/**
 * A table's live state on the node that hosts it, and its one writer: everyone else reads it
 * (the compiler enforces it) and says what happened through a method, which keeps the table's
 * invariants. Its status is the lifecycle's (table-machine.ts) alone, through `readAs`.
 */
export class TableRuntime {
  #twin: TwinLink | null;
  #status: TableStatus = "waiting";
  #matchId: string | null = null;
  #startedAt: number | null = null;
  readonly #seats = new Map<number, SeatState>();
  readonly #reserved = new Set<number>();
  readonly #departed: DepartedSeat[] = [];
  #handNumber = 0;
  #hand: HandState | null = null;
  #buttonPosition: number | null = null;
  #stopRequested = false;
  #deckSecret: string | null = null;
  #deckCommitment: string | null = null;
  #voidedHands: number[] = [];
  #voidedAtResume: number[] = [];
  #handsReserved = 0;

  /** A table before its match: no seats yet, nothing played. `ladder`: the format of a table the ladder made. */
  constructor(
    readonly tableId: string,
    readonly createdBy: string,
    readonly createdAt: Date,
    readonly config: TableConfig,
    readonly ladder: LadderFormat | null = null,
    twin: TwinLink | null = null,
  ) {
    this.#twin = twin;
  }

  /** A copy of a duplicate pair: its twin (null for every other table). */
  get twin(): Readonly<TwinLink> | null { return this.#twin; }
  get status(): TableStatus { return this.#status; }
  get matchId(): string | null { return this.#matchId; }
  get startedAt(): number | null { return this.#startedAt; }
  /** Seated bots by position. */
  get seats(): ReadonlyMap<number, SeatRuntime> { return this.#seats; }
  /** Positions promised to joins whose buy-in is still in flight. */
  get reserved(): ReadonlySet<number> { return this.#reserved; }
  get departed(): readonly DepartedSeat[] { return this.#departed; }
  get handNumber(): number { return this.#handNumber; }
  /** The hand in play (for snapshots), null between hands. */
  get hand(): HandState | null { return this.#hand; }
  get buttonPosition(): number | null { return this.#buttonPosition; }
  /** Set at shutdown: the match stops at the next hand boundary and the table is aborted. */
  get stopRequested(): boolean { return this.#stopRequested; }
  /**
   * The running match's deck secret (hex; every deck derives from it and the hand number) and its
   * SHA-256, published at match start. Null for a seeded match and before the match.
   */
  get deckSecret(): string | null { return this.#deckSecret; }
  get deckCommitment(): string | null { return this.#deckCommitment; }
  /**
   * Hand numbers given up, ascending (read-only: replaced, never changed in place, by voidUnrecorded): a match resumed after its host died voids every number
   * its host had reserved and not recorded (dealt perhaps, and shown; never dealt again: see
   * deal-guard.ts). handNumber − voidedHands.length hands were played.
   */
  get voidedHands(): readonly number[] { return this.#voidedHands; }
  /** The numbers the resumption that started this run of the match voided (told in match_resumed). */
  get voidedAtResume(): readonly number[] { return this.#voidedAtResume; }
  /** Hand numbers up to this one are reserved durably: this host may deal them (deal-guard.ts). */
  get handsReserved(): number { return this.#handsReserved; }

  /** The lifecycle's alone (table-machine.ts `readAs`): each of its states says what the table reads as. */
  readAs(status: TableStatus): void {
    this.#status = status;
  }

  /** Promises a free position to a join whose buy-in is in flight (released by `release`, seated or not). */
  hold(position: number): void {
    invariant(this.#isFreePosition(position), `table ${this.tableId}: position ${position} is held only while free`);
    this.#reserved.add(position);
  }

  release(position: number): void {
    this.#reserved.delete(position);
  }

  /** A bot sits down (bought in, or resumed from its row) at a position of the table no one holds. */
  seat(seat: SeatRuntime): void {
    invariant(seat.position >= 0 && seat.position < this.config.maxPlayers && !this.#seats.has(seat.position), `table ${this.tableId}: seat ${seat.seatId} sits at a free position (${seat.position})`);
    invariant(Number.isInteger(seat.chips) && seat.chips >= 0, `table ${this.tableId}: seat ${seat.seatId} holds ${seat.chips} chips`);
    this.#seats.set(seat.position, seat as SeatState);
  }

  /** A seat leaves a table where no match is under way (its buy-in refunded): it is gone. */
  unseat(position: number): SeatRuntime {
    const seat = this.#seatAt(position);
    this.#seats.delete(position);
    return seat;
  }

  /** A seat leaves the match before its end (busted, or asked to leave) with what it holds. */
  depart(position: number): DepartedSeat {
    const seat = this.unseat(position);
    const departed = { ...seat, finalChips: seat.chips };
    this.#departed.push(departed);
    return departed;
  }

  /**
   * Asked to leave during the match: folds from now on, removed after the current hand. A seat
   * that busted meanwhile (the leave awaited its row) has left already: nothing to mark.
   */
  markLeaving(seat: SeatRuntime): void {
    if (this.#seats.get(seat.position) === seat) this.#seats.get(seat.position)!.leaving = true;
  }

  /** The hosted code version the match plays for this seat (null: none). */
  setCodeVersion(position: number, version: number | null): void {
    this.#seatAt(position).codeVersion = version;
  }

  /** The seat's time bank after its turn (seats/rules.ts `timeBankAfter`). */
  spendTimeBank(position: number, timeBankMs: number): void {
    invariant(timeBankMs >= 0, `table ${this.tableId}: a time bank is never negative (${timeBankMs})`);
    this.#seatAt(position).timeBankMs = timeBankMs;
  }

  /** The seat's stack after a hand it played, and whether it won a pot of it. */
  settleHand(position: number, chips: number, won: boolean): void {
    const seat = this.#seatAt(position);
    invariant(Number.isInteger(chips) && chips >= 0, `table ${this.tableId}: seat ${seat.seatId} cannot hold ${chips} chips`);
    seat.chips = chips;
    seat.handsPlayed += 1;
    if (won) seat.handsWon += 1;
  }

  /** A new match begins here (a resumed one keeps its id: `resumeFrom`). */
  beginMatch(matchId: string, startedAt: number): void {
    invariant(this.#matchId === null, `table ${this.tableId}: one match per table (it has ${this.#matchId})`);
    this.#matchId = matchId;
    this.#startedAt = startedAt;
  }

  /** The twin copy's match id, drawn with this one's (twins.ts). */
  linkTwinMatch(matchId: string | null): void {
    invariant(this.#twin !== null, `table ${this.tableId} has no twin`);
    this.#twin.matchId = matchId;
  }

  /** The deck secret the match commits to before its first hand; once. */
  commitToDeck(secret: string, commitment: string): void {
    invariant(this.#deckSecret === null, `table ${this.tableId}: a match commits to one deck`);
    this.#deckSecret = secret;
    this.#deckCommitment = commitment;
  }

  /** Hand numbers up to `through` are reserved durably (deal-guard.ts): reservations only grow. */
  reservedThrough(through: number): void {
    this.#handsReserved = Math.max(this.#handsReserved, through);
  }

  /** The next hand is dealt with the button at `button`: returns its number (numbers only grow). */
  dealNext(button: number): number {
    invariant(this.#seats.has(button), `table ${this.tableId}: the button (${button}) is at a seated bot`);
    this.#buttonPosition = button;
    this.#handNumber += 1;
    return this.#handNumber;
  }

  /** The hand just dealt is in play (the previous one, if any, is over). */
  handInPlay(state: HandState): void {
    invariant(this.#hand === null || this.#hand.finished, `table ${this.tableId}: one hand in play at a time`);
    this.#hand = state;
  }

  handOver(): void {
    this.#hand = null;
  }

  /** Shutdown, or the lease lost: the match stops at its next hand boundary. */
  requestStop(): void {
    this.#stopRequested = true;
  }

  /** A match resumed from its rows (its host died or restarted): same match, stacks after its last recorded hand. */
  resumeFrom(resumed: MatchResumption): void {
    invariant(this.#matchId === null && this.#departed.length === 0, `table ${this.tableId}: a match resumes at a table rebuilt from its rows`);
    this.#matchId = resumed.matchId;
    if (this.#twin) this.#twin.matchId = resumed.twinMatchId;
    this.#startedAt = resumed.startedAt;
    this.#deckSecret = resumed.deckSecret;
    this.#deckCommitment = resumed.deckCommitment;
    this.#departed.push(...resumed.departed);
    const players = new Map([...this.#seats.values(), ...(this.#departed as SeatState[])].map((s) => [s.botId, s]));
    for (const hand of resumed.recorded) {
      for (const p of hand.players) {
        const seat = players.get(p.botId);
        if (!seat) continue;
        seat.handsPlayed += 1;
        if (hand.winners.has(p.seat)) seat.handsWon += 1;
      }
    }
    this.#buttonPosition = resumed.recorded.at(-1)?.button ?? null;
    this.#handsReserved = resumed.handsReserved;
  }

  /** The match goes on after hand `handNumber`: every number up to it that was not recorded is void. */
  voidUnrecorded(recorded: readonly number[], handNumber: number): void {
    invariant(handNumber >= this.#handNumber, `table ${this.tableId}: a hand number only grows (${this.#handNumber} to ${handNumber})`);
    const recordedNumbers = new Set(recorded);
    const lastRecorded = recorded.at(-1) ?? 0;
    this.#handNumber = handNumber;
    this.#handsReserved = Math.max(this.#handsReserved, handNumber);
    this.#voidedHands = [];
    for (let n = 1; n <= handNumber; n++) if (!recordedNumbers.has(n)) this.#voidedHands.push(n);
    this.#voidedAtResume = this.#voidedHands.filter((n) => n > lastRecorded);
  }

  /** Copy 2 of a resumed pair moves its button as copy 1's does (resume.ts `alignTwins`). */
  followButton(buttonPosition: number | null): void {
    this.#buttonPosition = buttonPosition;
  }

  #seatAt(position: number): SeatState {
    const seat = this.#seats.get(position);
    invariant(seat !== undefined, `table ${this.tableId}: no seat at position ${position}`);
    return seat;
  }

  #isFreePosition(position: number): boolean {
    return position >= 0 && position < this.config.maxPlayers && !this.#seats.has(position) && !this.#reserved.has(position);
  }
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
