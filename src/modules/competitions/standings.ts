/**
 * A round robin's crosstable and standings (docs/COMPETITIONS.md), pure: computed from its match
 * records and frozen when it finishes. A match of the hosted division is a duplicate pair: both
 * copies' chips and hands together.
 */
import { seededRng } from "@poker-bots/core/rng";

/** One finished match (both copies, for a duplicate pair) from botA's side; a forfeit has no hands. */
export interface MatchResult {
  botA: string;
  botB: string;
  /** botA's chips won (botB's are the negative). */
  profitA: number;
  hands: number;
  /** The bot that forfeited (its owner could not pay at the start), if any. */
  forfeitedBy: string | null;
}

export interface CrosstableCell {
  botId: string;
  opponentBotId: string;
  matches: number;
  /** botId's big blinds won per 100 hands against this opponent (null: no hand played). */
  bbPer100: number | null;
  /** 95 % interval of the per-match bb/100, normal approximation (null under two played matches). */
  ci95: [number, number] | null;
}

export interface Standing {
  botId: string;
  rank: number;
  /** 1 a match won (more chips at its end), ½ a match level, 0 a match lost or forfeited; a forfeit gives its opponent 1. */
  points: number;
  matches: number;
  bbPer100: number | null;
  ci95: [number, number] | null;
  /** How sure this rank is over the next one: the share of bootstrap resamples of the matches in which this bot still ranks above the next (null for the last). */
  overNext: number | null;
}

export const BOOTSTRAP_RESAMPLES = 1_000;

const bbPer100 = (profit: number, hands: number, bigBlind: number) => (hands === 0 ? null : (100 * profit) / bigBlind / hands);

function interval(values: number[]): [number, number] | null {
  if (values.length < 2) return null;
  const mean = values.reduce((s, v) => s + v, 0) / values.length;
  const variance = values.reduce((s, v) => s + (v - mean) ** 2, 0) / (values.length - 1);
  const half = 1.96 * Math.sqrt(variance / values.length);
  return [round2(mean - half), round2(mean + half)];
}

const round2 = (x: number) => Math.round(x * 100) / 100;
const maybeRound = (x: number | null) => (x === null ? null : round2(x));

/** The bot's side of a match: its points, chips and hands. */
function sideOf(match: MatchResult, botId: string): { points: number; profit: number; hands: number } {
  const profit = match.botA === botId ? match.profitA : -match.profitA;
  if (match.forfeitedBy !== null) return { points: match.forfeitedBy === botId ? 0 : 1, profit: 0, hands: 0 };
  return { points: profit > 0 ? 1 : profit === 0 ? 0.5 : 0, profit, hands: match.hands };
}

export function crosstableOf(botIds: string[], results: MatchResult[], bigBlind: number): CrosstableCell[] {
  const cells: CrosstableCell[] = [];
  for (const botId of botIds) {
    for (const opponentBotId of botIds) {
      if (botId === opponentBotId) continue;
      const played = results.filter((m) => (m.botA === botId && m.botB === opponentBotId) || (m.botA === opponentBotId && m.botB === botId));
      const sides = played.map((m) => sideOf(m, botId)).filter((s) => s.hands > 0);
      const profit = sides.reduce((s, x) => s + x.profit, 0);
      const hands = sides.reduce((s, x) => s + x.hands, 0);
      cells.push({
        botId,
        opponentBotId,
        matches: played.length,
        bbPer100: maybeRound(bbPer100(profit, hands, bigBlind)),
        ci95: interval(sides.map((s) => bbPer100(s.profit, s.hands, bigBlind)!)),
      });
    }
  }
  return cells;
}

interface Tally {
  botId: string;
  points: number;
  profit: number;
  hands: number;
}

function tallies(botIds: string[], results: MatchResult[]): Tally[] {
  const byBot = new Map(botIds.map((botId) => [botId, { botId, points: 0, profit: 0, hands: 0 }]));
  for (const match of results) {
    for (const botId of [match.botA, match.botB]) {
      const side = sideOf(match, botId);
      const tally = byBot.get(botId)!;
      tally.points += side.points;
      tally.profit += side.profit;
      tally.hands += side.hands;
    }
  }
  return [...byBot.values()];
}

/** Points first, then bb/100 (chips per hand), then botId: a total order. */
function ordered(t: Tally[], bigBlind: number): Tally[] {
  const rate = (x: Tally) => bbPer100(x.profit, x.hands, bigBlind) ?? 0;
  return [...t].sort((a, b) => b.points - a.points || rate(b) - rate(a) || a.botId.localeCompare(b.botId));
}

export function standingsOf(botIds: string[], results: MatchResult[], bigBlind: number, seed: string): Standing[] {
  const order = ordered(tallies(botIds, results), bigBlind);
  // How sure each rank is over the next: the matches resampled with replacement (a fixed seed, so the frozen standings are reproducible).
  const rng = seededRng(seed);
  const above = new Array<number>(order.length).fill(0);
  for (let b = 0; b < BOOTSTRAP_RESAMPLES && results.length > 0; b++) {
    const sample = results.map(() => results[rng.nextUint32() % results.length]);
    const position = new Map(ordered(tallies(botIds, sample), bigBlind).map((t, i) => [t.botId, i]));
    for (let i = 0; i + 1 < order.length; i++) if (position.get(order[i].botId)! < position.get(order[i + 1].botId)!) above[i] += 1;
  }
  return order.map((tally, i) => {
    const sides = results.filter((m) => m.botA === tally.botId || m.botB === tally.botId).map((m) => sideOf(m, tally.botId));
    const played = sides.filter((s) => s.hands > 0);
    return {
      botId: tally.botId,
      rank: i + 1,
      points: tally.points,
      matches: sides.length,
      bbPer100: maybeRound(bbPer100(tally.profit, tally.hands, bigBlind)),
      ci95: interval(played.map((s) => bbPer100(s.profit, s.hands, bigBlind)!)),
      overNext: i + 1 < order.length && results.length > 0 ? round2(above[i] / BOOTSTRAP_RESAMPLES) : null,
    };
  });
}
