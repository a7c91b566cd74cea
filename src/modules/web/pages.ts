import type { PublicTableConfig } from "@poker-bots/protocol";
import type { LadderEntryView } from "../ladder/service";
import type { RatingEntry } from "../ratings/service";
import type { TableView } from "../tables/views";
import { lineChartSvg, escapeHtml, shortId } from "./view-kit";
import { page, time } from "./layout";

export interface MatchSummary {
  matchId: string;
  config: Pick<PublicTableConfig, "buyIn" | "smallBlind" | "bigBlind" | "maxPlayers">;
  players: Array<{ botId: string; finalChips: number; profit: number }>;
  winners: Array<{ botId: string; amount: number }>;
  handsPlayed: number;
  endedAt: string;
}
export interface BoardEntry {
  botId: string;
  netChips: number;
  matchesPlayed: number;
}

export type Names = Record<string, string>;
export const botLink = (botId: string, names: Names) => `<a href="/bots/${encodeURIComponent(botId)}">${escapeHtml(names[botId] ?? shortId(botId))}</a>`;
const signed = (n: number) => (n > 0 ? `+${n}` : String(n));
export const fixed = (n: number | null, digits = 1) => (n === null ? "—" : n.toFixed(digits));

/** A win rate with its 95 % interval after it, muted (none below two hands). */
export const rateWithInterval = (rate: number, ci: readonly number[] | null) => `${fixed(rate)}${ci ? ` <span class="muted">(${fixed(ci[0])} … ${fixed(ci[1])})</span>` : ""}`;

const NO_TABLES = `No table is waiting or running. Create one with <code>POST /api/tables</code> or <code>bun run cli -- tables create</code>.`;

/** A list of tables (the lobby's, the ladder's live ones); a ladder table's badge links to the ladder. */
export function tablesSection(tables: TableView[], names: Names, heading = { id: "tables-title", title: "Tables", empty: NO_TABLES }): string {
  const rows = tables
    .map(
      (t) => `<tr><td><a href="/tables/${encodeURIComponent(t.tableId)}">${escapeHtml(shortId(t.tableId))}</a></td>
<td><span class="badge ${t.status}">${t.status === "running" ? "live" : t.status}</span>${t.seeded ? ` <span class="badge">seeded</span>` : ""}${t.ladder ? ` <a class="badge ladder" href="/ladder">ladder ${escapeHtml(t.ladder)}</a>` : ""}</td>
<td class="num">${t.seats.length} / ${t.config.maxPlayers}</td><td class="num">${t.config.smallBlind}/${t.config.bigBlind}</td><td class="num">${t.config.buyIn}</td>
<td class="num">${t.handsPlayed}</td><td>${t.seats.map((s) => botLink(s.botId, names)).join(", ") || `<span class="muted">empty</span>`}</td></tr>`,
    )
    .join("");
  return `<section aria-labelledby="${heading.id}"><h2 id="${heading.id}">${escapeHtml(heading.title)}</h2>${
    tables.length === 0
      ? `<p class="muted">${heading.empty}</p>`
      : `<table><thead><tr><th>Table</th><th>Status</th><th class="num">Seats</th><th class="num">Blinds</th><th class="num">Buy-in</th><th class="num">Hands</th><th>Bots</th></tr></thead><tbody>${rows}</tbody></table>`
  }</section>`;
}

function matchesSection(matches: MatchSummary[], names: Names, title = "Latest matches"): string {
  const rows = matches
    .map(
      (m) => `<tr><td><a href="/matches/${encodeURIComponent(m.matchId)}">${escapeHtml(shortId(m.matchId))}</a></td><td>${time(m.endedAt)}</td>
<td class="num">${m.handsPlayed}</td><td>${m.winners.map((w) => `${botLink(w.botId, names)} (${signed(w.amount)})`).join(", ")}</td>
<td>${m.players.map((p) => botLink(p.botId, names)).join(", ")}</td></tr>`,
    )
    .join("");
  return `<section aria-labelledby="matches-title"><h2 id="matches-title">${escapeHtml(title)}</h2>${
    matches.length === 0
      ? `<p class="muted">No completed match yet.</p>`
      : `<table><thead><tr><th>Match</th><th>Ended</th><th class="num">Hands</th><th>Winner</th><th>Players</th></tr></thead><tbody>${rows}</tbody></table>`
  }</section>`;
}

/** The house's badge beside a bot's name in a list (docs/LADDER.md, "The house"). */
export const houseBadge = (house: boolean) => (house ? ` <span class="badge house" data-house title="One of the ladder house's built-ins">house</span>` : "");

