/**
 * Many-seed local evaluation: heads-up pairings played as duplicate matches (two copies, the second
 * dealing the first's decks with the seats swapped) over seeds `<base>:<i>`, the seat order
 * alternating by match; bb/100 with a 95 % interval
 * per pairing. The interval treats each match as one sample of (big blinds won, hands): the ratio
 * estimator Σbb/Σhands with its delta-method standard error, so long and short matches weigh by hands.
 * The same summary serves the raw results (chips as dealt) and the adjusted ones (luck taken out,
 * docs/RATINGS.md); the verdict is read off the adjusted one.
 */

/** One match of a pairing, from the first player's side. */
export interface MatchSample {
  /** Big blinds the first player won (negative: lost). */
  bigBlinds: number;
  hands: number;
}

export interface RateSummary {
  matches: number;
  hands: number;
  bbPer100: number;
  /** 95 % interval of bb/100; null with fewer than 2 matches. */
  ci95: [number, number] | null;
  /** Probability that the true bb/100 is above 0 (normal approximation); null with fewer than 2 matches. */
  confidenceAhead: number | null;
  /**
   * Matches (in all) at which a verdict is expected if the rate and spread seen so far are the truth:
   * see matchesForVerdict. null with fewer than 2 matches or a rate of exactly 0.
   */
  matchesForVerdict: number | null;
}

/** A verdict needs P(ahead) ≥ 0.95 or ≤ 0.05: |rate| ≥ Z_VERDICT standard errors (one-sided 95 %). */
export const Z_VERDICT = 1.6449;

/**
 * The matches at which |rate| / stderr reaches Z_VERDICT, the standard error shrinking as 1/√matches:
 * n · (Z_VERDICT · stderr / |rate|)², rounded up. An estimate, not a promise: it takes the rate and
 * spread seen in n matches for the truth; both are noisy when n is small, and with no true difference
 * no number of matches gives a verdict.
 */
export function matchesForVerdict(matches: number, rate: number, stderr: number): number | null {
  if (matches < 2 || rate === 0) return null;
  return Math.max(2, Math.ceil(matches * ((Z_VERDICT * stderr) / Math.abs(rate)) ** 2));
}

const round2 = (x: number) => Math.round(x * 100) / 100;

/** Standard normal CDF (Abramowitz & Stegun 7.1.26, error < 1.5e-7). */
export function normalCdf(z: number): number {
  const t = 1 / (1 + 0.3275911 * (Math.abs(z) / Math.SQRT2));
  const poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))));
  const erf = 1 - poly * Math.exp(-(z * z) / 2);
  return z >= 0 ? (1 + erf) / 2 : (1 - erf) / 2;
}

export function summarize(samples: MatchSample[]): RateSummary {
  const m = samples.length;
  const hands = samples.reduce((sum, s) => sum + s.hands, 0);
  const won = samples.reduce((sum, s) => sum + s.bigBlinds, 0);
  const rate = hands > 0 ? won / hands : 0;
  if (m < 2 || hands === 0) return { matches: m, hands, bbPer100: round2(rate * 100), ci95: null, confidenceAhead: null, matchesForVerdict: null };
  const meanHands = hands / m;
  const residuals = samples.reduce((sum, s) => sum + (s.bigBlinds - rate * s.hands) ** 2, 0);
  const stderr = Math.sqrt(residuals / (m * (m - 1))) / meanHands;
  const confidenceAhead = stderr > 0 ? normalCdf(rate / stderr) : rate > 0 ? 1 : rate < 0 ? 0 : 0.5;
  return {
    matches: m,
    hands,
    bbPer100: round2(rate * 100),
    ci95: [round2((rate - 1.96 * stderr) * 100), round2((rate + 1.96 * stderr) * 100)],
    confidenceAhead,
    matchesForVerdict: matchesForVerdict(m, rate, stderr),
  };
}

/** "a is better than b with 97 % confidence", or that it is not yet clear. */
export function verdict(a: string, b: string, summary: RateSummary): string {
  const p = summary.confidenceAhead;
  if (p === null) return `too few matches to compare ${a} and ${b} (play at least 2)`;
  const percent = (x: number) => `${Math.min(99.9, Math.floor(x * 1000) / 10)} %`;
  if (p >= 0.95) return `${a} is better than ${b} with ${percent(p)} confidence`;
  if (p <= 0.05) return `${b} is better than ${a} with ${percent(1 - p)} confidence`;
  const needed = summary.matchesForVerdict === null ? "" : ` (about ${summary.matchesForVerdict} in all, if the rate and spread so far hold)`;
  return `no clear difference between ${a} and ${b} yet (${a} ahead with ${percent(p)} confidence): play more matches${needed}`;
}

/** Every unordered pair of player indexes, in order. */
export function pairings(count: number): Array<[number, number]> {
  const pairs: Array<[number, number]> = [];
  for (let i = 0; i < count; i++) for (let j = i + 1; j < count; j++) pairs.push([i, j]);
  return pairs;
}

/** The jobs of an evaluation: each pairing plays `matches` matches on the same seeds, seat order alternating. */
export interface EvalJob {
  pair: number;
  match: number;
  seed: string;
  /** Player specs in seat order. */
  seats: [string, string];
  /** Seat 0 is the pairing's second player. */
  swapped: boolean;
}

export function evalJobs(specs: string[], pairs: Array<[number, number]>, matches: number, base: string): EvalJob[] {
  const jobs: EvalJob[] = [];
  pairs.forEach(([a, b], pair) => {
    for (let match = 0; match < matches; match++) {
      const swapped = match % 2 === 1;
      jobs.push({ pair, match, seed: `${base}:${match}`, seats: swapped ? [specs[b], specs[a]] : [specs[a], specs[b]], swapped });
    }
  });
  return jobs;
}
