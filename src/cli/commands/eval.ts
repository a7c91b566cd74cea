/** CLI: evaluate bots over many seeded duplicate matches (local, no server): bb/100 raw and adjusted with 95 % intervals, a verdict on the adjusted one, a round robin. */
import { BUILT_IN_STRATEGIES } from "../../modules/bots/model";
import { bool, int, str, UsageError } from "../args";
import { need, type Command } from "../command";
import { quoteList } from "./play";
import { defaultParallelism, needsService, runEvalJobs, type EvalResult } from "../eval-runner";
import { evalJobs, pairings, summarize, verdict, type MatchSample, type RateSummary } from "../evaluation";
import { EXEC_PREFIX, freshSeed, loadPlayers } from "../local-match";
import { HOSTED_PREFIX, refuseHostedWithExec } from "../hosted";

const signedRate = (x: number) => (x > 0 ? `+${x.toFixed(1)}` : x.toFixed(1));
const interval = (s: RateSummary) => (s.ci95 ? `[${signedRate(s.ci95[0])}, ${signedRate(s.ci95[1])}]` : "[too few matches]");
const rateWithInterval = (s: RateSummary) => `${signedRate(s.bbPer100)} bb/100 ${interval(s)}`;

/** A pairing's matches from the first player's side: chips as dealt and adjusted, both in big blinds. */
interface PairingSamples {
  raw: MatchSample[];
  adjusted: MatchSample[];
}

/** The same samples from the second player's side. */
const negated = (samples: MatchSample[]) => samples.map((s) => ({ bigBlinds: -s.bigBlinds, hands: s.hands }));

