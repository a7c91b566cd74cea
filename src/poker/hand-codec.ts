/**
 * Hands in a few bytes each. The engine is deterministic: a hand is fully determined by the seats
 * in play with their starting stacks, the button, the blinds, the deck and the sequence of
 * decisions. The match knows the blinds and who sits where; the deck is a function of the match's
 * deck secret and the hand number (fair-deck.ts); the stacks and the button of a hand follow from
 * the hand before it. What is left to store is the decisions: one byte for a fold, a check or call,
 * a minimum raise or an all-in raise, and a varint more for any other raise. Decoding replays the
 * engine, so it rebuilds the very record the hand was served as (hand-record.ts).
 *
 * A chunk holds consecutive hands of one match (numbers first … last, no gap):
 *
 *     chunk  := version(1) flags  hand*
 *     hand   := [START button n (seat stack)×n] (LEAVE seat)* [cards] decision*
 *     cards  := hole×2n board-count board×count          (only with flags & EXPLICIT_CARDS)
 *     stack  := unsigned LEB128 varint
 *
 * The first hand of a chunk starts with START; a later hand only when its seats, stacks or button
 * are not the ones the previous hand leads to (players with chips left, the button moved to the
 * next of them): a seat that left between hands (with chips) is a LEAVE. Decisions are read until
 * the engine says the hand is over, so no length is stored. Cards are stored (a byte each) only
 * for matches whose decks are not derived from a secret: seeded matches, and matches older than
 * the deck commitments. A change to the engine's rules that changes any outcome must come with a
 * new version and keep decoding the old one.
 */
import { fullDeck, type Card } from "@poker-bots/core/cards";
import { invariant } from "../lib/assert.ts";
import { applyActionInPlace, legalActions, startHand } from "./hand.ts";
import type { HandConfig, HandState, PlayerAction } from "./hand-types.ts";
import { storedHandOf, type StoredHand } from "./hand-record.ts";
import { cardsDealtAtMost } from "./start-validation.ts";
import { blindsAt, type BlindLevel } from "./blind-levels.ts";

export const HAND_CODEC_VERSION = 1;
/** flags: every hand carries its dealt cards (no deck secret to derive them from). */
export const EXPLICIT_CARDS = 1;

const FOLD = 0x00;
const PASSIVE = 0x01; // check, or call
const MIN_RAISE = 0x02;
const ALL_IN = 0x03;
const RAISE_BY = 0x04; // raise to the minimum + varint
const START = 0xf0;
const LEAVE = 0xf1;

/**
 * What a match says of all its hands: the blinds (with `blindLevels`, hand n's are the schedule's
 * at n: blind-levels.ts; the bytes are version 1's either way), and whether each hand carries its cards.
 */
export interface ChunkFormat {
  smallBlind: number;
  bigBlind: number;
  blindLevels?: BlindLevel[];
  explicitCards: boolean;
}

/** What decoding needs besides the bytes: the match's blinds, its bots by seat and its decks. */
export interface DecodeContext {
  smallBlind: number;
  bigBlind: number;
  /** Rising blinds: hand n is decoded at the schedule's blinds for n (blind-levels.ts `blindsAt`). */
  blindLevels?: BlindLevel[];
  botAt(seat: number): string;
  /** The deck of a hand (its first `cardsNeeded` cards are dealt); unused for a chunk with EXPLICIT_CARDS. */
  deckOf(handNumber: number, cardsNeeded: number): Card[];
}

/** A hand this format cannot hold (another config, an impossible decision): keep it in its old form. */
export class NotEncodable extends Error {}

interface SeatStart {
  seat: number;
  stack: number;
}

/** Where the next hand starts if nothing unusual happened: the last hand's players with chips, and its button. */
interface Prediction {
  seats: SeatStart[];
  button: number;
}

/** The button's next seat: the first seat in play clockwise after the last button (match.ts `nextButton`). */
function nextButtonAmong(seats: SeatStart[], previous: number): number {
  for (const { seat } of seats) if (seat > previous) return seat;
  return seats[0].seat;
}

