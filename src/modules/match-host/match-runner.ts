import type { Clock } from "../../lib/clock";
import { invariant, invariantViolated } from "../../lib/assert";
import { newId } from "../../lib/ids";
import { applyActionInPlace, legalActions, startHand } from "../../poker/hand";
import type { HandState, LegalActions } from "../../poker/hand-types";
import { nextButton } from "../../poker/match";
import type { Rng } from "@poker-bots/core/rng";
import type { Card } from "@poker-bots/core/cards";
import type { MatchEndedMessage } from "@poker-bots/protocol";
import type { ServerMessage } from "../protocol/gateway";
import type { Spectators } from "../protocol/spectators";
import {
  handEndedMessage,
  handStartedMessage,
  matchResumedMessage,
  matchStartedMessage,
  publicEventMessage,
} from "../protocol/messages";
import type { HandRecord, MatchOutcome, MatchPlayerRecord, SeatClosure } from "./persistence";
import { handHistory } from "./hand-history";
import { chipsAfterHand, handStartingStack, leavesBetweenHands, resetStacksMatchOver } from "./reset-stacks";
import { assertCashout, chipsOnTable, handsPlayedAt, isSeeded, seatsInOrder, type SeatRuntime, type TableRuntime } from "../tables/runtime";
import { actionRequestMessage } from "../protocol/messages";
import { decide } from "../seats/decide";
import { builtInSeat } from "../seats/built-in";
import type { AskedSeats, Seat, Turn } from "../seats/model";
import { DealGuard, type HandReservations } from "./deal-guard";
import { blindsAt } from "../../poker/blind-levels";

/** Where a match's hands and its end are written (the database, or memory for local play). */
export interface MatchStore extends HandReservations {
  /** New matches' rows (one transaction), with their first block of hand numbers reserved (table.handsReserved). */
  started(...tables: TableRuntime[]): Promise<void>;
  record(tableId: string, matchId: string, hand: HandRecord | null, stacks: Map<number, number>, closures: SeatClosure[]): void;
  /** A write failed: the match must stop. */
  failureOf(tableId: string): unknown;
  /** Resolves when the unwritten hands (this table's, and all of them) are few enough to play on. */
  backpressure(tableId: string): Promise<void>;
  finish(outcome: MatchOutcome): Promise<void>;
}


export interface MatchDeps {
  clock: Clock;
  /** Built-in bots' random decisions (deals.ts `builtInRng`). */
  rng: Rng;
  /** The deck of a hand by its number: a pure function of the match's secret or seed (deals.ts `dealSource`). */
  deckFor: (handNumber: number, cardsNeeded: number) => Card[];
  /**
   * Whether the match was started before (its host died or restarted: same matchId, match_resumed);
   * default: whether the table has a match. A new match whose row its caller recorded already (the
   * two copies of a duplicate pair start together: twins.ts) is not resuming, and has its matchId.
   */
  resuming?: boolean;
  store: MatchStore;
  /** The seats that are not built in (remote, hosted) and the rules they are asked under (seats/decide.ts). */
  askBot: AskedSeats;
  /** Delivers a protocol message to a bot that is not a built-in. */
  notify: (botId: string, message: ServerMessage) => void;
  /** People watching tables: they get every public message (never hole cards before showdown). */
  spectators?: Spectators;
  /** Called after every hand (progress, tests); must not throw. */
  onHandFinished?: (table: TableRuntime, hand: HandState) => void;
  /**
   * Awaited after the last hand, before the match end is written: a hosted match's contexts finish
   * what they were told of the last hand and their lines are written, so a completed match's logs
   * are whole when anyone reads them. Must not throw.
   */
  beforeFinish?: () => Promise<void>;
  /** Whether this node's lease provably stands (absent: no lease, local play): see deal-guard.ts. */
  leaseStanding?: () => boolean;
  /**
   * The match's record is written: the table's lifecycle hears it (tables/table-machine.ts
   * MATCH_RECORDED), so the table reads as finished from now on. Absent in local play, which has no lifecycle.
   */
  recorded?: () => void;
}

const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * The imperative shell around the pure engine: plays hands until one bot holds every chip or
 * maxHands, asks each seat's bot for its actions, and hands completed hands to the writer.
 */
