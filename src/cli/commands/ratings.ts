/** CLI: skill ratings with uncertainty (OpenSkill) and win rates with 95 % intervals. */
import type { RatingEntry } from "../../modules/ratings/service";
import { int } from "../args";
import { botIdOf, SERVER_FLAG, type Command } from "../command";
import { botNames } from "./watch";
import { matchCount, winRates } from "../format";

function line(r: RatingEntry, names: Map<string, string>, rank?: number): string {
  const place = rank === undefined ? "" : `${String(rank).padStart(3)}. `;
  const name = names.get(r.botId);
  return `${place}${name ? `${name} (${r.botId})` : r.botId}  rating ${r.rating.toFixed(2)} (mu ${r.mu.toFixed(2)} ± sigma ${r.sigma.toFixed(2)})  ${winRates(r)}  ${matchCount(r.matchesPlayed)}, ${r.handsPlayed} hands`;
}

export const ratings: Command = {
  name: "ratings",
  summary: "Skill ratings (OpenSkill mu − 3·sigma) with bb/100, raw and adjusted for luck, each with its 95 % interval; one bot with a name or id.",
  usage: "ratings [bot] [--limit 20] [--offset 0]",
  flags: {
    ...SERVER_FLAG,
    limit: { kind: "string", value: "n", help: "how many (default 20, at most 500)" },
    offset: { kind: "string", value: "n", help: "skip this many (default 0)" },
  },
  async run(ctx, parsed) {
    const api = ctx.api(parsed);
    const bot = parsed.positionals[0];
    const names = new Map<string, string>();
    if (bot) {
      const entry = await api.request<RatingEntry>("GET", `/api/ratings/${encodeURIComponent(botIdOf(ctx, bot))}`);
      await botNames(api, ctx, [entry.botId], names);
      ctx.out(line(entry, names));
      return 0;
    }
    const offset = int(parsed, "offset", 0, 0)!;
    const list = await api.request<RatingEntry[]>("GET", `/api/ratings?limit=${int(parsed, "limit", 20, 1, 500)}&offset=${offset}`);
    if (list.length === 0) ctx.out("no rated bots yet (a bot is rated after its first unseeded match against another developer's bot)");
    await botNames(api, ctx, list.map((r) => r.botId), names);
    list.forEach((r, i) => ctx.out(line(r, names, offset + i + 1)));
    return 0;
  },
};
