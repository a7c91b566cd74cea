/**
 * Per-bot results of one stored hand in big blinds: as dealt (raw), with the all-in adjustment
 * (src/poker/all-in-equity.ts), chance-corrected as well (src/poker/chance-correction.ts), and the
 * current estimator's figure (estimator.ts: the reference's baseline, the flop's luck, the deal's luck and the depth of the cards' luck taken out too); see
 * docs/RATINGS.md. The ratings fold these into bb/100 and its interval; every figure but the raw one
 * is an expectation (fractional big blinds), never a payout.
 */
import { chanceCorrectedResults } from "../../poker/chance-correction";
import type { StoredHand } from "../match-host/hand-history";
import { BASELINE_WEIGHT, CURRENT_ESTIMATOR, handBaseline, handDeckLuck, type EstimatorName } from "./estimator";
import { addHandResult, noHands, type HandResults, type MatchResult } from "./skill";

export interface BotHandResult {
  botId: string;
  rawBb: number;
  allInEquityBb: number;
  /** chance-1: all-in equity and chance corrected. */
  correctedBb: number;
  /** The reference's baseline for this player (src/poker/baseline.ts), null without the hand's deck. */
  baselineBb: number | null;
  /** baseline-1: correctedBb − BASELINE_WEIGHT · baselineBb; correctedBb without a deck. */
  baselineAdjustedBb: number;
  /** The flop's luck for this player, weighted (src/poker/flop-luck.ts), null without the hand's whole deck. */
  flopLuckBb: number | null;
  /** aivat-1: baselineAdjustedBb − flopLuckBb; correctedBb without a deck. */
  aivat1Bb: number;
  /** The deal's luck (src/poker/deal-luck.ts) and the depth of the cards' luck (src/poker/depth-luck.ts), null without the whole deck. */
  dealLuckBb: number | null;
  depthLuckBb: number | null;
  /** The figure the ratings use (aivat-2): aivat1Bb − dealLuckBb − depthLuckBb; correctedBb without a deck (chance-1). */
  estimatedBb: number;
}

/** One hand's results per player (history order); `deck`: the whole deck it was dealt from, null when unknown. */
export function adjustedHandResults(hand: StoredHand, deck: readonly number[] | null = null): BotHandResult[] {
  const results = chanceCorrectedResults(hand);
  const baseline = handBaseline(hand, deck);
  const luck = handDeckLuck(hand, deck);
  return hand.players.map((player, i) => {
    const correctedBb = results[i].corrected / hand.bigBlind;
    const baselineBb = baseline === null ? null : baseline[i] / hand.bigBlind;
    const baselineAdjustedBb = baselineBb === null ? correctedBb : correctedBb - BASELINE_WEIGHT * baselineBb;
    const flopLuckBb = luck === null ? null : luck.flop[i] / hand.bigBlind;
    const dealLuckBb = luck === null ? null : luck.deal[i] / hand.bigBlind;
    const depthLuckBb = luck === null ? null : luck.depth[i] / hand.bigBlind;
    const aivat1Bb = baselineBb === null || flopLuckBb === null ? correctedBb : baselineAdjustedBb - flopLuckBb;
    return {
      botId: player.botId,
      rawBb: results[i].raw / hand.bigBlind,
      allInEquityBb: results[i].allInEquity / hand.bigBlind,
      correctedBb,
      baselineBb,
      baselineAdjustedBb,
      flopLuckBb,
      aivat1Bb,
      dealLuckBb,
      depthLuckBb,
      estimatedBb: baselineBb === null || dealLuckBb === null || depthLuckBb === null ? correctedBb : aivat1Bb - dealLuckBb - depthLuckBb,
    };
  });
}

/** A match's results and the estimator that produced their adjusted sums. */
export interface RatedMatch {
  estimator: EstimatorName;
  results: MatchResult[];
}

/**
 * A match's results per player (in the order given), summed over its hands in hand order: raw and
 * adjusted (the estimator's figure). `decks[i]` is hand i's whole deck (missing or null: unknown); a
 * match is rated by the current estimator only when every hand's deck is known, else by chance-1 (a
 * rule on the records, never on the cards). The one computation the live applier (in its worker) and the
 * rebuild share, so both give bit-identical sums.
 */
export function ratedMatchOf(botIds: string[], hands: StoredHand[], decks: ReadonlyArray<readonly number[] | null> = []): RatedMatch {
  const withDecks = hands.length > 0 && hands.every((hand, i) => (decks[i] ?? null) !== null && decks[i]!.length === 52);
  const results = new Map<string, HandResults>(botIds.map((botId) => [botId, noHands()]));
  hands.forEach((hand, i) => {
    for (const { botId, rawBb, correctedBb, estimatedBb } of adjustedHandResults(hand, withDecks ? decks[i] : null)) {
      let sums = results.get(botId);
      if (!sums) results.set(botId, (sums = noHands()));
      addHandResult(sums, rawBb, withDecks ? estimatedBb : correctedBb);
    }
  });
  return { estimator: withDecks ? CURRENT_ESTIMATOR : "chance-1", results: [...results].map(([botId, hands]) => ({ botId, hands })) };
}

/** ratedMatchOf's results alone. */
export function matchResultsOf(botIds: string[], hands: StoredHand[], decks: ReadonlyArray<readonly number[] | null> = []): MatchResult[] {
  return ratedMatchOf(botIds, hands, decks).results;
}