export async function playMatch(table: TableRuntime, deps: MatchDeps): Promise<void> {
  // A table that already has its match is resuming it (its host died or restarted): same matchId.
  const resuming = deps.resuming ?? table.matchId !== null;
  if (!resuming && table.matchId === null) {
    table.beginMatch(newId("m", deps.clock.now()), deps.clock.now());
    await deps.store.started(table);
  }
  const matchId = table.matchId!;
  const store = deps.store;
  const record = (hand: HandRecord | null, stacks: Map<number, number>, closures: SeatClosure[]) =>
    store.record(table.tableId, matchId, hand, stacks, closures);
  const totalChips = chipsOnTable(table);
  const guard = new DealGuard(table, store, deps.leaseStanding);
  const seatOf = seatKinds(deps);
  // Nothing about the match reaches anyone while the lease is in doubt (a resume happens just after a claim).
  await guard.standing();
  const announce = (position: number | null) =>
    resuming ? matchResumedMessage(table, position, handsPlayedAt(table), [...table.voidedAtResume]) : matchStartedMessage(table, position);
  for (const seat of seatsInOrder(table)) {
    if (seat.strategy === null) deps.notify(seat.botId, announce(seat.position));
  }
  deps.spectators?.send(table.tableId, announce(null));

  while (handsPlayedAt(table) < table.config.maxHands) {
    if (table.stopRequested) throw new Error("the server is shutting down");
    if (resetStacksMatchOver(table)) break;
    const departing = removeSeats(table, (s) => s.leaving || s.chips === 0);
    if (departing.length > 0) record(null, new Map(), departing);
    const inPlay = seatsInOrder(table);
    if (inPlay.length < 2) break;
    const { hand, waited } = await playHand(table, inPlay, deps, guard, seatOf);
    settleHand(table, inPlay, hand);
    const stacks = new Map(seatsInOrder(table).map((s) => [s.seatId, s.chips]));
    const closures = removeSeats(table, (s) => leavesBetweenHands(table, s));
    record(
      { number: table.handNumber, history: handHistory(table, inPlay, hand), explicitCards: table.deckSecret === null, ...(table.config.blindLevels ? { blindLevels: table.config.blindLevels } : {}) },
      stacks,
      closures,
    );
    invariant(
      chipsOnTable(table) + table.departed.reduce((sum, s) => sum + s.finalChips, 0) === totalChips,
      `table ${table.tableId}: chips must be conserved across hands`,
    );
    deps.onHandFinished?.(table, hand);
    const failure = store.failureOf(table.tableId);
    if (failure) throw failure;
    await store.backpressure(table.tableId);
    // A hand that waited on a remote bot has let the event loop run already (yielding again would
    // only delay its table's next request); a hand of built-ins yields here so it starves no one.
    if (!waited) await yieldToEventLoop();
  }

  table.handOver();
  await deps.beforeFinish?.();
  const endedAt = deps.clock.now();
  const stillSeated = seatsInOrder(table);
  const players: MatchPlayerRecord[] = [
    ...table.departed.map((s) => playerRecord(s, s.finalChips)),
    ...stillSeated.map((s) => playerRecord(s, s.chips)),
  ];
  await store.finish({
    matchId,
    tableId: table.tableId,
    handsPlayed: handsPlayedAt(table),
    voidedHands: [...table.voidedHands],
    deckSecret: table.deckSecret,
    startedAt: new Date(table.startedAt!),
    endedAt: new Date(endedAt),
    players,
    finalClosures: stillSeated.map(closureOf),
    ranked: !isSeeded(table.config),
    // A challenge (config.unrated) is counted (ranked) but never rated.
    rated: !isSeeded(table.config) && table.config.unrated !== true && new Set(players.map((p) => p.developerId)).size > 1,
    twinMatchId: table.twin?.matchId ?? null,
    holdSecret: table.config.dealRound !== undefined,
  });
  deps.recorded?.();
  const summary: MatchEndedMessage = {
    type: "match_ended",
    tableId: table.tableId,
    matchId,
    handsPlayed: handsPlayedAt(table),
    players: players.map((p) => ({ botId: p.botId, finalChips: p.finalChips, profit: p.finalChips - p.buyIn })),
  };
  for (const seat of [...table.departed, ...stillSeated]) if (seat.strategy === null) deps.notify(seat.botId, summary);
  deps.spectators?.send(table.tableId, summary);
}

function playerRecord(seat: SeatRuntime, finalChips: number): MatchPlayerRecord {
  return {
    botId: seat.botId,
    developerId: seat.developerId,
    position: seat.position,
    buyIn: seat.buyIn,
    finalChips,
    handsPlayed: seat.handsPlayed,
    handsWon: seat.handsWon,
    codeVersion: seat.codeVersion,
  };
}

function closureOf(seat: SeatRuntime): SeatClosure {
  return { seatId: seat.seatId, developerId: seat.developerId, botId: seat.botId, chips: seat.chips };
}

/** Busted seats (0 chips) and leavers leave the table; their cashouts go with the next write. */
function removeSeats(table: TableRuntime, shouldLeave: (seat: SeatRuntime) => boolean): SeatClosure[] {
  const closures: SeatClosure[] = [];
  for (const seat of seatsInOrder(table)) {
    if (!shouldLeave(seat)) continue;
    assertCashout(table, seat);
    table.depart(seat.position);
    closures.push(closureOf(seat));
  }
  return closures;
}

