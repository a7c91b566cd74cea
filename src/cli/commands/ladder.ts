/** CLI: the rated ladder — enter a bot, leave, your entries and why one is paused, the standings. */
import { LADDER_FORMATS, type LadderFormat } from "../../db/schema";
import type { LadderEntryView } from "../../modules/ladder/service";
import { int, str, UsageError, type FlagSpec, type Parsed } from "../args";
import { botIdOf, SERVER_FLAG, type Command, type Ctx } from "../command";
import { JSON_FLAG, nameOf, query, show } from "./records";
import { matchCount, winRates } from "../format";
import { LADDER_SEATS, type LadderStandingRow } from "../../modules/ladder/model";
import { fromNow } from "../suggest";

const FORMAT_FLAG: FlagSpec = { format: { kind: "string", value: "format", help: `${LADDER_FORMATS.join(" or ")} (default heads-up)` } };

function formatOf(parsed: Parsed): LadderFormat {
  const format = str(parsed, "format") ?? "heads-up";
  if (!(LADDER_FORMATS as readonly string[]).includes(format)) throw new UsageError(`--format must be ${LADDER_FORMATS.join(" or ")}, got "${format}"`);
  return format as LadderFormat;
}

function botOf(ctx: Ctx, parsed: Parsed, command: string): { given: string; botId: string } {
  const given = parsed.positionals[0];
  if (!given) throw new UsageError(`which bot? ladder ${command} <name|botId>`);
  return { given, botId: botIdOf(ctx, given) };
}

/** What a paused entry waits for, as something its owner can do (the entry resumes by itself then). */
function remedy(entry: LadderEntryView, name: string): string {
  switch (entry.reason) {
    case "INSUFFICIENT_BALANCE":
      return "your balance is below the ladder's buy-in: claim the faucet (bun run cli -- faucet)";
    case "BOT_OFFLINE":
      return `the bot is not connected: run it and leave it running (bun examples/starter-bot.ts --bot ${name})`;
    case "BOT_RETIRED":
      return `the bot is retired: take it off the ladder (bun run cli -- ladder leave ${name}${entry.format === "heads-up" ? "" : ` --format ${entry.format}`})`;
    default:
      return "";
  }
}

/** Why the house's bots do not meet this entry now, and until when (docs/LADDER.md, "The house's bankroll"). */
function houseWords(house: NonNullable<LadderEntryView["houseUnavailable"]>): string {
  return house.reason === "HOUSE_DAILY_LIMIT"
    ? `your bots have won ${house.won} from the house in the last 24 h, its daily limit: the house's bots meet yours again ${fromNow(house.until)}`
    : `the house is out of credits: its bots play again ${fromNow(house.until)} at the latest (its next faucet claim)`;
}

/** An active entry nobody can meet now: how many it may meet are free, and what it waits for. */
function waiting(entry: LadderEntryView): string {
  const needed = LADDER_SEATS[entry.format] - 1;
  const free = `${entry.opponentsAvailable} of the ${needed} opponent${needed === 1 ? "" : "s"} a table needs ${entry.opponentsAvailable === 1 ? "is" : "are"} free now`;
  const why = entry.houseUnavailable ? houseWords(entry.houseUnavailable) : "it plays as soon as enough bots of other developers are free";
  return `active, waiting (NO_OPPONENT): ${free}; ${why}`;
}

function entryLine(entry: LadderEntryView, name: string): string {
  const state =
    entry.status === "left"
      ? "left"
      : entry.status === "paused"
        ? `paused (${entry.reason}): ${remedy(entry, name)}`
        : entry.reason === "NO_OPPONENT"
          ? waiting(entry)
          : entry.houseUnavailable
            ? `active (${houseWords(entry.houseUnavailable)})`
            : "active";
  return `${name} (${entry.botId})  ${entry.format}  ${matchCount(entry.matchesPlayed, "ladder match")}  ${state}`;
}