function boardTable(entries: BoardEntry[], names: Names, offset = 0, house: Set<string> = new Set()): string {
  if (entries.length === 0) return `<p class="muted">No bot has played enough matches yet.</p>`;
  const rows = entries
    .map((e, i) => `<tr data-bot="${escapeHtml(e.botId)}"><td class="num">${offset + i + 1}</td><td>${botLink(e.botId, names)}${houseBadge(house.has(e.botId))}</td><td class="num">${signed(e.netChips)}</td><td class="num">${e.matchesPlayed}</td></tr>`)
    .join("");
  return `<table id="net-chips"><thead><tr><th class="num">#</th><th>Bot</th><th class="num">Net chips</th><th class="num">Matches</th></tr></thead><tbody>${rows}</tbody></table>`;
}

export function lobbyPage(tables: TableView[], matches: MatchSummary[], board: BoardEntry[], names: Names): string {
  return page(
    "Lobby",
    `<h1>Lobby</h1>${tablesSection(tables, names)}${matchesSection(matches, names)}
<section aria-labelledby="top-title"><h2 id="top-title">Leaderboard (top ${board.length})</h2>${boardTable(board, names)}<p><a href="/leaderboard">The whole leaderboard and the ratings</a></p></section>`,
  );
}

export function leaderboardPage(board: BoardEntry[], ratings: RatingEntry[], minMatches: number, names: Names, house: Set<string> = new Set()): string {
  const ratingRows = ratings
    .map(
      (r, i) => `<tr data-bot="${escapeHtml(r.botId)}"><td class="num">${i + 1}</td><td>${botLink(r.botId, names)}${houseBadge(house.has(r.botId))}</td><td class="num">${fixed(r.rating, 2)}</td><td class="num">${fixed(r.mu, 2)} ± ${fixed(r.sigma, 2)}</td>
<td class="num">${fixed(r.bbPer100)}</td><td class="num">${r.bbPer100Ci95 ? `${fixed(r.bbPer100Ci95[0])} … ${fixed(r.bbPer100Ci95[1])}` : "—"}</td><td class="num">${r.matchesPlayed}</td></tr>`,
    )
    .join("");
  return page(
    "Leaderboard",
    `<h1>Leaderboard</h1>
<section aria-labelledby="net-title"><h2 id="net-title">Net chips</h2><p class="muted">The brief's leaderboard: bots with at least ${minMatches} completed matches, by net chips. A record of chips won, not of skill (self-play counts here).</p>${boardTable(board, names, 0, house)}</section>
<section aria-labelledby="ratings-title"><h2 id="ratings-title">Ratings</h2><p class="muted">OpenSkill ratings (rating = μ − 3σ) and win rate in big blinds per 100 hands with a 95 % interval, from matches against other developers' bots.</p>${
      ratings.length === 0
        ? `<p class="muted">No rated match yet.</p>`
        : `<table id="ratings"><thead><tr><th class="num">#</th><th>Bot</th><th class="num">Rating</th><th class="num">μ ± σ</th><th class="num">bb/100</th><th class="num">95 % interval</th><th class="num">Matches</th></tr></thead><tbody>${ratingRows}</tbody></table>`
    }</section>`,
  );
}

export interface BotPageData {
  bot: { botId: string; name: string; description: string; createdAt: string; hosted: boolean; house: boolean };
  stats: Record<string, number | string | null>;
  rating: RatingEntry | null;
  matches: MatchSummary[];
  ladder: LadderEntryView[];
}

const STATUS_WORDS: Record<LadderEntryView["status"], string> = { active: "active", paused: "paused", left: "left" };

/**
 * The bot's ladder entries: format, status, matches. Why an entry does not play is its owner's
 * (a public INSUFFICIENT_BALANCE would publish a balance, BOT_OFFLINE whether a bot runs), and so
 * is how the bot is connected: the owner signs in below and reads both in words (client/owner.ts);
 * the house's reasons are public.
 */
function ladderSection(entries: LadderEntryView[], house: boolean): string {
  const body =
    entries.length === 0
      ? `<p class="muted">Not entered in the ladder.</p>`
      : `<table id="ladder-entries"><thead><tr><th>Format</th><th>Status</th><th class="num">Ladder matches</th><th>Entered</th></tr></thead><tbody>${entries
          .map((e) => {
            const reason = house && e.reason ? ` <span class="muted" data-reason>${escapeHtml(e.reason)}</span>` : "";
            return `<tr data-format="${escapeHtml(e.format)}"><td>${escapeHtml(e.format)}</td><td><span class="badge ${e.status}" data-status="${e.status}">${STATUS_WORDS[e.status]}</span>${reason}</td>
<td class="num">${e.matchesPlayed}</td><td>${time(e.enteredAt)}</td></tr>`;
          })
          .join("")}</tbody></table>`;
  const owner = house
    ? ""
    : `<details id="ladder-owner"><summary>Your bot? Sign in to see how it is connected${entries.length === 0 ? "" : " and why an entry waits or is paused"}</summary>
<form id="owner-form"><label>Email <input type="email" id="owner-email" autocomplete="username" required></label> <label>Password <input type="password" id="owner-password" autocomplete="current-password" required></label> <button type="submit">Show</button></form>
<p class="muted">Your token stays in this tab and goes only to this service's API.</p><p id="owner-connection" aria-live="polite"></p><ul id="owner-entries" aria-live="polite"></ul></details>`;
  return `<section aria-labelledby="ladder-title"><h2 id="ladder-title">Ladder</h2>${body}${owner}<p><a href="/ladder">The ladder's standings</a></p></section>`;
}

