/**
 * The estimator behind every adjusted figure (issue 36; docs/RATINGS.md, "Estimators"): named and
 * versioned, recorded with each rated match (matches.rating_estimator) and each rating
 * (bot_ratings.estimator), so `ratings:rebuild` and every reader know which one produced a figure.
 *
 *   chance-1    all-in adjusted and chance corrected (issue 26: src/poker/chance-correction.ts)
 *   baseline-1  chance-1 − BASELINE_WEIGHT · the baseline of the reference (src/poker/baseline.ts)
 *   aivat-1     baseline-1 − the flop's luck (src/poker/flop-luck.ts): chance terms at the deal (the
 *               baseline's rotations), the flop, the turn and the river; no action terms
 *               (docs/RATINGS.md says why)
 *   aivat-2     aivat-1 − the deal's luck (src/poker/deal-luck.ts: the hole cards' equity against the
 *               others' actual hole cards) − the depth of the flop's, turn's and river's luck
 *               (src/poker/depth-luck.ts: the same cards' moves of equity scaled by the stack-to-pot
 *               ratio); weights fixed on exploration seeds, before the bench's seeds were played
 *
 * Every term taken out has mean zero given everything before its chance event, so any fixed
 * combination keeps the raw figure's expectation. The reference and the weight are fixed here, with
 * the version: changing either is a new estimator name (and a `ratings:rebuild`).
 */
import { baselineTerms, type ReferencePolicy } from "../../poker/baseline";
import { dealLuck } from "../../poker/deal-luck";
import { depthLuck } from "../../poker/depth-luck";
import { FLOP_WEIGHT, flopMove } from "../../poker/flop-luck";
import type { StoredHand } from "../../poker/hand-record";
import { decisionView, STRATEGIES } from "../bots/built-ins";
import { seededRng } from "@poker-bots/core/rng";

export const ESTIMATORS = ["chance-1", "baseline-1", "aivat-1", "aivat-2"] as const;
export type EstimatorName = (typeof ESTIMATORS)[number];

/** The estimator the applier and the rebuild use now (for a match whose decks are known; chance-1 otherwise). */
export const CURRENT_ESTIMATOR: EstimatorName = "aivat-2";

/**
 * The reference: the house's `tight` built-in (deterministic: its draws never matter, a fixed
 * stream is passed anyway). Chosen over a looser policy of our own and over `caller` and `raiser`
 * on exploration seeds the bench never uses (docs/RATINGS.md).
 */
const referenceRng = seededRng("baseline-1 reference");
export const REFERENCE_POLICY: ReferencePolicy = (state, legal) => STRATEGIES.tight(decisionView(state, legal), referenceRng);

/**
 * How much of the baseline is taken out. The least-squares weight varied by pairing (0.10 tight vs
 * caller, 0.22 caller vs random, 0.28 tight vs random, 0.46 tight vs raiser; 0.84 tight vs tight,
 * left out: the reference is one of its players) on 200 matches each of exploration seeds
 * (`explore:<pairing>:<i>`); 0.25 is their median, fixed before the bench's seeds were played.
 */
export const BASELINE_WEIGHT = 0.25;

/**
 * Each player's baseline (chips, table order), or null when the hand's deck is unknown (a match
 * recorded without a deck secret: the whole match goes without, never chosen by the cards).
 */
export function handBaseline(hand: StoredHand, deck: readonly number[] | null): number[] | null {
  return deck === null ? null : baselineTerms(hand, deck, REFERENCE_POLICY);
}

/** The chance terms a hand's whole deck allows (chips, history order), each mean zero (docs/RATINGS.md). */
export interface DeckLuck {
  /** The flop's luck, weighted (aivat-1). */
  flop: number[];
  /** The deal's luck (aivat-2). */
  deal: number[];
  /** The depth of the flop's, turn's and river's luck (aivat-2). */
  depth: number[];
}

/** The hand's chance terms, or null without the hand's whole deck (the flop's alternatives read it). */
export function handDeckLuck(hand: StoredHand, deck: readonly number[] | null): DeckLuck | null {
  const flop = deck === null ? null : flopMove(hand, deck);
  if (flop === null) return null;
  return { flop: flop.move.map((x) => FLOP_WEIGHT * x), deal: dealLuck(hand), depth: depthLuck(hand, flop) };
}
