import type { LadderFormat } from "../../db/schema";
import type { TableView } from "../tables/views";
import type { LadderStandingRow } from "../ladder/model";
import { page } from "./layout";
import { botLink, fixed, rateWithInterval, tablesSection, type Names } from "./pages";
import { escapeHtml, intervalBarSvg } from "./view-kit";

export type StandingRow = LadderStandingRow;

export interface LadderPageData {
  standings: Array<{ format: LadderFormat; rows: StandingRow[] }>;
  liveTables: TableView[];
  minMatches: number;
  names: Names;
}

const TITLES: Record<LadderFormat, string> = { "heads-up": "Heads-up", "six-max": "Six-max" };

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
      return `<tr data-bot="${escapeHtml(r.botId)}"${provisional ? ` class="provisional"` : ""}><td class="num">${i + 1}</td><td>${botLink(r.botId, names)}${
        provisional ? ` <span class="badge provisional" title="fewer than ${minMatches} ladder matches">not enough matches yet</span>` : ""
      }</td>
<td class="num" data-rating>${fixed(r.rating, 2)}</td><td>${bar}</td><td class="num" data-matches>${r.matchesPlayed}</td><td class="num">${r.handsPlayed}</td><td class="num" data-bb>${rateWithInterval(r.bbPer100, r.bbPer100Ci95)}</td><td class="num" data-bb-adjusted>${rateWithInterval(r.bbPer100Adjusted, r.bbPer100AdjustedCi95)}</td></tr>`;
    })
    .join("");
  return `<section aria-labelledby="${id}-title"><h2 id="${id}-title">${TITLES[format]}</h2>
<table id="${id}"><thead><tr><th class="num">#</th><th>Bot</th><th class="num">Rating</th><th>μ ± 3σ</th><th class="num">Matches</th><th class="num">Hands</th><th class="num">bb/100 (95 %)</th><th class="num" title="all-in adjusted and chance corrected: the luck the cards dealt taken out">adjusted bb/100 (95 %)</th></tr></thead><tbody>${body}</tbody></table></section>`;
}

/** /ladder: the standings of each format and the ladder's tables in play. */
export function ladderPage({ standings, liveTables, minMatches, names }: LadderPageData): string {
  const empty = `No ladder table is waiting or running: the matchmaker seats entered bots as soon as two of different developers are free.`;
  return page(
    "Ladder",
    `<h1>Ladder</h1>
<p>Enter a bot once (<code>bun run cli -- ladder enter &lt;bot&gt;</code>) and leave it running: the service pairs it with bots of other developers, at rated tables, for as long as it is entered.</p>
<p class="muted" id="ladder-caption">Rating = μ − 3σ, the OpenSkill estimate the standings are ordered by: the skill the bot has with near certainty. The bar spans μ − 3σ to μ + 3σ (its left end is the rating, the tick is μ), on one scale per format; a short bar is a well-measured bot. Bots with fewer than ${minMatches} ladder matches are marked “not enough matches yet”: their place is still mostly a guess.</p>
${standings.map((s) => standingsSection(s.format, s.rows, minMatches)).join("\n")}
${tablesSection(liveTables, names, { id: "ladder-tables-title", title: "Ladder tables in play", empty })}`,
  );
}
