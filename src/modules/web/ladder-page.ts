import type { LadderFormat } from "../../db/schema";
import type { TableView } from "../tables/views";
import type { LadderStandingRow } from "../ladder/model";
import { page, time } from "./layout";
import { botLink, fixed, rateWithInterval, tablesSection, type Names } from "./pages";
import { escapeHtml, intervalBarSvg } from "./view-kit";

export type StandingRow = LadderStandingRow;

export interface LadderPageData {
  standings: Array<{ format: LadderFormat; rows: StandingRow[] }>;
  liveTables: TableView[];
  minMatches: number;
  names: Names;
  /** The house as anyone may see it (null before the first entry made it). */
  house: { outOfCredits: boolean; paysAgainAt: string } | null;
}

const TITLES: Record<LadderFormat, string> = { "heads-up": "Heads-up", "six-max": "Six-max" };

/** Why a house bot does not play: public, it is the service's own account. */
const HOUSE_REASONS: Record<string, string> = {
  INSUFFICIENT_BALANCE: "paused: the house is out of credits until its next faucet claim",
  NO_OPPONENT: "waiting: no developer's bot is free to sit with it",
};

/** A row's marks: the house's badge, the provisional mark, and its status when it does not play (a developer's reason stays its own). */
function marks(r: StandingRow, provisional: boolean, minMatches: number): string {
  const house = r.house ? ` <span class="badge house" data-house title="One of the ladder house's built-ins: the service enters them so that a newcomer always has opponents">house</span>` : "";
  const mark = provisional ? ` <span class="badge provisional" title="fewer than ${minMatches} ladder matches">not enough matches yet</span>` : "";
  const why = r.house && r.reason ? HOUSE_REASONS[r.reason] : undefined;
  const status =
    r.status === "left"
      ? ` <span class="badge left" data-status="left" title="Taken off the ladder: its record stays">left</span>`
      : r.status === "paused"
        ? ` <span class="badge paused" data-status="paused" title="${escapeHtml(why ?? "Not playing now (why is its owner's to see)")}">paused</span>`
        : why
          ? ` <span class="badge waiting" data-status="active" title="${escapeHtml(why)}">waiting</span>`
          : "";
  return `${house}${mark}${status}`;
}

function standingsSection(format: LadderFormat, rows: StandingRow[], minMatches: number): string {
  const id = `standings-${format}`;
  if (rows.length === 0) {
    return `<section aria-labelledby="${id}-title"><h2 id="${id}-title">${TITLES[format]}</h2><p class="muted">No bot is entered in this format yet: <code>bun run cli -- ladder enter &lt;bot&gt; --format ${format}</code>.</p></section>`;
  }
  // One scale per format, so the bars of a table compare by eye.
  const scale = { min: Math.min(...rows.map((r) => r.mu - 3 * r.sigma)), max: Math.max(...rows.map((r) => r.mu + 3 * r.sigma)) };
  const names: Names = Object.fromEntries(rows.map((r) => [r.botId, r.name]));
  const body = rows
    .map((r, i) => {
      const provisional = r.matchesPlayed < minMatches;
      const bar = intervalBarSvg({ low: r.mu - 3 * r.sigma, mid: r.mu, high: r.mu + 3 * r.sigma }, scale, `μ ± 3σ: ${fixed(r.mu - 3 * r.sigma, 2)} to ${fixed(r.mu + 3 * r.sigma, 2)}, μ ${fixed(r.mu, 2)}`);
      return `<tr data-bot="${escapeHtml(r.botId)}"${provisional ? ` class="provisional"` : ""}><td class="num">${i + 1}</td><td class="bot">${botLink(r.botId, names)}${marks(r, provisional, minMatches)}</td>
<td class="num" data-rating>${fixed(r.rating, 2)}</td><td>${bar}</td><td class="num" data-matches>${r.matchesPlayed}</td><td class="num">${r.handsPlayed}</td><td class="num" data-bb>${rateWithInterval(r.bbPer100, r.bbPer100Ci95)}</td><td class="num" data-bb-adjusted>${rateWithInterval(r.bbPer100Adjusted, r.bbPer100AdjustedCi95)}</td></tr>`;
    })
    .join("");
  return `<section aria-labelledby="${id}-title"><h2 id="${id}-title">${TITLES[format]}</h2>
<table id="${id}" class="standings"><thead><tr><th class="num">#</th><th>Bot</th><th class="num" title="The bot's one rating: every rated match, in any format">Rating</th><th>μ ± 3σ</th><th class="num" title="Ladder matches of this format">Matches</th><th class="num" title="Rated hands, in any format">Hands (all)</th><th class="num" title="Over every rated hand, in any format">bb/100 (95 %)</th><th class="num" title="all-in adjusted and chance corrected: the luck the cards dealt taken out; over every rated hand">adjusted bb/100 (95 %)</th></tr></thead><tbody>${body}</tbody></table></section>`;
}

/** What the ladder's tables section says when none is in play: the truth, the house's part in it included. */
function noTablesNow(house: LadderPageData["house"]): string {
  const base = "No ladder table is waiting or running now. The matchmaker seats entered bots as soon as enough of them, of different developers (the house's bots may fill the other seats), are free: two heads-up, six six-max.";
  if (house?.outOfCredits) return `${base} The house is out of credits until its next faucet claim, ${time(house.paysAgainAt)}: until then its bots sit out, and a bot meets only other developers' bots.`;
  return base;
}

/** /ladder: the standings of each format and the ladder's tables in play. */
export function ladderPage({ standings, liveTables, minMatches, names, house }: LadderPageData): string {
  return page(
    "Ladder",
    `<h1>Ladder</h1>
<p>Enter a bot once (<code>bun run cli -- ladder enter &lt;bot&gt;</code>) and leave it running: the service pairs it with bots of other developers, and the house's built-ins, at rated tables, for as long as it is entered.</p>
<p class="muted" id="ladder-caption">Rating = μ − 3σ, the OpenSkill estimate the standings are ordered by: the skill the bot has with near certainty. It is the bot's one rating, from every rated match in any format, as are Hands and bb/100; Matches counts the ladder matches of the format. The bar spans μ − 3σ to μ + 3σ (its left end is the rating, the tick is μ), on one scale per format; a short bar is a well-measured bot. Bots with fewer than ${minMatches} ladder matches are marked “not enough matches yet”: their place is still mostly a guess. <span class="badge house">house</span> marks the house's built-ins; a bot taken off the ladder stays listed, marked “left”.</p>
${house?.outOfCredits ? `<p id="house-status">The house is out of credits: its bots sit out until its next faucet claim, ${time(house.paysAgainAt)}.</p>` : ""}
${standings.map((s) => standingsSection(s.format, s.rows, minMatches)).join("\n")}
${tablesSection(liveTables, names, { id: "ladder-tables-title", title: "Ladder tables in play", empty: noTablesNow(house) })}`,
  );
}
