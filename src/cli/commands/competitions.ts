/** CLI: tournaments (sit-and-go, round robin) and challenges (docs/COMPETITIONS.md). */
import type { TournamentView } from "../../modules/competitions/tournaments";
import type { Challenge } from "../../modules/competitions/challenges";
import { int, str, UsageError, type FlagSpec, type Parsed } from "../args";
import { botIdOf, SERVER_FLAG, type Command, type Ctx } from "../command";
import { JSON_FLAG, nameOf, query, show } from "./records";

const idOf = (parsed: Parsed, usage: string) => {
  const id = parsed.positionals[0];
  if (!id) throw new UsageError(`which tournament? ${usage}`);
  return encodeURIComponent(id);
};

/** "5:10/20,5:25/50,1:50/100" → blind levels (hands:small/big). */
export function parseLevels(text: string) {
  return text.split(",").map((part) => {
    const match = /^(\d+):(\d+)\/(\d+)$/.exec(part.trim());
    if (!match) throw new UsageError(`--levels: "${part}" is not hands:small/big (e.g. 10:10/20)`);
    return { hands: Number(match[1]), smallBlind: Number(match[2]), bigBlind: Number(match[3]) };
  });
}

function summary(t: TournamentView, names: Map<string, string>): string[] {
  const lines = [`${t.tournamentId}  ${t.kind}${t.division ? ` (${t.division})` : ""}  ${t.status}  buy-in ${t.buyIn}  ${t.entries.length} entries${t.seats ? ` of ${t.seats}` : ""}`];
  if (t.kind === "sit-and-go") {
    lines.push(`  blinds: ${(t.blindLevels ?? []).map((l) => `${l.smallBlind}/${l.bigBlind}×${l.hands}`).join(", ")} (the last lasts)`);
    if (t.tableId && t.status === "running") lines.push(`  watch: bun run cli -- watch ${t.tableId}`);
    for (const p of t.places ?? []) lines.push(`  ${String(p.place).padStart(2)}. ${nameOf(names, p.botId)}  cashout ${p.cashout}`);
  } else {
    lines.push(`  ${t.matchesPerPair} match(es) per pair × ${t.handsPerMatch} hands, blinds ${t.smallBlind}/${t.bigBlind}${t.rounds ? `, round ${t.currentRound} of ${t.rounds}` : ""}`);
    for (const s of t.standings ?? [])
      lines.push(`  ${String(s.rank).padStart(2)}. ${nameOf(names, s.botId).padEnd(20)} ${String(s.points).padStart(4)} pts  ${s.bbPer100 === null ? "—" : s.bbPer100.toFixed(1)} bb/100${s.ci95 ? ` (${s.ci95[0].toFixed(1)} … ${s.ci95[1].toFixed(1)})` : ""}${s.overNext === null ? "" : `  sure over next ${Math.round(s.overNext * 100)} %`}`);
  }
  return lines;
}

const botsOf = (t: TournamentView) => [...t.entries.map((e) => e.botId), ...(t.places ?? []).map((p) => p.botId), ...(t.standings ?? []).map((s) => s.botId)];

export const tournamentsCreate: Command = {
  name: "create",
  summary: "Create a sit-and-go (default) or a round robin; prints its id.",
  usage: "tournaments create [--kind sit-and-go|round-robin] [--seats 6] [--buy-in 1000] [--levels 10:10/20,10:15/30] | --kind round-robin --matches-per-pair 2 --hands 200 --buy-in 1000 --small-blind 5 --big-blind 10 [--division open|hosted] [--starts-at ISO] [--json]",
  flags: {
    kind: { kind: "string", value: "kind", help: "sit-and-go (default) or round-robin" },
    seats: { kind: "string", value: "n", help: "sit-and-go: 2–10 (default 6)" },
    "buy-in": { kind: "string", value: "chips", help: "default 1000" },
    levels: { kind: "string", value: "list", help: "sit-and-go: hands:small/big,… (default: ten levels of 10 hands, 2 % to 50 % of the buy-in)" },
    "matches-per-pair": { kind: "string", value: "n", help: "round robin (default 1)" },
    hands: { kind: "string", value: "n", help: "round robin: hands per match (default 200)" },
    "small-blind": { kind: "string", value: "chips", help: "round robin (default 5)" },
    "big-blind": { kind: "string", value: "chips", help: "round robin (default 10)" },
    division: { kind: "string", value: "open|hosted", help: "round robin (default open)" },
    "starts-at": { kind: "string", value: "time", help: "round robin: ISO date-time it starts by itself" },
    ...JSON_FLAG,
    ...SERVER_FLAG,
  } satisfies FlagSpec,
  async run(ctx, parsed) {
    const kind = str(parsed, "kind") ?? "sit-and-go";
    const buyIn = int(parsed, "buy-in", 1000, 1);
    const body =
      kind === "sit-and-go"
        ? { kind, seats: int(parsed, "seats", 6, 2, 10), buyIn, ...(str(parsed, "levels") ? { blindLevels: parseLevels(str(parsed, "levels")!) } : {}) }
        : {
            kind,
            matchesPerPair: int(parsed, "matches-per-pair", 1, 1),
            handsPerMatch: int(parsed, "hands", 200, 1),
            buyIn,
            smallBlind: int(parsed, "small-blind", 5, 1),
            bigBlind: int(parsed, "big-blind", 10, 1),
            ...(str(parsed, "division") ? { division: str(parsed, "division") } : {}),
            ...(str(parsed, "starts-at") ? { startsAt: str(parsed, "starts-at") } : {}),
          };
    const created = await ctx.api(parsed).request<TournamentView>("POST", "/api/tournaments", body, { auth: true });
    return show(ctx, parsed, created, botsOf, (t, names) => [...summary(t, names), `next: bun run cli -- tournaments enter ${t.tournamentId} <bot>`]);
  },
};

