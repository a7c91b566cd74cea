/** CLI: the rated ladder — enter a bot, leave, your entries and why one is paused, the standings. */
import { LADDER_FORMATS, type LadderFormat } from "../../db/schema";
import type { LadderEntryView } from "../../modules/ladder/service";
import { int, str, UsageError, type FlagSpec, type Parsed } from "../args";
import { botIdOf, SERVER_FLAG, type Command, type Ctx } from "../command";
import { JSON_FLAG, nameOf, query, show } from "./records";
import { matchCount, winRates } from "../format";
import type { LadderStandingRow } from "../../modules/ladder/model";
import { entryStateInWords } from "../../modules/ladder/words";
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

function entryLine(entry: LadderEntryView, name: string): string {
  return `${name} (${entry.botId})  ${entry.format}  ${matchCount(entry.matchesPlayed, "ladder match")}  ${entryStateInWords(entry, name, fromNow)}`;
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
