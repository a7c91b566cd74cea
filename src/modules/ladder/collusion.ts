import { sql } from "drizzle-orm";
import { anyOf, queryRows, type Db, type Queryable } from "../../db";
import { matches } from "../../db/schema";
import { recordedHands } from "../match-host/hand-store";
import { selectMatches } from "../match-host/match-rows";
import { decodeRecorded, matchDealOf } from "../match-host/recorded-hands";
import type { HandEvent } from "../../poker/hand-types";
import { startingHandScore } from "../bots/built-ins";
import { HOUSE_EMAIL } from "../bots/house";

/**
 * Collusion signals for operators (docs/OPERATIONS.md, "Collusion signals"): pairs of developers
 * whose matches look like chip dumping. Detection, not a ban: a flag is a reason to look at the
 * pair's hands, never a verdict.
 *
 * The signal: when developer A's bots face a bet with developer B's bots in the hand, A folds far
 * more often than A's bots fold facing a bet in hands without B (a bot that folds whatever it holds
 * to a friend, and plays on elsewhere). Folding is counted only where it was a decision (facing a
 * bet: folding when one may check gives nothing away), so a passive opponent, against whom one
 * faces fewer bets, does not bend the rate. Losses (matches lost, chips) are shown beside it: a
 * flag needs A to have lost chips in those matches. So is how often A folded a premium starting
 * hand facing a bet before the flop: an honest bot that folds a lot to an aggressive opponent
 * still keeps its aces; a bot that feeds a friend throws them away too (evidence, not a rule:
 * such hands are few).
 */
export interface CollusionPolicy {
  /** Only completed matches that ended at or after this instant. */
  since: Date;
  /** Matches the pair must have played together before any flag (default 5). */
  minMatches: number;
  /** Decisions facing a bet, for the pair and for the baseline, before a rate counts (default 100). */
  minDecisions: number;
  /** How much higher the fold rate against the opponent must be than the baseline (default 0.3: 30 points). */
  minFoldExcess: number;
  /** The two-proportion z-score the excess must reach (default 4: chance alone about 1 in 30,000). */
  minZ: number;
}

export const DEFAULT_COLLUSION_POLICY: Omit<CollusionPolicy, "since"> = { minMatches: 5, minDecisions: 100, minFoldExcess: 0.3, minZ: 4 };

export interface FoldCounts {
  decisions: number;
  folds: number;
  /** Of those, the ones before the flop holding a premium starting hand (PREMIUM_SCORE or more). */
  premiumDecisions: number;
  premiumFolds: number;
}

/** Chen score of a premium starting hand (TT+, AK, AQs, AJs…): what the house's tight bot raises with. */
export const PREMIUM_SCORE = 10;

const noCounts = (): FoldCounts => ({ decisions: 0, folds: 0, premiumDecisions: 0, premiumFolds: 0 });

function add(sum: FoldCounts, counts: FoldCounts): void {
  sum.decisions += counts.decisions;
  sum.folds += counts.folds;
  sum.premiumDecisions += counts.premiumDecisions;
  sum.premiumFolds += counts.premiumFolds;
}

function minus(a: FoldCounts, b: FoldCounts): FoldCounts {
  return { decisions: a.decisions - b.decisions, folds: a.folds - b.folds, premiumDecisions: a.premiumDecisions - b.premiumDecisions, premiumFolds: a.premiumFolds - b.premiumFolds };
}

export interface PairSignal {
  /** The developer whose play looks like dumping … */
  developer: DeveloperRef;
  /** … to this one. */
  opponent: DeveloperRef;
  matches: number;
  ladderMatches: number;
  matchesLost: number;
  /** The developer's net chips in these matches, and the opponent's. */
  net: number;
  opponentNet: number;
  /** Facing a bet with the opponent in the hand. */
  againstOpponent: FoldCounts & { rate: number | null };
  /** Facing a bet in the developer's other hands ("own"), or everyone else's when those are too few ("population"). */
  baseline: FoldCounts & { rate: number | null; source: "own" | "population" };
  /** The developer's share of matches lost against everyone else (null: none). */
  baselineLossRate: number | null;
  foldZ: number | null;
  flagged: boolean;
  /** Why it is flagged, or why not (sample too small, no excess, no chips lost). */
  verdict: string;
}

export interface DeveloperRef {
  id: string;
  name: string | null;
  email: string;
}

export interface CollusionReport {
  since: string;
  matches: number;
  hands: number;
  /** Ordered pairs that played at least minMatches matches together. */
  pairs: PairSignal[];
  flagged: PairSignal[];
}

/**
 * Per seat of one hand, its decisions facing a bet (something to call) and how many of them were
 * folds, and of those the ones before the flop with a premium starting hand. Street totals follow
 * the engine's events: blinds and calls add the chips they put in, a raise sets the street total
 * it names, a new street starts from zero (antes are dead money).
 */
