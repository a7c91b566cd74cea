/** CLI: play a local match (no server, no database). */
import { mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { BUILT_IN_STRATEGIES } from "../../modules/bots/model";
import { Spectators } from "../../modules/protocol/spectators";
import { bool, int, str, UsageError } from "../args";
import { signed, TableNarrator } from "@poker-bots/sdk/narrator";
import { EXEC_PREFIX, freshSeed, loadPlayers, playLocalMatch, type LocalMatchResult } from "../local-match";
import { closeLocalSandbox, hostedLogLines, refuseHostedWithExec } from "../hosted";
import type { SpectatorMessage } from "@poker-bots/sdk";
import { need, type Command } from "../command";

/** The players list as a shell word again: an exec: command has spaces. */
export function quoteList(specs: string[]): string {
  const list = specs.join(",");
  return /[^\w@%+=:,./-]/.test(list) ? `'${list.replace(/'/g, `'\\''`)}'` : list;
}

export const play: Command = {
  name: "play",
  summary: "Play a match locally between built-ins, your bot files and bots in any language (exec:<command>).",
  usage: 'play --players random,caller,./examples/starter-bot.ts,hosted:./my-bot.ts,"exec:python3 my_bot.py" [--hands 100] [--seed 42] [--timeout 2000] [--out match.phhs]',
  details: [
    `Players (2–10, comma-separated): built-ins (${BUILT_IN_STRATEGIES.join(", ")}), paths of files that`,
    "`export default` a bot (the same object `runBot` connects to the server), or `exec:` and a command",
    "line that runs a bot in any language. Without exec: the match runs in this process through the",
    "server's own match runner (no server, no database). With exec: the CLI starts the real service in",
    "this process (embedded storage in a temp directory, a loopback port), creates the bots and runs each",
    "command with POKER_SERVER and POKER_API_KEY set (docs/PROTOCOL.md); its output is shown prefixed with",
    "its name. Either way the rules are exactly the server's. Same --seed, same cards and (for",
    "deterministic bots) the same match. Writes the hand histories as PHH (default: a file in the system",
    "temp directory, printed at the end) and prints a summary. Players are named by their file's base name.",
    "`hosted:./my-bot.ts` runs the file as the service runs an uploaded bot: bundled the same way, in the",
    "same sandbox (QuickJS, its limits), asked within the action clock, the fallback (check, else fold)",
    "when it fails; its log and failures are printed after the summary. What passes here passes there.",
  ].join("\n"),
  flags: {
    players: { kind: "string", value: "list", help: "comma-separated built-ins, bot file paths, hosted:<file> and/or exec:<command>" },
    hands: { kind: "string", value: "n", help: "hands at most (default 100; fewer if one bot takes every chip)" },
    seed: { kind: "string", value: "text", help: "deal from this seed (default: a random seed, printed)" },
    timeout: { kind: "string", value: "ms", help: "time per action for bot files; late answers check or fold (default 2000)" },
    "buy-in": { kind: "string", value: "chips", help: "starting stack (default 1000)" },
    "small-blind": { kind: "string", value: "chips", help: "default 5" },
    "big-blind": { kind: "string", value: "chips", help: "default 10" },
    out: { kind: "string", value: "file", help: "where to write the PHH hand histories (default $TMPDIR/poker-bots/match-<seed>.phhs)" },
    verbose: { kind: "boolean", help: "print every action, board and showdown (like `watch`)" },
    quiet: { kind: "boolean", help: "no progress lines" },
    json: { kind: "boolean", help: "print the summary as JSON" },
  },
  async run(ctx, parsed) {
    const specs = need(parsed, "players").split(",").filter(Boolean);
    if (specs.length < 2 || specs.length > 10) throw new UsageError(`--players needs 2 to 10 players, got ${specs.length}`);
    const hands = int(parsed, "hands", 100, 1, 100_000)!;
    const timeoutMs = int(parsed, "timeout", 2000, 1, 120_000)!;
    const buyIn = int(parsed, "buy-in", 1000, 1)!;
    const smallBlind = int(parsed, "small-blind", 5, 1)!;
    const bigBlind = int(parsed, "big-blind", 10, 1)!;
    if (smallBlind > bigBlind || bigBlind > buyIn) throw new UsageError("blinds must satisfy small ≤ big ≤ buy-in");
    const seed = str(parsed, "seed") ?? freshSeed();
    const out = resolve(ctx.io.cwd, str(parsed, "out") ?? join(tmpdir(), "poker-bots", `match-${seed}.phhs`));
    refuseHostedWithExec(specs, EXEC_PREFIX);
    const players = await loadPlayers(specs, ctx.io.cwd);
    const quiet = bool(parsed, "quiet") || bool(parsed, "json");
    const every = Math.max(1, Math.ceil(hands / 10));
    const started = performance.now();
    const names = new Map<string, string>();
    const narrator = bool(parsed, "verbose") ? new TableNarrator(names) : undefined;
    const onMessage = narrator && ((message: SpectatorMessage) => narrator.lines(message).forEach((line) => ctx.out(line)));
    const settings = {
      seed,
      hands,
      timeoutMs,
      buyIn,
      smallBlind,
      bigBlind,
      onHand: (n: number) => {
        if (quiet || hands < 20 || (n % every !== 0 && !ctx.io.isTTY)) return;
        const line = `hand ${n}/${hands} · ${((performance.now() - started) / 1000).toFixed(1)} s`;
        if (ctx.io.isTTY) ctx.io.stderr(`\r${line}  `);
        else ctx.err(line);
      },
    };
    let result: LocalMatchResult;
    if (players.some((p) => p.command)) {
      // Loaded only here: the whole service is a large import that a match of built-ins and files does without.
      const { playOnService } = await import("../local-service");
      result = await playOnService(players, { ...settings, cwd: ctx.io.cwd, names, onMessage, log: (line) => (quiet ? undefined : ctx.err(line)) });
    } else {
      let spectators: Spectators | undefined;
      if (onMessage) {
        spectators = new Spectators();
        spectators.add("tbl_local", { id: "cli", send: (text) => onMessage(JSON.parse(text)), close: () => {} });
      }
      try {
        result = await playLocalMatch(players, { ...settings, spectators });
      } finally {
        await closeLocalSandbox();
      }
    }
    if (ctx.io.isTTY && !quiet) ctx.io.stderr("\r\x1b[K");
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, result.phh);
    if (bool(parsed, "json")) {
      const { phh, ...summary } = result;
      ctx.out(JSON.stringify({ ...summary, phhFile: out }, null, 2));
      return 0;
    }
    ctx.out(`local match · seed ${seed} · ${players.length} players · ${result.handsPlayed} hands in ${(result.elapsedMs / 1000).toFixed(2)} s`);
    const width = Math.max(6, ...result.players.map((p) => p.name.length));
    ctx.out(`  seat  ${"player".padEnd(width)}  ${"chips".padStart(7)}  ${"profit".padStart(7)}  hands won  timeouts`);
    for (const p of result.players) {
      ctx.out(`  ${String(p.seat).padEnd(4)}  ${p.name.padEnd(width)}  ${String(p.finalChips).padStart(7)}  ${signed(p.profit).padStart(7)}  ${String(p.handsWon).padStart(9)}  ${String(p.timeouts ?? "—").padStart(8)}`);
    }
    ctx.out(`winner: ${result.winners.join(", ")}`);
    for (const p of result.players) {
      if (!p.hostedLogs) continue;
      const failures = p.hostedLogs.filter((line) => line.kind !== undefined).length;
      ctx.out(`${p.name} (hosted, sandboxed): ${failures === 0 ? "no failed decisions" : `${failures} failure line(s)`}, ${p.hostedLogs.length} log line(s)${p.hostedLogs.length > 0 ? ":" : ""}`);
      for (const line of hostedLogLines(p.name, p.hostedLogs)) ctx.out(`  ${line}`);
    }
    ctx.out(`hand histories (PHH): ${out}`);
    ctx.out(`replay: bun run cli -- play --players ${quoteList(specs)} --hands ${hands} --seed ${seed}`);
    return 0;
  },
};
