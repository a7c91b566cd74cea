import { parseArgs } from "node:util";
import { loadConfig } from "./config";
import { openDatabase } from "./db";
import { collusionReport, DEFAULT_COLLUSION_POLICY, type PairSignal } from "./modules/ladder/collusion";

/**
 * `bun run collusion [--days 7] [--min-matches 5] [--min-decisions 100] [--all] [--json]`: pairs of
 * developers whose completed matches (ladder and developers' tables) look like chip dumping, read
 * from the database (DATABASE_URL, else the PGlite directory: run it while the server is stopped).
 * For operators; the policy is docs/OPERATIONS.md's "Collusion signals". Exit 0 whatever it finds
 * (a flag is a reason to look, not a failure), 2 when it did not run.
 */
const usage = "usage: bun run collusion [--days N] [--min-matches N] [--min-decisions N] [--all] [--json]";
let options: { days: number; minMatches: number; minDecisions: number; all: boolean; json: boolean };
try {
  const { values } = parseArgs({
    options: {
      days: { type: "string", default: "7" },
      "min-matches": { type: "string", default: String(DEFAULT_COLLUSION_POLICY.minMatches) },
      "min-decisions": { type: "string", default: String(DEFAULT_COLLUSION_POLICY.minDecisions) },
      all: { type: "boolean", default: false },
      json: { type: "boolean", default: false },
    },
  });
  const positive = (name: string, raw: string) => {
    const value = Number(raw);
    if (!Number.isFinite(value) || value <= 0) throw new Error(`--${name} must be a positive number, got "${raw}"`);
    return value;
  };
  options = {
    days: positive("days", values.days),
    minMatches: positive("min-matches", values["min-matches"]),
    minDecisions: positive("min-decisions", values["min-decisions"]),
    all: values.all,
    json: values.json,
  };
} catch (error) {
  console.error(`collusion did not run: ${(error as Error).message}\n${usage}`);
  process.exit(2);
}

const config = loadConfig();
const database = await openDatabase({ databaseUrl: config.databaseUrl, pgliteDir: config.pgliteDir, maxConnections: 2 }).catch((error: Error) => {
  console.error(`collusion did not run: ${error.message}`);
  process.exit(2);
});
try {
  const report = await collusionReport(database.db, {
    ...DEFAULT_COLLUSION_POLICY,
    since: new Date(Date.now() - options.days * 86_400_000),
    minMatches: options.minMatches,
    minDecisions: options.minDecisions,
  });
  if (options.json) {
    console.log(JSON.stringify(report, null, 2));
  } else {
    console.log(
      `collusion signals since ${report.since}: ${report.matches} completed matches, ${report.hands} hands; ${report.pairs.length} developer pairs met at least ${options.minMatches} times; ${report.flagged.length} flagged`,
    );
    for (const signal of options.all ? report.pairs : report.flagged) console.log(describe(signal));
  }
} finally {
  await database.close();
}

function who(developer: PairSignal["developer"]): string {
  return `${developer.id} (${developer.name ?? "no name"}, ${developer.email})`;
}

function describe(s: PairSignal): string {
  const rate = (x: number | null) => (x === null ? "n/a" : `${(100 * x).toFixed(1)} %`);
  return [
    `${s.flagged ? "FLAGGED" : "ok     "} ${who(s.developer)} → ${who(s.opponent)}: ${s.verdict}`,
    `        ${s.matches} matches together (${s.ladderMatches} on the ladder), lost ${s.matchesLost} (elsewhere: ${rate(s.baselineLossRate)} lost); net ${s.net} chips, the opponent ${s.opponentNet >= 0 ? "+" : ""}${s.opponentNet}`,
    `        facing a bet: folded ${s.againstOpponent.folds} of ${s.againstOpponent.decisions} (${rate(s.againstOpponent.rate)}) against it, ${s.baseline.folds} of ${s.baseline.decisions} (${rate(s.baseline.rate)}) ${s.baseline.source === "own" ? "against everyone else" : "by everyone else (too few of its own)"}; z = ${s.foldZ === null ? "n/a" : s.foldZ.toFixed(1)}`,
    `        premium starting hands facing a bet before the flop: folded ${s.againstOpponent.premiumFolds} of ${s.againstOpponent.premiumDecisions} against it, ${s.baseline.premiumFolds} of ${s.baseline.premiumDecisions} ${s.baseline.source === "own" ? "elsewhere" : "by everyone else"}`,
  ].join("\n");
}