function predictionAfter(players: StoredHand["players"], button: number): Prediction {
  return { seats: players.filter((p) => p.finalStack > 0).map((p) => ({ seat: p.seat, stack: p.finalStack })), button };
}

/** The standard config of a hand at these blinds, as startHand builds it without antes. */
function isStandardConfig(config: HandConfig, players: number, smallBlind: number, bigBlind: number): boolean {
  return (
    config.smallBlind === smallBlind &&
    config.bigBlind === bigBlind &&
    config.minBet === bigBlind &&
    config.anteTrimming === true &&
    config.antes.length === players &&
    config.antes.every((ante) => ante === 0)
  );
}

class ByteWriter {
  private buffer = new Uint8Array(256);
  length = 0;

  byte(value: number): void {
    if (this.length === this.buffer.length) {
      const grown = new Uint8Array(this.buffer.length * 2);
      grown.set(this.buffer);
      this.buffer = grown;
    }
    this.buffer[this.length++] = value;
  }

  varint(value: number): void {
    invariant(Number.isSafeInteger(value) && value >= 0, `varint of ${value}`);
    while (value >= 0x80) {
      this.byte((value % 0x80) | 0x80);
      value = Math.floor(value / 0x80);
    }
    this.byte(value);
  }

  copy(): Uint8Array {
    return this.buffer.slice(0, this.length);
  }
}

/**
 * Appends hands, in number order, to one chunk. The journal keeps one per table while it plays;
 * `bytes()` is what a row holds at any moment (every hand appended so far).
 */
export class ChunkWriter {
  private readonly out = new ByteWriter();
  private prediction: Prediction | null = null;
  /** Numbers of the first and last hands appended (0: none yet). */
  first = 0;
  last = 0;

  constructor(private readonly format: ChunkFormat) {
    this.out.byte(HAND_CODEC_VERSION);
    this.out.byte(format.explicitCards ? EXPLICIT_CARDS : 0);
  }

  get byteLength(): number {
    return this.out.length;
  }

  get handCount(): number {
    return this.first === 0 ? 0 : this.last - this.first + 1;
  }

  bytes(): Uint8Array {
    return this.out.copy();
  }

  /** Appends the next hand; throws NotEncodable (and appends nothing) when this format cannot hold it. */
  append(hand: StoredHand): void {
    if (this.first !== 0 && hand.handNumber !== this.last + 1) throw new NotEncodable(`hand ${hand.handNumber} does not follow hand ${this.last}`);
    const staged = new ByteWriter();
    encodeHand(staged, hand, this.format, this.prediction);
    for (let i = 0, bytes = staged.copy(); i < bytes.length; i++) this.out.byte(bytes[i]);
    if (this.first === 0) this.first = hand.handNumber;
    this.last = hand.handNumber;
    this.prediction = predictionAfter(hand.players, hand.button);
  }
}

function encodeHand(out: ByteWriter, hand: StoredHand, format: ChunkFormat, prediction: Prediction | null): void {
  const n = hand.players.length;
  const { smallBlind, bigBlind } = blindsAt(format, hand.handNumber);
  if (!isStandardConfig(hand.config, n, smallBlind, bigBlind) || hand.smallBlind !== smallBlind || hand.bigBlind !== bigBlind) {
    throw new NotEncodable(`hand ${hand.handNumber} was played at other blinds or rules than its match's`);
  }
  encodeStart(out, hand, prediction);
  if (format.explicitCards) encodeCards(out, hand);
  encodeDecisions(out, hand);
}

