import { UNSEEN_CHARACTERS } from "../lib/unseen-characters";

const UNSAFE_FOR_TERMINALS = new RegExp(`[\\u0000-\\u0008\\u000B-\\u001F\\u007F-\\u009F${UNSEEN_CHARACTERS}]`, "g");

/**
 * What the CLI prints, made safe for a terminal: control characters (C0 but newline and tab, DEL,
 * C1), bidirectional controls and invisible characters (lib/unseen-characters) are dropped.
 * Names and descriptions come from other developers through the server; an escape sequence in
 * one would clear, retitle or rewrite the reader's terminal, and U+202E would reverse what
 * follows it.
 */
export function terminalSafe(text: string): string {
  return text.replace(UNSAFE_FOR_TERMINALS, "");
}

/** A win rate with its 95 % interval, raw and adjusted (docs/RATINGS.md), as `ratings` and `ladder standings` print it. */
export function winRates(r: { bbPer100: number; bbPer100Ci95: readonly number[] | null; bbPer100Adjusted: number; bbPer100AdjustedCi95: readonly number[] | null; estimator?: string }): string {
  // One decimal always: a measured 0 reads "0.0 bb/100 [-224.4, 224.4]", not like a placeholder "0".
  const rate = (x: number) => x.toFixed(1);
  const interval = (ci: readonly number[] | null) => (ci ? `[${rate(ci[0])}, ${rate(ci[1])}]` : "(too few hands)");
  return `${rate(r.bbPer100)} bb/100 ${interval(r.bbPer100Ci95)}, adjusted ${rate(r.bbPer100Adjusted)} ${interval(r.bbPer100AdjustedCi95)}${r.estimator ? ` (${r.estimator})` : ""}`;
}

/** "1 match", "2 matches", "1 ladder match". */
export function matchCount(n: number, what = "match"): string {
  return `${n} ${what}${n === 1 ? "" : "es"}`;
}
