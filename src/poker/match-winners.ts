/**
 * Who won a match, and what of it a match's record stores. A pure rule, so the match's writer
 * (match-host/match-finish.ts), its reader (matches/service.ts) and the statistics (stats/writer.ts)
 * share one definition.
 */

/** Who won a match: the bots with the most chips at its end (a tie has several), with what they won. */
export function winnersOf(players: Array<{ botId: string; finalChips: number; buyIn: number }>) {
  const most = Math.max(...players.map((p) => p.finalChips));
  return players.filter((p) => p.finalChips === most).map((p) => ({ botId: p.botId, amount: p.finalChips - p.buyIn }));
}

/**
 * The winners as a match's record stores them: null (~80 bytes less a match, issue 35) when its
 * players in seat order name the same winners in the same order, which is how a reader derives them
 * (matches/service.ts). The list is stored only when they differ: a player who left mid-match tied
 * for the most chips is listed first (match-host/match-runner.ts), and its departure order is stored nowhere else.
 */
export function storedWinners(players: Array<{ botId: string; finalChips: number; buyIn: number; position: number }>) {
  const winners = winnersOf(players);
  const bySeat = [...players].sort((a, b) => a.position - b.position);
  const seatsDistinct = new Set(players.map((p) => p.position)).size === players.length;
  return seatsDistinct && JSON.stringify(winnersOf(bySeat)) === JSON.stringify(winners) ? null : winners;
}
