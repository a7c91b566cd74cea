import type { PublicTableConfig } from "@poker-bots/protocol";
import type { RatingEntry } from "../ratings/service";
import type { TableView } from "../tables/views";
import type { MatchKind } from "../matches/service";
import { escapeHtml, shortId } from "./view-kit";
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
export const signed = (n: number) => (n > 0 ? `+${n}` : String(n));
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

/** A match's kind as a badge: the ladder's (rated), or a private table's (rated only against other developers' bots). */
function kindBadge(kind: MatchKind | undefined): string {
  if (!kind) return "";
  const rated = kind.rated ? ` <span class="badge" title="counts toward the ratings">rated</span>` : "";
  if (kind.ladder) return `<span class="badge ladder" data-kind="ladder">ladder ${escapeHtml(kind.ladder)}</span>${rated}`;
  if (kind.tournamentId) return `<a class="badge" data-kind="tournament" href="/tournaments/${encodeURIComponent(kind.tournamentId)}">tournament</a>${rated}`;
  if (kind.challenge) return `<span class="badge" data-kind="challenge" title="a challenge: never rated">challenge</span>`;
  return `<span class="badge" data-kind="private">private</span>${rated}`;
}

export function matchesSection(matches: MatchSummary[], names: Names, title = "Latest matches", kinds?: Map<string, MatchKind>): string {
  const rows = matches
    .map(
      (m) => `<tr data-match="${escapeHtml(m.matchId)}"><td><a href="/matches/${encodeURIComponent(m.matchId)}">${escapeHtml(shortId(m.matchId))}</a></td>${kinds ? `<td>${kindBadge(kinds.get(m.matchId))}</td>` : ""}<td>${time(m.endedAt)}</td>
<td class="num">${m.handsPlayed}</td><td>${m.winners.map((w) => `${botLink(w.botId, names)} (${signed(w.amount)})`).join(", ")}</td>
<td>${m.players.map((p) => botLink(p.botId, names)).join(", ")}</td></tr>`,
    )
    .join("");
  return `<section aria-labelledby="matches-title"><h2 id="matches-title">${escapeHtml(title)}</h2>${
    matches.length === 0
      ? `<p class="muted">No completed match yet.</p>`
      : `<table><thead><tr><th>Match</th>${kinds ? "<th>Kind</th>" : ""}<th>Ended</th><th class="num">Hands</th><th>Winner</th><th>Players</th></tr></thead><tbody>${rows}</tbody></table>`
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

export function lobbyPage(tables: TableView[], matches: MatchSummary[], board: BoardEntry[], names: Names, kinds?: Map<string, MatchKind>): string {
  return page(
    "Lobby",
    `<h1>Lobby</h1>${tablesSection(tables, names)}${matchesSection(matches, names, "Latest matches", kinds)}
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