/** START when the seats, stacks or button are not the predicted ones; else a LEAVE per seat that left with chips. */
function encodeStart(out: ByteWriter, hand: StoredHand, prediction: Prediction | null): void {
  const actual = hand.players.map((p) => ({ seat: p.seat, stack: p.startingStack }));
  const left = prediction ? prediction.seats.filter((s) => !actual.some((a) => a.seat === s.seat)) : [];
  const derivable =
    prediction !== null &&
    actual.length > 0 &&
    actual.every((a) => prediction.seats.some((s) => s.seat === a.seat && s.stack === a.stack)) &&
    nextButtonAmong(actual, prediction.button) === hand.button;
  if (derivable) {
    for (const seat of left) {
      out.byte(LEAVE);
      out.byte(seat.seat);
    }
    return;
  }
  out.byte(START);
  out.byte(hand.button);
  out.byte(actual.length);
  for (const { seat, stack } of actual) {
    out.byte(seat);
    out.varint(stack);
  }
}

function encodeCards(out: ByteWriter, hand: StoredHand): void {
  const holes = new Map<number, number[]>();
  for (const event of hand.events) if (event.type === "hole_cards") holes.set(event.seat, event.cards);
  for (const player of hand.players) {
    const cards = holes.get(player.seat);
    if (!cards || cards.length !== 2 || cards.some((c) => !(c >= 0 && c < 52))) throw new NotEncodable(`hand ${hand.handNumber}: seat ${player.seat}'s hole cards are not known`);
    out.byte(cards[0]);
    out.byte(cards[1]);
  }
  out.byte(hand.board.length);
  for (const card of hand.board) out.byte(card);
}

/** The decisions, read off the events: the raise bounds are tracked as the engine does (hand.ts `minRaiseTo`). */
function encodeDecisions(out: ByteWriter, hand: StoredHand): void {
  let currentBet = hand.config.bigBlind;
  let lastFullRaise = hand.config.minBet;
  for (const event of hand.events) {
    if (event.type === "street") {
      currentBet = 0;
      lastFullRaise = hand.config.minBet;
    } else if (event.type === "action") {
      if (event.action === "fold") out.byte(FOLD);
      else if (event.action !== "raise") out.byte(PASSIVE);
      else {
        const minimum = currentBet + lastFullRaise;
        if (event.allIn) out.byte(ALL_IN);
        else if (event.amount === minimum) out.byte(MIN_RAISE);
        else if (event.amount > minimum) {
          out.byte(RAISE_BY);
          out.varint(event.amount - minimum);
        } else throw new NotEncodable(`hand ${hand.handNumber}: a raise to ${event.amount} below the minimum ${minimum}`);
        if (event.amount - currentBet >= lastFullRaise) lastFullRaise = event.amount - currentBet;
        currentBet = event.amount;
      }
    }
  }
}

class ByteReader {
  position = 0;
  constructor(private readonly bytes: Uint8Array) {}

  get done(): boolean {
    return this.position >= this.bytes.length;
  }

  peek(): number {
    return this.position < this.bytes.length ? this.bytes[this.position] : -1;
  }

  byte(): number {
    if (this.position >= this.bytes.length) throw new Error("hand chunk ends too early");
    return this.bytes[this.position++];
  }

  varint(): number {
    let value = 0;
    for (let scale = 1; ; scale *= 0x80) {
      const b = this.byte();
      value += (b & 0x7f) * scale;
      if (b < 0x80) return value;
      if (scale > 2 ** 42) throw new Error("hand chunk holds an oversized number");
    }
  }
}

/** The deck a hand with these cards was dealt from (hand.ts deals hole cards round-robin from the button's left, then burn and turn). */
function deckOfCards(n: number, button: number, holes: Card[], board: Card[]): Card[] {
  const deck = new Array<number>(cardsDealtAtMost(n)).fill(-1);
  for (let p = 0; p < n; p++) {
    const order = (p - button - 1 + 2 * n) % n;
    deck[order] = holes[2 * p];
    deck[n + order] = holes[2 * p + 1];
  }
  const slots = [1, 2, 3, 5, 7];
  board.forEach((card, i) => (deck[2 * n + slots[i]] = card));
  const used = new Set(deck.filter((c) => c >= 0));
  const unused = fullDeck().filter((c) => !used.has(c));
  return deck.map((c) => (c >= 0 ? c : unused.shift()!));
}