export const ladderEnter: Command = {
  name: "enter",
  summary: "Enter your bot in the rated ladder: it is paired with other developers' bots for as long as it stays entered.",
  usage: "ladder enter <name|botId> [--format heads-up|six-max] [--json]",
  details: "Each ladder match costs its buy-in off your balance (the rest comes back at its end). A remote bot plays while it is connected: leave it running (bun examples/starter-bot.ts --bot <name>); a hosted bot (bots upload) plays without one.",
  flags: { ...FORMAT_FLAG, ...JSON_FLAG, ...SERVER_FLAG },
  async run(ctx, parsed) {
    const { given, botId } = botOf(ctx, parsed, "enter");
    const entry = await ctx.api(parsed).request<LadderEntryView>("POST", "/api/ladder/entries", { botId, format: formatOf(parsed) }, { auth: true });
    return show(ctx, parsed, entry, () => [], (e) => [`on the ladder: ${entryLine(e, given)}`, `see how it does: bun run cli -- ladder status · bun run cli -- ladder standings${e.format === "heads-up" ? "" : ` --format ${e.format}`}`]);
  },
};

export const ladderLeave: Command = {
  name: "leave",
  summary: "Take your bot off the ladder: it finishes the match it is in, if any, and is not paired again.",
  usage: "ladder leave <name|botId> [--format heads-up|six-max] [--json]",
  flags: { ...FORMAT_FLAG, ...JSON_FLAG, ...SERVER_FLAG },
  async run(ctx, parsed) {
    const { given, botId } = botOf(ctx, parsed, "leave");
    const format = formatOf(parsed);
    const entry = await ctx.api(parsed).request<LadderEntryView>("DELETE", `/api/ladder/entries/${encodeURIComponent(botId)}${query({ format })}`, undefined, { auth: true });
    return show(ctx, parsed, entry, () => [], (e) => [`${given} left the ${e.format} ladder after ${matchCount(e.matchesPlayed, "ladder match")} (a match in play finishes first)`]);
  },
};

export const ladderStatus: Command = {
  name: "status",
  summary: "Your ladder entries: active, waiting for opponents, or paused and why (each resumes by itself when the cause goes away).",
  usage: "ladder status [--json]",
  flags: { ...JSON_FLAG, ...SERVER_FLAG },
  async run(ctx, parsed) {
    const entries = await ctx.api(parsed).request<LadderEntryView[]>("GET", "/api/me/ladder", undefined, { auth: true });
    return show(ctx, parsed, entries, (l) => l.map((e) => e.botId), (l, names) =>
      l.length === 0 ? ["no bot of yours is on the ladder: bun run cli -- ladder enter <name>"] : l.map((e) => entryLine(e, nameOf(names, e.botId))),
    );
  },
};

type Standing = LadderStandingRow;

export const ladderStandings: Command = {
  name: "standings",
  summary: "The ladder's standings: rating (mu − 3·sigma), matches, bb/100 raw and adjusted for luck, each with its 95 % interval.",
  usage: "ladder standings [--format heads-up|six-max] [--limit 20] [--json]",
  details: "The whole list, paged, is GET /api/ladder; in a browser, /ladder.",
  flags: { ...FORMAT_FLAG, limit: { kind: "string", value: "n", help: "how many (default 20, at most 500)" }, ...JSON_FLAG, ...SERVER_FLAG },
  async run(ctx, parsed) {
    const format = formatOf(parsed);
    const list = await ctx.api(parsed).request<Standing[]>("GET", `/api/ladder${query({ format, limit: int(parsed, "limit", 20, 1, 500) })}`);
    return show(ctx, parsed, list, () => [], (l) => {
      if (l.length === 0) return [`no bot in the ${format} ladder yet: bun run cli -- ladder enter <name>${format === "heads-up" ? "" : ` --format ${format}`}`];
      return l.map((s, i) => {
        // A paused or left entry says so (the house's with its reason, public); the house's names (house-…) are its own.
        const state = s.status === "active" ? "" : `  [${s.status}${s.reason ? `: ${s.reason}` : ""}]`;
        return `${String(i + 1).padStart(3)}. ${s.name.padEnd(24)} rating ${s.rating.toFixed(2).padStart(7)} (mu ${s.mu.toFixed(2)} ± sigma ${s.sigma.toFixed(2)})  ${matchCount(s.matchesPlayed)}${s.duplicateMatches ? ` (${s.duplicateMatches} duplicate)` : ""}  ${winRates(s)}${state}`;
      });
    });
  },
};