export const tournamentsEnter: Command = {
  name: "enter",
  summary: "Enter your bot (one per developer per event): in a sit-and-go it takes its seat and its buy-in now.",
  usage: "tournaments enter <tournamentId> <name|botId> [--json]",
  flags: { ...JSON_FLAG, ...SERVER_FLAG },
  async run(ctx, parsed) {
    const id = idOf(parsed, "tournaments enter <tournamentId> <bot>");
    const given = parsed.positionals[1];
    if (!given) throw new UsageError("which bot? tournaments enter <tournamentId> <bot>");
    const entry = await ctx.api(parsed).request<{ botId: string; seat: number | null; chips: number | null }>("POST", `/api/tournaments/${id}/entries`, { botId: botIdOf(ctx, given) }, { auth: true });
    return show(ctx, parsed, entry, () => [], (e) => [e.seat === null ? `${given} entered (seated and charged at each match's start)` : `${given} entered: seat ${e.seat}, ${e.chips} chips`]);
  },
};

export const tournamentsWithdraw: Command = {
  name: "withdraw",
  summary: "Withdraw your bot before the start (a sit-and-go seat's buy-in comes back).",
  usage: "tournaments withdraw <tournamentId> <name|botId> [--json]",
  flags: { ...JSON_FLAG, ...SERVER_FLAG },
  async run(ctx, parsed) {
    const id = idOf(parsed, "tournaments withdraw <tournamentId> <bot>");
    const given = parsed.positionals[1];
    if (!given) throw new UsageError("which bot? tournaments withdraw <tournamentId> <bot>");
    const left = await ctx.api(parsed).request<{ cashout: number }>("DELETE", `/api/tournaments/${id}/entries/${encodeURIComponent(botIdOf(ctx, given))}`, undefined, { auth: true });
    return show(ctx, parsed, left, () => [], (l) => [`${given} withdrawn; ${l.cashout} back`]);
  },
};

export const tournamentsStart: Command = {
  name: "start",
  summary: "Start your round robin now (at least 2 entries).",
  usage: "tournaments start <tournamentId> [--json]",
  flags: { ...JSON_FLAG, ...SERVER_FLAG },
  async run(ctx, parsed) {
    const started = await ctx.api(parsed).request<TournamentView>("POST", `/api/tournaments/${idOf(parsed, "tournaments start <tournamentId>")}/start`, undefined, { auth: true });
    return show(ctx, parsed, started, botsOf, summary);
  },
};

export const tournamentsShow: Command = {
  name: "show",
  summary: "One tournament: entries, places (sit-and-go) or standings (round robin); without an id, the latest ones.",
  usage: "tournaments show [<tournamentId>] [--status registering|running|finished|cancelled] [--json]",
  flags: { status: { kind: "string", value: "status", help: "filter the list" }, ...JSON_FLAG, ...SERVER_FLAG },
  async run(ctx, parsed) {
    const api = ctx.api(parsed);
    if (parsed.positionals[0]) return show(ctx, parsed, await api.request<TournamentView>("GET", `/api/tournaments/${idOf(parsed, "")}`), botsOf, summary);
    const list = await api.request<TournamentView[]>("GET", `/api/tournaments${query({ status: str(parsed, "status"), limit: 20 })}`);
    return show(ctx, parsed, list, (l) => l.flatMap(botsOf), (l, names) => (l.length === 0 ? ["no tournament yet: bun run cli -- tournaments create"] : l.flatMap((t) => summary(t, names).slice(0, 1))));
  },
};

export const challenge: Command = {
  name: "challenge",
  summary: "Challenge another developer's bot (open to challenges) to an unrated match; each owner pays its own buy-in.",
  usage: "challenge <your bot> <opponent botId> [--hands 200] [--buy-in 1000] [--json]",
  details: "Open your own bot to challenges with the API: PUT /api/bots/{botId}/challenges {\"openToChallenges\": true, \"maxBuyIn\": 1000}.",
  flags: { hands: { kind: "string", value: "n", help: "default 200" }, "buy-in": { kind: "string", value: "chips", help: "default 1000" }, ...JSON_FLAG, ...SERVER_FLAG },
  async run(ctx: Ctx, parsed: Parsed) {
    const [mine, opponent] = parsed.positionals;
    if (!mine || !opponent) throw new UsageError("challenge <your bot> <opponent botId>");
    const body = { botId: botIdOf(ctx, mine), opponentBotId: opponent, hands: int(parsed, "hands", 200, 1), buyIn: int(parsed, "buy-in", 1000, 1) };
    const played = await ctx.api(parsed).request<Challenge>("POST", "/api/challenges", body, { auth: true });
    return show(ctx, parsed, played, (c) => [c.botId, c.opponentBotId], (c, names) => [
      `${nameOf(names, c.botId)} vs ${nameOf(names, c.opponentBotId)}: ${c.hands} hands, buy-in ${c.buyIn} each, unrated — table ${c.tableId}`,
      `watch: bun run cli -- watch ${c.tableId}`,
    ]);
  },
};
