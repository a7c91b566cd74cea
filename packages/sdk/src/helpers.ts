import { chenScore, describeHand, evaluateCards, handCategory, parseCard, seededRng, uniformInt } from "./strength.ts";
import type { Card } from "./messages.ts";

/** Chips to call ÷ (pot + chips to call): the equity a call needs to break even. 0 when checking is free. */
export function potOdds(state: { pot: number; toCall: number }): number {
  if (state.toCall <= 0) return 0;
  return state.toCall / (state.pot + state.toCall);
}

export interface HandStrength {
  /** Evaluator value (higher = better) of the best five of hole cards + board; null before the flop. */
  value: number | null;
  /** "high_card" … "straight_flush" (pre-flop: "one_pair" for a pocket pair, else "high_card"). */
  category: string;
  /** "pair of kings, A-9-4 kickers"; pre-flop: "pocket kings", "A-K suited". */
  description: string;
  /** Pre-flop starting-hand score, Chen formula (-1 … 20): ≥ 10 premium, ≥ 7 playable. */
  preflopScore: number | null;
}

const RANKS = "23456789TJQKA";
const RANK_WORDS = ["twos", "threes", "fours", "fives", "sixes", "sevens", "eights", "nines", "tens", "jacks", "queens", "kings", "aces"];

/** Chen formula score of two hole cards (see @poker-bots/core's chenScore). */
export function preflopScore(holeCards: readonly Card[]): number {
  const [a, b] = holeCards;
  return chenScore(RANKS.indexOf(a[0].toUpperCase()), RANKS.indexOf(b[0].toUpperCase()), a[1] === b[1]);
}

/** Made-hand strength through the project's evaluator. */
export function handStrength(state: { holeCards: readonly Card[]; board: readonly Card[] }): HandStrength {
  const { holeCards, board } = state;
  if (board.length < 3) {
    const [a, b] = holeCards;
    const ra = RANKS.indexOf(a[0].toUpperCase());
    const rb = RANKS.indexOf(b[0].toUpperCase());
    const pair = ra === rb;
    const [hi, lo] = ra >= rb ? [a[0], b[0]] : [b[0], a[0]];
    return {
      value: null,
      category: pair ? "one_pair" : "high_card",
      description: pair ? `pocket ${RANK_WORDS[ra]}` : `${hi.toUpperCase()}-${lo.toUpperCase()} ${a[1] === b[1] ? "suited" : "offsuit"}`,
      preflopScore: preflopScore(holeCards),
    };
  }
  const value = evaluateCards([...holeCards, ...board].map(parseCard));
  return { value, category: handCategory(value), description: describeHand(value), preflopScore: null };
}

export interface EquityOptions {
  /** Opponents holding random hands; default: the opponents still in the hand (at least 1). */
  opponents?: number;
  /** Monte-Carlo deals; default 1000 (about a millisecond per 1000 heads-up). */
  iterations?: number;
  /** Same seed, same answer. Default: derived from the cards and the hand number (deterministic). */
  seed?: string | number;
}

/**
 * Chance to win at showdown against `opponents` random hands (ties count as a share), by
 * Monte-Carlo over the unseen cards. 0..1.
 */
export function equity(
  state: { holeCards: readonly Card[]; board: readonly Card[]; handNumber?: number; opponents?: readonly unknown[] },
  options: EquityOptions = {},
): number {
  const opponents = Math.max(1, Math.min(9, options.opponents ?? Math.max(1, state.opponents?.length ?? 1)));
  const iterations = Math.max(1, options.iterations ?? 1000);
  const hole = state.holeCards.map(parseCard);
  const board = state.board.map(parseCard);
  const seen = new Set([...hole, ...board]);
  const deck: number[] = [];
  for (let c = 0; c < 52; c++) if (!seen.has(c)) deck.push(c);
  const rng = seededRng(options.seed ?? `${state.holeCards.join("")}|${state.board.join("")}|${state.handNumber ?? 0}|${opponents}`);
  const missing = 5 - board.length;
  const need = missing + 2 * opponents;
  const cards = new Array<number>(7);
  let won = 0;
  for (let it = 0; it < iterations; it++) {
    // Partial Fisher–Yates: the first `need` cards of the deck become a random draw.
    for (let i = 0; i < need; i++) {
      const j = i + uniformInt(rng, deck.length - i);
      const t = deck[i];
      deck[i] = deck[j];
      deck[j] = t;
    }
    for (let i = 0; i < board.length; i++) cards[2 + i] = board[i];
    for (let i = 0; i < missing; i++) cards[2 + board.length + i] = deck[i];
    cards[0] = hole[0];
    cards[1] = hole[1];
    const mine = evaluateCards(cards);
    let best = 0;
    let ties = 0;
    for (let o = 0; o < opponents; o++) {
      cards[0] = deck[missing + 2 * o];
      cards[1] = deck[missing + 2 * o + 1];
      const theirs = evaluateCards(cards);
      if (theirs > best) {
        best = theirs;
        ties = 0;
      }
      if (theirs === mine) ties++;
    }
    if (mine > best) won += 1;
    else if (mine === best) won += 1 / (ties + 1);
  }
  return won / iterations;
}
