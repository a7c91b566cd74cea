/** CLI: the service's records — matches, hands, stats, leaderboard, transactions. `--json` prints the API's own JSON. */
import { bool, int, str, UsageError, type FlagSpec, type Parsed } from "../args";
import { botIdOf, SERVER_FLAG, type Command, type Ctx } from "../command";
import { signed, TableNarrator, type RecordedHand } from "@poker-bots/sdk/narrator";
import { botNames } from "./watch";
import { matchCount } from "../format";

export const JSON_FLAG: FlagSpec = { json: { kind: "boolean", help: "print the API's JSON (for scripts) instead of lines" } };
const PAGE_FLAGS: FlagSpec = { limit: { kind: "string", value: "n", help: "how many (default 20)" } };

interface MatchRecord {
  matchId: string;
  players: Array<{ botId: string; finalChips: number; profit: number }>;
  winners: Array<{ botId: string; amount: number }>;
  handsPlayed: number;
  endedAt: string;
}

/** `?a=1&b=x` of the parameters that are set ("" when none is). */
export function query(params: Record<string, string | number | undefined>): string {
  const search = new URLSearchParams(Object.entries(params).flatMap(([k, v]) => (v === undefined ? [] : [[k, String(v)] as [string, string]])));
  return search.size ? `?${search}` : "";
}

/** Prints JSON when asked; otherwise resolves bot names and prints lines. */
export async function show<T>(ctx: Ctx, parsed: Parsed, data: T, botIds: (data: T) => string[], lines: (data: T, names: Map<string, string>) => string[]): Promise<number> {
  if (bool(parsed, "json")) {
    ctx.out(JSON.stringify(data, null, 2));
    return 0;
  }
  const names = new Map<string, string>();
  await botNames(ctx.api(parsed), ctx, [...new Set(botIds(data))], names);
  for (const line of lines(data, names)) ctx.out(line);
  return 0;
}

export const nameOf = (names: Map<string, string>, botId: string) => names.get(botId) ?? botId;

function matchLine(m: MatchRecord, names: Map<string, string>): string {
  const players = [...m.players].sort((a, b) => b.profit - a.profit).map((p) => `${nameOf(names, p.botId)} ${signed(p.profit)}`);
  return `${m.matchId}  ${m.endedAt.slice(0, 16).replace("T", " ")}  ${String(m.handsPlayed).padStart(4)} hands  ${players.join(", ")}`;
}

export const matches: Command = {
  name: "matches",
  summary: "Completed matches, newest first (all, or one bot's); with a matchId, that match's result.",
  usage: "matches [matchId] [--bot name|botId] [--limit 20] [--before matchId] [--json]",
  details: "Next: `bun run cli -- hands <matchId>` for its hands, or open /matches/<matchId> in a browser for the replay.",
  flags: { bot: { kind: "string", value: "name|botId", help: "only this bot's matches" }, ...PAGE_FLAGS, before: { kind: "string", value: "matchId", help: "only matches older than this one (the next page)" }, ...JSON_FLAG, ...SERVER_FLAG },
  async run(ctx, parsed) {
    const api = ctx.api(parsed);
    const matchId = parsed.positionals[0];
    if (matchId) {
      const match = await api.request<MatchRecord>("GET", `/api/matches/${encodeURIComponent(matchId)}`);
      return show(ctx, parsed, match, (m) => m.players.map((p) => p.botId), (m, names) => [
        `match ${m.matchId} · ended ${m.endedAt} · ${m.handsPlayed} hands`,
        ...m.players.map((p) => `  ${nameOf(names, p.botId)}: ${p.finalChips} chips (${signed(p.profit)})`),
        `winner: ${m.winners.map((w) => nameOf(names, w.botId)).join(", ") || "none"}`,
        `hands: bun run cli -- hands ${m.matchId}`,
      ]);
    }
    const bot = str(parsed, "bot");
    const limit = int(parsed, "limit", 20, 1, 200);
    const list = await api.request<MatchRecord[]>("GET", `/api/matches${query({ limit, before: str(parsed, "before"), botId: bot ? botIdOf(ctx, bot) : undefined })}`);
    return show(ctx, parsed, list, (l) => l.flatMap((m) => m.players.map((p) => p.botId)), (l, names) => {
      if (l.length === 0) return ["no completed matches yet"];
      const lines = l.map((m) => matchLine(m, names));
      if (l.length === limit) lines.push(`more: bun run cli -- matches${bot ? ` --bot ${bot}` : ""} --before ${l[l.length - 1].matchId}`);
      return lines;
    });
  },
};

