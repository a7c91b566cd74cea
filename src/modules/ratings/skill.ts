/**
 * Skill ratings: OpenSkill (Weng–Lin Bayesian approximation, Plackett–Luce model — the `openskill`
 * package's default), and the win rate in big blinds per 100 hands with a 95 % confidence interval.
 * Pure functions: the incremental update (at match end) and the rebuild from records call the same
 * ones in the same order, so both give bit-identical numbers.
 */
import { rate, rating as openskillPrior } from "openskill";

export interface BotRating {
  botId: string;
  mu: number;
  sigma: number;
  matchesPlayed: number;
  handsPlayed: number;
  /** Σx and Σx² over every rated hand, x = the hand's result in big blinds. */
  sumBb: number;
  sumBbSquared: number;
}

/** A bot's results in one match: final chips (the ranking) and its hands' results in big blinds. */
export interface MatchResult {
  botId: string;
  finalChips: number;
  hands: HandResults;
}

export interface HandResults {
  count: number;
  sumBb: number;
  sumBbSquared: number;
}

export const noHands = (): HandResults => ({ count: 0, sumBb: 0, sumBbSquared: 0 });

/** One hand's result (chips won or lost) added in big blinds. */
export function addHandResult(results: HandResults, chips: number, bigBlind: number): void {
  const x = chips / bigBlind;
  results.count += 1;
  results.sumBb += x;
  results.sumBbSquared += x * x;
}

export function priorRating(botId: string): BotRating {
  const { mu, sigma } = openskillPrior();
  return { botId, mu, sigma, matchesPlayed: 0, handsPlayed: 0, sumBb: 0, sumBbSquared: 0 };
}

/** The conservative estimate lists are sorted by: 99.7 % of the belief lies above it. */
export const conservativeRating = (r: Pick<BotRating, "mu" | "sigma">) => r.mu - 3 * r.sigma;

/**
 * One match applied to its players' ratings, ranking them by final chips (most chips first,
 * equal chips share a rank). `current` holds every player's rating before the match.
 */
export function applyMatch(current: ReadonlyMap<string, BotRating>, results: MatchResult[]): BotRating[] {
  const before = results.map((r) => current.get(r.botId) ?? priorRating(r.botId));
  const rank = results.map((r) => 1 + results.filter((other) => other.finalChips > r.finalChips).length);
  const after = rate(before.map((b) => [{ mu: b.mu, sigma: b.sigma }]), { rank });
  return results.map((r, i) => ({
    botId: r.botId,
    mu: after[i][0].mu,
    sigma: after[i][0].sigma,
    matchesPlayed: before[i].matchesPlayed + 1,
    handsPlayed: before[i].handsPlayed + r.hands.count,
    sumBb: before[i].sumBb + r.hands.sumBb,
    sumBbSquared: before[i].sumBbSquared + r.hands.sumBbSquared,
  }));
}

/** bb/100 = 100 × mean; 95 % interval = ± 1.96 × sample sd / √n × 100 (null below two hands). */
export function winRate(r: Pick<BotRating, "handsPlayed" | "sumBb" | "sumBbSquared">): { bbPer100: number; bbPer100Ci95: [number, number] | null } {
  const n = r.handsPlayed;
  if (n === 0) return { bbPer100: 0, bbPer100Ci95: null };
  const mean = r.sumBb / n;
  if (n < 2) return { bbPer100: round2(mean * 100), bbPer100Ci95: null };
  const variance = Math.max(0, (r.sumBbSquared - n * mean * mean) / (n - 1));
  const half = (1.96 * Math.sqrt(variance)) / Math.sqrt(n);
  return { bbPer100: round2(mean * 100), bbPer100Ci95: [round2((mean - half) * 100), round2((mean + half) * 100)] };
}

const round2 = (x: number) => Math.round(x * 100) / 100;
