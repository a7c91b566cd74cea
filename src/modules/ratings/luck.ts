/**
 * Per-bot results of one stored hand in big blinds: as dealt (raw), with the all-in adjustment
 * (src/poker/all-in-equity.ts) and chance-corrected as well (src/poker/chance-correction.ts); see
 * docs/RATINGS.md. The ratings fold these into bb/100 and its interval; the adjusted and corrected
 * figures are expectations (fractional big blinds), never payouts.
 */
import { chanceCorrectedResults } from "../../poker/chance-correction";
import type { StoredHand } from "../match-host/hand-history";

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