export const hands: Command = {
  name: "hands",
  summary: "A completed match's hands, action by action (your own bots' hole cards when logged in).",
  usage: "hands <matchId> [--hand n] [--after n] [--limit 20] [--phh] [--json]",
  details: "Hole cards that were not shown down are hidden, except your own bots' (you are logged in).",
  flags: {
    hand: { kind: "string", value: "n", help: "only this hand" },
    after: { kind: "string", value: "n", help: "hands numbered above n (the next page)" },
    ...PAGE_FLAGS,
    phh: { kind: "boolean", help: "print the Poker Hand History (PHH, TOML) text" },
    ...JSON_FLAG,
    ...SERVER_FLAG,
  },
  async run(ctx, parsed) {
    const matchId = parsed.positionals[0];
    if (!matchId) throw new UsageError("which match? give a matchId (see `bun run cli -- matches`)");
    const api = ctx.api(parsed);
    const hand = int(parsed, "hand", undefined, 1);
    const limit = hand !== undefined ? 1 : int(parsed, "limit", 20, 1, 100);
    const after = hand !== undefined ? hand - 1 : int(parsed, "after", undefined, 0);
    const path = `/api/matches/${encodeURIComponent(matchId)}/hands${query({ limit, after, format: bool(parsed, "phh") ? "phh" : undefined })}`;
    const page = await api.request<{ hands: RecordedHand[] } | string>("GET", path, undefined, { auth: "if-logged-in" });
    if (typeof page === "string") {
      ctx.out(page.trimEnd());
      return 0;
    }
    return show(ctx, parsed, page, (p) => p.hands.flatMap((h) => h.players.map((pl) => pl.botId)), (p, names) => {
      if (p.hands.length === 0) return [hand !== undefined ? `no hand ${hand} in match ${matchId}` : "no more hands"];
      const narrator = new TableNarrator(names);
      // Each hand's own page on the web (the replay opened at it): a link to paste anywhere.
      const web = ctx.server(parsed).replace(/\/+$/, "");
      const lines = p.hands.flatMap((h) => [...narrator.handLines(h), `hand ${h.handNumber} · on the web: ${web}/matches/${encodeURIComponent(matchId)}/hands/${h.handNumber}`, ""]);
      const last = p.hands[p.hands.length - 1].handNumber;
      if (hand === undefined && p.hands.length === limit) lines.push(`more: bun run cli -- hands ${matchId} --after ${last}`);
      return lines;
    });
  },
};

export const stats: Command = {
  name: "stats",
  summary: "A bot's statistics (matches, hands, net chips, biggest win and loss).",
  usage: "stats <name|botId> [--json]",
  flags: { ...JSON_FLAG, ...SERVER_FLAG },
  async run(ctx, parsed) {
    const bot = parsed.positionals[0];
    if (!bot) throw new UsageError("which bot? give a name from `bots create` or a bot id");
    const s = await ctx.api(parsed).request("GET", `/api/stats/${encodeURIComponent(botIdOf(ctx, bot))}`);
    return show(ctx, parsed, s, (x) => [x.botId], (x, names) => [
      `${nameOf(names, x.botId)} (${x.botId})`,
      `  matches ${x.matchesPlayed} (won ${x.matchesWon}) · hands ${x.handsPlayed} (won ${x.handsWon})`,
      `  net chips ${signed(x.netChips)} · buy-ins ${x.totalBuyIns} · winnings ${x.totalWinnings}`,
      `  biggest win ${signed(x.biggestWin)} · biggest loss ${x.biggestLoss} · last played ${x.lastPlayed ?? "never"}`,
    ]);
  },
};

export const leaderboard: Command = {
  name: "leaderboard",
  summary: "Bots ranked by net chips (see `ratings` for skill with uncertainty).",
  usage: "leaderboard [--limit 20] [--offset 0] [--json]",
  flags: { ...PAGE_FLAGS, offset: { kind: "string", value: "n", help: "skip this many (default 0)" }, ...JSON_FLAG, ...SERVER_FLAG },
  async run(ctx, parsed) {
    const offset = int(parsed, "offset", 0, 0)!;
    const list = await ctx.api(parsed).request<Array<{ botId: string; netChips: number; matchesPlayed: number }>>("GET", `/api/stats${query({ limit: int(parsed, "limit", 20, 1, 500), offset })}`);
    return show(ctx, parsed, list, (l) => l.map((e) => e.botId), (l, names) =>
      l.length === 0 ? ["no bot on the leaderboard yet (a bot appears once it has played the number of matches the service asks for, LEADERBOARD_MIN_MATCHES)"] : l.map((e, i) => `${String(offset + i + 1).padStart(3)}. ${nameOf(names, e.botId).padEnd(24)} ${signed(e.netChips).padStart(9)}  ${matchCount(e.matchesPlayed)}`),
    );
  },
};

export const transactions: Command = {
  name: "transactions",
  summary: "Your ledger: faucet claims, buy-ins and cashouts, newest first, with the balance after each.",
  usage: "transactions [--limit 20] [--before transactionId] [--json]",
  flags: { ...PAGE_FLAGS, before: { kind: "string", value: "transactionId", help: "only older ones (the next page)" }, ...JSON_FLAG, ...SERVER_FLAG },
  async run(ctx, parsed) {
    const limit = int(parsed, "limit", 20, 1, 500);
    const list = await ctx.api(parsed).request<Array<{ transactionId: string; type: string; amount: number; balanceAfter: number; botId: string | null; tableId: string | null; createdAt: string }>>(
      "GET",
      `/api/me/transactions${query({ limit, before: str(parsed, "before") })}`,
      undefined,
      { auth: true },
    );
    return show(ctx, parsed, list, (l) => l.flatMap((x) => (x.botId ? [x.botId] : [])), (l, names) => {
      if (l.length === 0) return ["no transactions yet (claim the faucet: bun run cli -- faucet)"];
      const lines = l.map((x) => `${x.createdAt.slice(0, 19).replace("T", " ")}  ${x.type.padEnd(8)} ${signed(x.amount).padStart(8)}  balance ${String(x.balanceAfter).padStart(8)}${x.botId ? `  ${nameOf(names, x.botId)}` : ""}${x.tableId ? ` at ${x.tableId}` : ""}`);
      if (l.length === limit) lines.push(`more: bun run cli -- transactions --before ${l[l.length - 1].transactionId}`);
      return lines;
    });
  },
};