async function playHand(table: TableRuntime, inPlay: SeatRuntime[], deps: MatchDeps, guard: DealGuard, seatOf: (seat: SeatRuntime) => Seat): Promise<{ hand: HandState; waited: boolean }> {
  await guard.beforeDeal(table.handNumber + 1);
  const stacksBySeat = new Array<number>(table.config.maxPlayers).fill(0);
  for (const seat of inPlay) stacksBySeat[seat.position] = seat.chips;
  const button = nextButton(stacksBySeat, table.buttonPosition);
  table.dealNext(button);
  const state = startHand({
    seats: inPlay.map((s) => ({ seatIndex: s.position, stack: handStartingStack(table, s) })),
    buttonSeatIndex: button,
    // A sit-and-go's blinds rise by hand count (blind-levels.ts); any other table's are fixed.
    ...blindsAt(table.config, table.handNumber),
    deck: deps.deckFor(table.handNumber, 2 * inPlay.length + 8),
  });
  table.handInPlay(state);
  const remoteSeats = inPlay.filter((s) => s.strategy === null);
  const watched = deps.spectators?.watching(table.tableId) ?? false;
  const publish = (message: ServerMessage) => {
    for (const seat of remoteSeats) deps.notify(seat.botId, message);
    if (watched) deps.spectators!.send(table.tableId, message);
  };
  let broadcast = 0;
  const flushEvents = () => {
    if (remoteSeats.length === 0 && !watched) return;
    for (; broadcast < state.events.length; broadcast++) {
      const message = publicEventMessage(table, state.events[broadcast]);
      if (message) publish(message);
    }
  };
  for (let p = 0; p < inPlay.length; p++) {
    if (inPlay[p].strategy === null) deps.notify(inPlay[p].botId, handStartedMessage(table, state, p));
  }
  if (watched) deps.spectators!.send(table.tableId, handStartedMessage(table, state, null));
  flushEvents();
  let waited = false;
  while (!state.finished) {
    // No request and no news of the hand while the lease is in doubt (the usual answer: standing, no wait).
    const leaseInDoubt = guard.standing();
    if (leaseInDoubt) await leaseInDoubt;
    const legal = legalActions(state)!;
    const seat = table.seats.get(legal.actor)!;
    const asked = decide(seatOf(seat), turnOf(table, state, legal, seat), deps.askBot.rules);
    waited ||= asked instanceof Promise;
    const decided = asked instanceof Promise ? await asked : asked;
    table.spendTimeBank(seat.position, decided.timeBankMs);
    const applied = applyActionInPlace(state, decided.action);
    if (!applied.ok) invariantViolated(`seat ${seat.position} of table ${table.tableId}: decide() settles only legal actions (${applied.reason})`);
    const lapsedMeanwhile = guard.standing();
    if (lapsedMeanwhile) await lapsedMeanwhile;
    flushEvents();
  }
  if (remoteSeats.length > 0 || watched) publish(handEndedMessage(table, state));
  return { hand: state, waited };
}

/** Each seat's kind, made once per run of the match (a built-in's strategy draws from the match's rng). */
function seatKinds(deps: MatchDeps): (seat: SeatRuntime) => Seat {
  const kinds = new Map<SeatRuntime, Seat>();
  return (seat) => {
    let kind = kinds.get(seat);
    if (kind === undefined) {
      kind = seat.strategy !== null ? builtInSeat(seat.botId, seat.strategy, deps.rng) : deps.askBot.seat(seat.botId);
      kinds.set(seat, kind);
    }
    return kind;
  };
}

/** The seat's turn as decide() sees it: its table's clock settings, its bank, and the request it is sent. */
function turnOf(table: TableRuntime, state: HandState, legal: LegalActions, seat: SeatRuntime): Turn {
  return {
    state,
    legal,
    actionTimeoutMs: table.config.actionTimeoutMs,
    timeBankMs: seat.timeBankMs,
    leaving: () => seat.leaving,
    request: (requestId, deadlineMs) => actionRequestMessage(table, state, legal, requestId, deadlineMs, seat.timeBankMs),
  };
}

function settleHand(table: TableRuntime, inPlay: SeatRuntime[], hand: HandState): void {
  const result = hand.result!;
  const winners = new Set(result.pots.flatMap((pot) => pot.winners));
  inPlay.forEach((seat, p) => table.settleHand(seat.position, chipsAfterHand(table, seat, hand.startingStacks[p], result.stacks[p]), winners.has(seat.position)));
}