function decisionOf(op: number, reader: ByteReader, state: HandState): PlayerAction {
  switch (op) {
    case FOLD:
      return { type: "fold" };
    case PASSIVE:
      return { type: "call" };
    case MIN_RAISE:
      return { type: "raise", amount: state.currentBet + state.lastFullRaise };
    case ALL_IN:
      return { type: "raise", amount: legalActions(state)!.maxRaiseTo };
    case RAISE_BY:
      return { type: "raise", amount: state.currentBet + state.lastFullRaise + reader.varint() };
    default:
      throw new Error(`hand chunk: unknown decision byte ${op}`);
  }
}

/** Hands first … last of a chunk, each rebuilt as it was recorded. Throws on any byte that does not fit. */
export function decodeChunk(bytes: Uint8Array, first: number, last: number, context: DecodeContext): StoredHand[] {
  const reader = new ByteReader(bytes);
  const version = reader.byte();
  if (version !== HAND_CODEC_VERSION) throw new Error(`hand chunk version ${version} is not known here`);
  const explicitCards = (reader.byte() & EXPLICIT_CARDS) !== 0;
  const hands: StoredHand[] = [];
  let prediction: Prediction | null = null;
  for (let handNumber = first; handNumber <= last; handNumber++) {
    let seats: SeatStart[];
    let button: number;
    if (reader.peek() === START) {
      reader.byte();
      button = reader.byte();
      seats = Array.from({ length: reader.byte() }, () => ({ seat: reader.byte(), stack: reader.varint() }));
    } else {
      if (!prediction) throw new Error(`hand chunk: hand ${handNumber} has no start`);
      const left = new Set<number>();
      while (reader.peek() === LEAVE) {
        reader.byte();
        left.add(reader.byte());
      }
      seats = prediction.seats.filter((s) => !left.has(s.seat));
      if (seats.length < 2) throw new Error(`hand chunk: hand ${handNumber} has fewer than two players`);
      button = nextButtonAmong(seats, prediction.button);
    }
    const n = seats.length;
    let deck: Card[];
    if (explicitCards) {
      const holes = Array.from({ length: 2 * n }, () => reader.byte());
      const board = Array.from({ length: reader.byte() }, () => reader.byte());
      deck = deckOfCards(n, seats.findIndex((s) => s.seat === button), holes, board);
    } else deck = context.deckOf(handNumber, cardsDealtAtMost(n));
    const state = startHand({ seats: seats.map((s) => ({ seatIndex: s.seat, stack: s.stack })), buttonSeatIndex: button, ...blindsAt(context, handNumber), deck });
    while (!state.finished) {
      const applied = applyActionInPlace(state, decisionOf(reader.byte(), reader, state));
      if (!applied.ok) throw new Error(`hand chunk: hand ${handNumber}: ${applied.reason}`);
    }
    const hand = storedHandOf(handNumber, state, (p) => context.botAt(state.seats[p]));
    hands.push(hand);
    prediction = predictionAfter(hand.players, hand.button);
  }
  if (!reader.done) throw new Error(`hand chunk: ${bytes.length - reader.position} bytes after hand ${last}`);
  return hands;
}

/** A chunk ready to store: hands first … last. */
export interface EncodedChunk {
  first: number;
  last: number;
  bytes: Uint8Array;
}

/**
 * Hands in number order as chunks: a new chunk at each gap in the numbers (voided hands) and
 * once a chunk holds `maxBytes`. Throws NotEncodable when one of them cannot be held.
 */
export function encodeChunks(hands: StoredHand[], format: ChunkFormat, maxBytes: number): EncodedChunk[] {
  const chunks: EncodedChunk[] = [];
  let writer: ChunkWriter | null = null;
  const close = () => {
    if (writer && writer.handCount > 0) chunks.push({ first: writer.first, last: writer.last, bytes: writer.bytes() });
    writer = null;
  };
  for (const hand of hands) {
    if (writer !== null && (writer.byteLength >= maxBytes || hand.handNumber !== writer.last + 1)) close();
    writer ??= new ChunkWriter(format);
    writer.append(hand);
  }
  close();
  return chunks;
}