export const evaluate: Command = {
  name: "eval",
  summary: "Evaluate bots locally over many seeded duplicate matches: bb/100 raw and adjusted (95 % intervals) and a verdict.",
  usage: "eval --players ./my-bot.ts,tight [--matches 200] [--hands 100] [--seed base] [--round-robin] [--parallel n] [--json]",
  details: [
    "Heads-up, no server. Match i of every pairing deals from seed `<base>:<i>` as a duplicate match",
    "(two copies, the second dealing the first's decks with the seats swapped, as the service plays one)",
    "and the seat order alternates by match, so luck of the cards and of the seat cancels out. Two",
    "players: one pairing and a verdict (\"better than tight with 97 % confidence\"). --round-robin over",
    "2 or more players: every pair, a table of bb/100 and a ranking. The interval counts each match as",
    "one sample (delta method on Σbb/Σhands). Two figures:",
    "raw (the chips as dealt) and adjusted (all-in equity and card luck taken out, docs/RATINGS.md): same",
    "expectation, narrower interval; the verdict and the ranking use the adjusted one. Without a verdict",
    "it estimates the matches that would give one: n · (1.6449 · stderr / |bb/100|)², taking the rate and",
    "spread so far for the truth (noisy with few matches; no number suffices if there is no difference).",
    "Matches run in",
    `worker threads, one per core. Built-ins: ${BUILT_IN_STRATEGIES.join(", ")}. A bot in any language:`,
    "`exec:<command>` (as for `play`): the matches then run one at a time on the service started here.",
    "`hosted:./my-bot.ts` plays the file in the service's sandbox, as `play` does (each worker thread its",
    "own sandbox, so by default one thread per two cores; a fresh context per copy, as on the service).",
  ].join("\n"),
  flags: {
    players: { kind: "string", value: "list", help: "comma-separated built-ins, bot file paths, hosted:<file> and/or exec:<command>" },
    matches: { kind: "string", value: "n", help: "duplicate matches per pairing (default 200)" },
    hands: { kind: "string", value: "n", help: "hands per copy of a match at most (default 100)" },
    seed: { kind: "string", value: "text", help: "base of the seeds (default: random, printed); same base, same deals" },
    "round-robin": { kind: "boolean", help: "every pair of the players (2 or more)" },
    parallel: { kind: "string", value: "n", help: "worker threads (default: one per core; 1 = this thread)" },
    timeout: { kind: "string", value: "ms", help: "time per action for bot files (default 2000)" },
    json: { kind: "boolean", help: "print the results as JSON" },
  },
  async run(ctx, parsed) {
    const specs = need(parsed, "players").split(",").map((s) => s.trim()).filter(Boolean);
    const roundRobin = bool(parsed, "round-robin");
    if (!roundRobin && specs.length !== 2) throw new UsageError(`eval compares 2 players (got ${specs.length}); use --round-robin for more`);
    if (specs.length < 2 || specs.length > 16) throw new UsageError(`--round-robin needs 2 to 16 players, got ${specs.length}`);
    const matches = int(parsed, "matches", 200, 2, 100_000)!;
    const hands = int(parsed, "hands", 100, 2, 10_000)!;
    const base = str(parsed, "seed") ?? freshSeed();
    refuseHostedWithExec(specs, EXEC_PREFIX);
    // Fails fast on an unknown player or a broken file; names players as `play` does.
    const names = (await loadPlayers(specs, ctx.io.cwd)).map((p) => p.name);
    const pairs = pairings(specs.length);
    const jobs = evalJobs(specs, pairs, matches, base);
    // A bot given as a command plays on the service started here, one match at a time.
    const hosted = specs.some((spec) => spec.startsWith(HOSTED_PREFIX));
    const parallel = needsService(specs) ? 1 : int(parsed, "parallel", defaultParallelism(jobs.length, hosted), 1, 64)!;
    const settings = { cwd: ctx.io.cwd, hands, timeoutMs: int(parsed, "timeout", 2000, 1, 120_000)!, buyIn: 1000, smallBlind: 5, bigBlind: 10 };

    const samples: PairingSamples[] = pairs.map(() => ({ raw: [], adjusted: [] }));
    const started = performance.now();
    let done = 0;
    const quiet = bool(parsed, "json");
    const every = Math.max(1, Math.ceil(jobs.length / 10));
    await runEvalJobs(jobs, settings, parallel, (result: EvalResult) => {
      const first = result.job.swapped ? 1 : 0;
      samples[result.job.pair].raw.push({ bigBlinds: result.profits[first] / settings.bigBlind, hands: result.hands });
      samples[result.job.pair].adjusted.push({ bigBlinds: result.adjustedBigBlinds[first], hands: result.hands });
      done += 1;
      if (quiet || (!ctx.io.isTTY && (jobs.length < 50 || done % every !== 0))) return;
      const line = `match ${done}/${jobs.length} · ${((performance.now() - started) / 1000).toFixed(1)} s`;
      if (ctx.io.isTTY) ctx.io.stderr(`\r${line}  `);
      else ctx.err(line);
    }, (line) => (quiet ? undefined : ctx.err(line)));
    if (ctx.io.isTTY && !quiet) ctx.io.stderr("\r\x1b[K");

    // Raw fields at the top (as before adjusted figures existed); `adjusted` beside them; the verdict from the adjusted.
    const results = pairs.map(([a, b], i) => {
      const adjusted = summarize(samples[i].adjusted);
      return { a: names[a], b: names[b], ...summarize(samples[i].raw), adjusted, verdict: verdict(names[a], names[b], adjusted) };
    });
    const overall = names.map((name, index) => {
      const mine = (side: keyof PairingSamples) => pairs.flatMap(([a, b], i) => (a === index ? samples[i][side] : b === index ? negated(samples[i][side]) : []));
      return { name, ...summarize(mine("raw")), adjusted: summarize(mine("adjusted")) };
    });
    const ranking = [...overall].sort((x, y) => y.adjusted.bbPer100 - x.adjusted.bbPer100);
    const seconds = (performance.now() - started) / 1000;
    if (quiet) {
      ctx.out(JSON.stringify({ seed: base, matchesPerPairing: matches, hands, parallel, seconds: Math.round(seconds * 10) / 10, pairings: results, ...(roundRobin ? { ranking } : {}) }, null, 2));
      return 0;
    }
    const totalHands = results.reduce((sum, r) => sum + r.hands, 0);
    ctx.out(`evaluation · seeds ${base}:0…${matches - 1} · ${matches} duplicate matches per pairing, up to ${hands} hands · ${totalHands} hands in ${seconds.toFixed(1)} s on ${parallel} thread${parallel > 1 ? "s" : ""}`);
    for (const r of results) {
      ctx.out(`  ${r.a} vs ${r.b}: adjusted ${rateWithInterval(r.adjusted)} · raw ${rateWithInterval(r)} · over ${r.hands} hands`);
      ctx.out(`    ${r.verdict}`);
    }
    if (roundRobin) {
      const width = Math.max(8, ...names.map((n) => n.length));
      const cell = (row: number, col: number) => {
        if (row === col) return "·";
        const i = pairs.findIndex(([a, b]) => (a === row && b === col) || (a === col && b === row));
        return signedRate(pairs[i][0] === row ? results[i].adjusted.bbPer100 : -results[i].adjusted.bbPer100);
      };
      ctx.out("");
      ctx.out(`adjusted bb/100 of the row's bot against the column's:`);
      ctx.out(`  ${"".padEnd(width)}  ${names.map((n) => n.padStart(width)).join("  ")}`);
      names.forEach((name, row) => ctx.out(`  ${name.padEnd(width)}  ${names.map((_, col) => cell(row, col).padStart(width)).join("  ")}`));
      ctx.out("");
      ctx.out("ranking (adjusted bb/100 over all its pairings; raw beside it):");
      ranking.forEach((o, i) => ctx.out(`  ${i + 1}. ${o.name.padEnd(width)}  ${rateWithInterval(o.adjusted)} · raw ${rateWithInterval(o)} · ${o.hands} hands`));
    }
    ctx.out(`replay: bun run cli -- eval --players ${quoteList(specs)} --matches ${matches} --hands ${hands} --seed ${base}${roundRobin ? " --round-robin" : ""}`);
    return 0;
  },
};