export function decisionsFacingABet(events: readonly HandEvent[]): Map<number, FoldCounts> {
  const counts = new Map<number, FoldCounts>();
  const street = new Map<number, number>();
  const premium = new Set<number>();
  let high = 0;
  let preflop = true;
  for (const event of events) {
    if (event.type === "hole_cards") {
      if (startingHandScore(event.cards[0], event.cards[1]) >= PREMIUM_SCORE) premium.add(event.seat);
    } else if (event.type === "street") {
      street.clear();
      high = 0;
      preflop = false;
    } else if (event.type === "blind") {
      street.set(event.seat, (street.get(event.seat) ?? 0) + event.amount);
      high = Math.max(high, street.get(event.seat)!);
    } else if (event.type === "action") {
      const put = street.get(event.seat) ?? 0;
      if (put < high) {
        const seat = counts.get(event.seat) ?? noCounts();
        const fold = event.action === "fold" ? 1 : 0;
        seat.decisions += 1;
        seat.folds += fold;
        if (preflop && premium.has(event.seat)) {
          seat.premiumDecisions += 1;
          seat.premiumFolds += fold;
        }
        counts.set(event.seat, seat);
      }
      if (event.action === "call") street.set(event.seat, put + event.amount);
      if (event.action === "raise") {
        street.set(event.seat, event.amount);
        high = Math.max(high, event.amount);
      }
    }
  }
  return counts;
}

/** Two-proportion z-score of x1/n1 against x2/n2 (pooled); null without both samples. */
export function twoProportionZ(x1: number, n1: number, x2: number, n2: number): number | null {
  if (n1 === 0 || n2 === 0) return null;
  const pooled = (x1 + x2) / (n1 + n2);
  const spread = Math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2));
  const difference = x1 / n1 - x2 / n2;
  if (spread === 0) return difference === 0 ? 0 : Math.sign(difference) * Infinity;
  return difference / spread;
}

interface PairTally extends FoldCounts {
  matches: number;
  ladderMatches: number;
  matchesLost: number;
  net: number;
  opponentNet: number;
}

interface DeveloperTally extends FoldCounts {
  matches: number;
  matchesLost: number;
}

/**
 * The hands of these matches, decoded from their stored form (match-host/recorded-hands.ts); a copy
 * of a duplicate pair whose secret is not revealed yet (its twin still plays) is left out.
 */
async function storedHandsOf(db: Queryable, matchIds: string[]): Promise<Array<{ match_id: string; players: Array<{ seat: number; botId: string }>; events: HandEvent[] }>> {
  const rows = await selectMatches(db).where(anyOf(matches.id, matchIds));
  const decoded = await Promise.all(
    rows
      .filter((match) => match.deckSecret !== null || match.config.seed !== undefined)
      .map(async (match) => decodeRecorded(matchDealOf(match, match.deckSecret), await recordedHands(db, match.id)).map((hand) => ({ match_id: match.id, players: hand.players, events: hand.events }))),
  );
  return decoded.flat();
}

/** Matches read per batch of hands. */
const MATCHES_PER_BATCH = 50;

