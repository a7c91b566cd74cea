/**
 * Bill Chen's starting-hand score (−1 … 20; ≥ 10 premium, ≥ 7 playable): the highest card's points
 * (A 10, K 8, Q 7, J 6, then half the rank), doubled for a pair (at least 5), +2 suited, minus the
 * gap between the cards (0, 1, 2, 4, then 5), +1 for a gap of at most one below a queen.
 * Ranks 0 (deuce) … 12 (ace). One definition for the built-in bots and the SDK's helpers.
 */
export function chenScore(rankA: number, rankB: number, suited: boolean): number {
  const high = Math.max(rankA, rankB);
  const low = Math.min(rankA, rankB);
  const points = [1, 1.5, 2, 2.5, 3, 3.5, 4, 4.5, 5, 6, 7, 8, 10][high];
  if (high === low) return Math.max(5, points * 2);
  let score = points;
  if (suited) score += 2;
  const gap = high - low - 1;
  score -= [0, 1, 2, 4][Math.min(gap, 3)] + (gap >= 4 ? 1 : 0);
  if (gap <= 1 && high < 10) score += 1;
  return score;
}
