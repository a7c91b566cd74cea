/**
 * Skill ratings: OpenSkill (Weng–Lin Bayesian approximation, Plackett–Luce model — the `openskill`
 * package's default), and the win rate in big blinds per 100 hands with a 95 % confidence interval.
 * Pure functions: the incremental update (at match end) and the rebuild from records call the same
 * ones in the same order, so both give bit-identical numbers.
 *
 * Each hand counts twice: raw (the chips as dealt) and adjusted (luck.ts: the estimator's figure,
 * estimator.ts; an expectation in fractional big blinds). A match's players are ranked by their
 * adjusted result over the match (docs/RATINGS.md says why).
 */
import { rate, rating as openskillPrior } from "openskill";
import { CURRENT_ESTIMATOR } from "./estimator";

/** bot_ratings.estimator when its adjusted sums come from matches rated by different estimators (until a `ratings:rebuild`). */
export const MIXED_ESTIMATORS = "mixed";

export interface BotRating {
  botId: string;
  mu: number;
  sigma: number;
  matchesPlayed: number;
  handsPlayed: number;
  /** Σx and Σx² over every rated hand, x = the hand's result in big blinds. */
  sumBb: number;
  sumBbSquared: number;
  /** Σy and Σy², y = the hand's adjusted result in big blinds (luck.ts `estimatedBb`, or `correctedBb` for a chance-1 match). */
  sumAdjustedBb: number;
  sumAdjustedBbSquared: number;
  /** The estimator (estimator.ts) of every match in the adjusted sums, or MIXED_ESTIMATORS. */
  estimator: string;
}

/** A bot's results in one match: its hands' results in big blinds, raw and adjusted (the ranking). */
export interface MatchResult {
  botId: string;
  hands: HandResults;
}

export interface HandResults {
  count: number;
  sumBb: number;
  sumBbSquared: number;
  sumAdjustedBb: number;
  sumAdjustedBbSquared: number;
}

export const noHands = (): HandResults => ({ count: 0, sumBb: 0, sumBbSquared: 0, sumAdjustedBb: 0, sumAdjustedBbSquared: 0 });

/** One hand's result added, in big blinds: as dealt and adjusted. */
export function addHandResult(results: HandResults, rawBb: number, adjustedBb: number): void {
  results.count += 1;
  results.sumBb += rawBb;
  results.sumBbSquared += rawBb * rawBb;
  results.sumAdjustedBb += adjustedBb;
  results.sumAdjustedBbSquared += adjustedBb * adjustedBb;
}

export function priorRating(botId: string): BotRating {
  const { mu, sigma } = openskillPrior();
  return { botId, mu, sigma, matchesPlayed: 0, handsPlayed: 0, sumBb: 0, sumBbSquared: 0, sumAdjustedBb: 0, sumAdjustedBbSquared: 0, estimator: CURRENT_ESTIMATOR };
}

/** The conservative estimate lists are sorted by: 99.7 % of the belief lies above it. */
export const conservativeRating = (r: Pick<BotRating, "mu" | "sigma">) => r.mu - 3 * r.sigma;

/**
 * One match applied to its players' ratings, ranking them by their adjusted result over the match
 * (highest Σ adjusted bb first, equal sums share a rank). `current` holds every player's rating
 * before the match; `estimator` produced the match's adjusted sums (luck.ts `ratedMatchOf`).
 */
export function applyMatch(current: ReadonlyMap<string, BotRating>, results: MatchResult[], estimator: string): BotRating[] {
  const before = results.map((r) => current.get(r.botId) ?? priorRating(r.botId));
  const rank = results.map((r) => 1 + results.filter((other) => other.hands.sumAdjustedBb > r.hands.sumAdjustedBb).length);
  const after = rate(before.map((b) => [{ mu: b.mu, sigma: b.sigma }]), { rank });
  return results.map((r, i) => ({
    botId: r.botId,
    mu: after[i][0].mu,
    sigma: after[i][0].sigma,
    matchesPlayed: before[i].matchesPlayed + 1,
    handsPlayed: before[i].handsPlayed + r.hands.count,
    sumBb: before[i].sumBb + r.hands.sumBb,
    sumBbSquared: before[i].sumBbSquared + r.hands.sumBbSquared,
    sumAdjustedBb: before[i].sumAdjustedBb + r.hands.sumAdjustedBb,
    sumAdjustedBbSquared: before[i].sumAdjustedBbSquared + r.hands.sumAdjustedBbSquared,
    estimator: before[i].matchesPlayed === 0 || before[i].estimator === estimator ? estimator : MIXED_ESTIMATORS,
  }));
}

type Interval = [number, number] | null;

/** bb/100 = 100 × mean of n per-hand results; 95 % interval = ± 1.96 × sample sd / √n × 100 (null below two hands). */
export function perHundredHands(n: number, sum: number, sumSquared: number): { bbPer100: number; bbPer100Ci95: Interval } {
  if (n === 0) return { bbPer100: 0, bbPer100Ci95: null };
  const mean = sum / n;
  if (n < 2) return { bbPer100: round2(mean * 100), bbPer100Ci95: null };
  const variance = Math.max(0, (sumSquared - n * mean * mean) / (n - 1));
  const half = (1.96 * Math.sqrt(variance)) / Math.sqrt(n);
  return { bbPer100: round2(mean * 100), bbPer100Ci95: [round2((mean - half) * 100), round2((mean + half) * 100)] };
}

/** The win rate as the chips say (raw) and adjusted, each with its 95 % interval (same formula). */
export function winRate(r: Pick<BotRating, "handsPlayed" | "sumBb" | "sumBbSquared" | "sumAdjustedBb" | "sumAdjustedBbSquared" | "estimator">): {
  bbPer100: number;
  bbPer100Ci95: Interval;
  bbPer100Adjusted: number;
  bbPer100AdjustedCi95: Interval;
  estimator: string;
} {
  const adjusted = perHundredHands(r.handsPlayed, r.sumAdjustedBb, r.sumAdjustedBbSquared);
  return { ...perHundredHands(r.handsPlayed, r.sumBb, r.sumBbSquared), bbPer100Adjusted: adjusted.bbPer100, bbPer100AdjustedCi95: adjusted.bbPer100Ci95, estimator: r.estimator };
}

const round2 = (x: number) => Math.round(x * 100) / 100;