export async function collusionReport(db: Db, policy: CollusionPolicy): Promise<CollusionReport> {
  const players = await queryRows<{ match_id: string; bot_id: string; developer_id: string; profit: string; ladder: boolean }>(
    db,
    sql`select mp.match_id, mp.bot_id, b.developer_id, mp.profit::text as profit, t.ladder is not null as ladder
        from matches m join match_players mp on mp.match_id = m.id join bots b on b.id = mp.bot_id join tables t on t.id = m.table_id
        where m.status = 'completed' and m.ended_at >= ${policy.since.toISOString()}::timestamptz
          and b.developer_id not in (select id from developers where email = ${HOUSE_EMAIL})
        order by mp.match_id`,
  );
  const byMatch = new Map<string, { ladder: boolean; developerOf: Map<string, string>; profit: Map<string, number> }>();
  for (const row of players) {
    const match = byMatch.get(row.match_id) ?? { ladder: row.ladder, developerOf: new Map(), profit: new Map() };
    match.developerOf.set(row.bot_id, row.developer_id);
    match.profit.set(row.developer_id, (match.profit.get(row.developer_id) ?? 0) + Number(row.profit));
    byMatch.set(row.match_id, match);
  }

  const pairs = new Map<string, PairTally>();
  const developers = new Map<string, DeveloperTally>();
  const pairOf = (a: string, b: string) => {
    const key = `${a}\u0000${b}`;
    let tally = pairs.get(key);
    if (!tally) pairs.set(key, (tally = { matches: 0, ladderMatches: 0, matchesLost: 0, net: 0, opponentNet: 0, ...noCounts() }));
    return tally;
  };
  const developerOf = (id: string) => {
    let tally = developers.get(id);
    if (!tally) developers.set(id, (tally = { matches: 0, matchesLost: 0, ...noCounts() }));
    return tally;
  };

  for (const match of byMatch.values()) {
    for (const [a, profit] of match.profit) {
      const own = developerOf(a);
      own.matches += 1;
      if (profit < 0) own.matchesLost += 1;
      for (const [b, opponentProfit] of match.profit) {
        if (a === b) continue;
        const pair = pairOf(a, b);
        pair.matches += 1;
        if (match.ladder) pair.ladderMatches += 1;
        if (profit < 0) pair.matchesLost += 1;
        pair.net += profit;
        pair.opponentNet += opponentProfit;
      }
    }
  }

  // Only matches with two developers or more can hold a pair: their hands are read, a batch at a time.
  const shared = [...byMatch].filter(([, match]) => match.profit.size >= 2).map(([id]) => id);
  let hands = 0;
  for (let i = 0; i < shared.length; i += MATCHES_PER_BATCH) {
    const batch = shared.slice(i, i + MATCHES_PER_BATCH);
    const rows = await storedHandsOf(db, batch);
    for (const hand of rows) {
      hands += 1;
      const match = byMatch.get(hand.match_id)!;
      const perDeveloper = new Map<string, FoldCounts>();
      for (const player of hand.players) {
        const developer = match.developerOf.get(player.botId);
        if (developer && !perDeveloper.has(developer)) perDeveloper.set(developer, noCounts());
      }
      for (const [seat, counts] of decisionsFacingABet(hand.events)) {
        const botId = hand.players.find((p) => p.seat === seat)?.botId;
        const developer = botId === undefined ? undefined : match.developerOf.get(botId);
        if (developer === undefined) continue;
        add(perDeveloper.get(developer)!, counts);
      }
      for (const [a, counts] of perDeveloper) {
        add(developerOf(a), counts);
        for (const b of perDeveloper.keys()) if (a !== b) add(pairOf(a, b), counts);
      }
    }
  }

  const everyone = noCounts();
  for (const developer of developers.values()) add(everyone, developer);
  const examined = [...pairs].filter(([, pair]) => pair.matches >= policy.minMatches);
  const refs = await developerRefs(db, [...new Set(examined.flatMap(([key]) => key.split("\u0000")))]);
  const signals = examined.map(([key, pair]) => {
    const [a, b] = key.split("\u0000");
    return judge(pair, developers.get(a)!, everyone, policy, refs.get(a)!, refs.get(b)!);
  });
  signals.sort((x, y) => Number(y.flagged) - Number(x.flagged) || (y.foldZ ?? -Infinity) - (x.foldZ ?? -Infinity));
  return { since: policy.since.toISOString(), matches: byMatch.size, hands, pairs: signals, flagged: signals.filter((s) => s.flagged) };
}

const rate = (counts: FoldCounts) => (counts.decisions === 0 ? null : counts.folds / counts.decisions);

function judge(pair: PairTally, own: DeveloperTally, everyone: FoldCounts, policy: CollusionPolicy, developer: DeveloperRef, opponent: DeveloperRef): PairSignal {
  const elsewhere = minus(own, pair);
  const baseline = elsewhere.decisions >= policy.minDecisions ? { ...elsewhere, source: "own" as const } : { ...minus(everyone, own), source: "population" as const };
  const foldZ = twoProportionZ(pair.folds, pair.decisions, baseline.folds, baseline.decisions);
  const against = rate(pair);
  const usual = rate(baseline);
  const otherMatches = own.matches - pair.matches;
  const folds = { pair: pair.decisions >= policy.minDecisions, baseline: baseline.decisions >= policy.minDecisions };
  const foldsMore = folds.pair && folds.baseline && against! - usual! >= policy.minFoldExcess && (foldZ ?? 0) >= policy.minZ;
  const flagged = foldsMore && pair.net < 0;
  const verdict = !folds.pair
    ? `too few decisions facing a bet against this opponent (${pair.decisions} < ${policy.minDecisions})`
    : !folds.baseline
      ? `too few decisions facing a bet to compare with (${baseline.decisions} < ${policy.minDecisions})`
      : !foldsMore
        ? "does not fold far more often against this opponent than elsewhere"
        : !flagged
          ? "folds more against this opponent, but lost no chips to it"
          : `folds ${percent(against!)} facing a bet against this opponent vs ${percent(usual!)} ${baseline.source === "own" ? "elsewhere" : "for everyone else"} (z = ${foldZ!.toFixed(1)}), and lost ${-pair.net} chips in these matches`;
  return {
    developer,
    opponent,
    matches: pair.matches,
    ladderMatches: pair.ladderMatches,
    matchesLost: pair.matchesLost,
    net: pair.net,
    opponentNet: pair.opponentNet,
    againstOpponent: { decisions: pair.decisions, folds: pair.folds, premiumDecisions: pair.premiumDecisions, premiumFolds: pair.premiumFolds, rate: against },
    baseline: { ...baseline, rate: usual },
    baselineLossRate: otherMatches > 0 ? (own.matchesLost - pair.matchesLost) / otherMatches : null,
    foldZ,
    flagged,
    verdict,
  };
}

const percent = (x: number) => `${(100 * x).toFixed(1)} %`;

async function developerRefs(db: Db, ids: string[]): Promise<Map<string, DeveloperRef>> {
  if (ids.length === 0) return new Map();
  const rows = await queryRows<DeveloperRef>(db, sql`select id, name, email from developers where id = any(${sql.param(ids)}::text[])`);
  return new Map(rows.map((row) => [row.id, row]));
}