const STAT_LABELS: Array<[string, string]> = [
  ["matchesPlayed", "Matches played"],
  ["matchesWon", "Matches won"],
  ["handsPlayed", "Hands played"],
  ["handsWon", "Hands won"],
  ["totalBuyIns", "Total buy-ins"],
  ["totalWinnings", "Total winnings"],
  ["netChips", "Net chips"],
  ["biggestWin", "Biggest win"],
  ["biggestLoss", "Biggest loss"],
];

export function botPage({ bot, stats, rating, matches, ladder }: BotPageData, names: Names): string {
  const statItems = STAT_LABELS.map(([key, label]) => `<div><dt>${label}</dt><dd data-stat="${key}">${escapeHtml(stats[key])}</dd></div>`).join("");
  const ratingItems = rating && rating.matchesPlayed > 0
    ? `<div><dt>Rating (μ − 3σ)</dt><dd data-stat="rating">${fixed(rating.rating, 2)}</dd></div><div><dt>μ ± σ</dt><dd>${fixed(rating.mu, 2)} ± ${fixed(rating.sigma, 2)}</dd></div>
<div><dt>bb/100 (95 %)</dt><dd data-stat="bbPer100">${rateWithInterval(rating.bbPer100, rating.bbPer100Ci95)}</dd></div>
<div><dt title="all-in adjusted and chance corrected: the luck the cards dealt taken out">adjusted bb/100 (95 %)</dt><dd data-stat="bbPer100Adjusted">${rateWithInterval(rating.bbPer100Adjusted, rating.bbPer100AdjustedCi95)}</dd></div>`
    : `<div><dt>Rating</dt><dd class="muted">not rated yet</dd></div>`;
  // Oldest first for the chart: net chips after each of the recent matches.
  const chronological = [...matches].reverse();
  let net = 0;
  const points = [0, ...chronological.map((m) => (net += m.players.find((p) => p.botId === bot.botId)?.profit ?? 0))];
  const chart = matches.length > 0 ? lineChartSvg([{ label: bot.name, points }], { title: `Net chips over its last ${matches.length} matches`, yLabel: "net chips", xLabel: "match" }) : "";
  return page(
    bot.name,
    `<h1>${escapeHtml(bot.name)} <span class="muted">${escapeHtml(bot.botId)}</span>${bot.hosted ? ` <span class="badge" data-hosted title="The service runs this bot's uploaded code">hosted</span>` : ""}${
      bot.house ? ` <span class="badge house" data-house title="One of the ladder house's built-ins">house</span>` : ""
    }</h1>
${bot.description ? `<p>${escapeHtml(bot.description)}</p>` : ""}<p class="muted">Registered ${time(bot.createdAt)} · last played ${time(stats.lastPlayed as string | null)}</p>
<section aria-labelledby="stats-title"><h2 id="stats-title">Statistics</h2><dl class="stats">${statItems}${ratingItems}</dl></section>
${ladderSection(ladder, bot.house)}
${chart ? `<section aria-labelledby="chart-title"><h2 id="chart-title">Net chips</h2>${chart}</section>` : ""}
${matchesSection(matches, names, "Recent matches")}`,
    // The owner's view (client/owner.ts): how the bot is connected, and its ladder entries; the house's bots have no owner to sign in.
    !bot.house ? { script: "owner", data: { botId: bot.botId, name: bot.name } } : {},
  );
}
