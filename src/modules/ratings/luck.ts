/**
 * Per-bot results of one stored hand in big blinds: as dealt (raw), with the all-in adjustment
 * (src/poker/all-in-equity.ts) and chance-corrected as well (src/poker/chance-correction.ts); see
 * docs/RATINGS.md. The ratings fold these into bb/100 and its interval; the adjusted and corrected
 * figures are expectations (fractional big blinds), never payouts.
 */
import { chanceCorrectedResults } from "../../poker/chance-correction";
import type { StoredHand } from "../match-host/hand-history";
import { addHandResult, noHands, type HandResults, type MatchResult } from "./skill";

export interface BotHandResult {
  botId: string;
  rawBb: number;
  adjustedBb: number;
  correctedBb: number;
}

export function adjustedHandResults(hand: StoredHand): BotHandResult[] {
  const results = chanceCorrectedResults(hand);
  return hand.players.map((player, i) => ({
    botId: player.botId,
    rawBb: results[i].raw / hand.bigBlind,
    adjustedBb: results[i].adjusted / hand.bigBlind,
    correctedBb: results[i].corrected / hand.bigBlind,
  }));
}

/**
 * A match's results per player (in the order given), summed over its hands in hand order: raw and
 * adjusted (the chance-corrected figure). The one computation the live applier (in its worker) and
 * the rebuild share, so both give bit-identical sums.
 */
export function matchResultsOf(botIds: string[], hands: StoredHand[]): MatchResult[] {
  const results = new Map<string, HandResults>(botIds.map((botId) => [botId, noHands()]));
  for (const hand of hands) {
    for (const { botId, rawBb, correctedBb } of adjustedHandResults(hand)) {
      let sums = results.get(botId);
      if (!sums) results.set(botId, (sums = noHands()));
      addHandResult(sums, rawBb, correctedBb);
    }
  }
  return [...results].map(([botId, hands]) => ({ botId, hands }));
}
