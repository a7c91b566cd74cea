/**
 * Per-bot results of one stored hand in big blinds, as dealt (raw) and with the all-in adjustment
 * (src/poker/all-in-equity.ts; docs/RATINGS.md). The ratings fold these into bb/100 and its interval;
 * the adjusted figure is an expectation (fractional big blinds), never a payout.
 */
import { allInAdjustedResults } from "../../poker/all-in-equity";
import type { StoredHand } from "../tables/hand-history";

export interface BotHandResult {
  botId: string;
  rawBb: number;
  adjustedBb: number;
}

export function adjustedHandResults(hand: StoredHand): BotHandResult[] {
  const adjusted = allInAdjustedResults(hand);
  return hand.players.map((player, i) => ({
    botId: player.botId,
    rawBb: adjusted[i].raw / hand.bigBlind,
    adjustedBb: adjusted[i].adjusted / hand.bigBlind,
  }));
}
