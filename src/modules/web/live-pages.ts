import type { TableView } from "../tables/views";
import { escapeHtml, shortId } from "./view-kit";
import { page } from "./layout";
import type { MatchSummary } from "./pages";
import { TV_WINDOW_MS, type TvProgram } from "./tv";

/** The replay; `startHand`: opened at that hand (the hand's own page, /matches/:id/hands/:n). */
export function replayPage(match: MatchSummary & { voidedHands: number[] }, names: Record<string, string>, startHand?: number): string {
  const players = match.players
    .map((p) => `<li><a href="/bots/${encodeURIComponent(p.botId)}">${escapeHtml(names[p.botId] ?? shortId(p.botId))}</a>: ${p.finalChips} chips (${p.profit > 0 ? "+" : ""}${p.profit})</li>`)
    .join("");
  const id = encodeURIComponent(match.matchId);
  return page(
    startHand === undefined ? `Replay ${shortId(match.matchId)}` : `Hand ${startHand} of ${shortId(match.matchId)}`,
    `<h1>${startHand === undefined ? "Match replay" : `Hand ${startHand}`} <span class="muted">${startHand === undefined ? "" : `of the match `}${escapeHtml(match.matchId)}</span></h1>
<p>${match.handsPlayed} hands · blinds ${match.config.smallBlind}/${match.config.bigBlind} · buy-in ${match.config.buyIn} · <a href="/api/matches/${id}/hands?format=phh" download="${id}.phhs">download the hand histories (PHH)</a></p>
${voidedNote(match.voidedHands)}
<section id="viewer" aria-label="replay viewer"><div id="table"><p class="muted">Loading the hand histories…</p></div>
<p id="position" aria-live="polite"></p><p id="note" aria-live="polite"></p>
<p id="hand-share">This hand's page: <a id="hand-link" href="/matches/${id}/hands/${startHand ?? 1}">/matches/${escapeHtml(match.matchId)}/hands/${startHand ?? 1}</a> <button id="copy-link" type="button">Copy link</button></p>
<div class="controls" role="toolbar" aria-label="replay controls"><button id="prev-hand" title="previous hand (↑)">« Hand</button><button id="prev-step" title="previous action (←)">◀ Action</button>
<button id="play" aria-pressed="false" title="play or pause (space)">Play</button><button id="next-step" title="next action (→)">Action ▶</button><button id="next-hand" title="next hand (↓)">Hand »</button><button id="next-showdown">Next showdown</button></div>
<p class="muted">Keys: ← → action, ↑ ↓ hand, space play/pause. Hole cards appear where they were shown down.</p></section>
<section aria-labelledby="chips-title"><h2 id="chips-title">Chips over the match</h2><div id="chart"></div></section>
<section aria-labelledby="result-title"><h2 id="result-title">Result</h2><ul>${players}</ul></section>`,
    { script: "replay", data: { matchId: match.matchId, maxPlayers: match.config.maxPlayers, buyIn: match.config.buyIn, names, startHand: startHand ?? null } },
  );
}

const ENDED: Record<string, string> = {
  finished: "This table is finished: its match is over.",
  aborted: "This table was aborted: its match did not finish.",
  closed: "This table was closed by its creator before any match.",
};

/** Who sits at a table that is not playing: its seats and chips (a waiting table's page lists them). */
function seatList(table: TableView, names: Record<string, string>): string {
  if (table.seats.length === 0) return `<p class="muted">No bot sits here yet.</p>`;
  return `<ul id="seats">${table.seats.map((s) => `<li>seat ${s.seat}: <a href="/bots/${encodeURIComponent(s.botId)}">${escapeHtml(names[s.botId] ?? shortId(s.botId))}</a> · ${s.chips} chips</li>`).join("")}</ul>`;
}

/** A copy of a duplicate match names the other (docs/FAIRNESS.md: the same decks, the seats swapped). */
function twinNote(table: TableView): string {
  if (!table.twinTableId) return "";
  return ` · <span id="twin">copy ${table.copy} of a duplicate match (the same decks, seats swapped, at <a href="/tables/${encodeURIComponent(table.twinTableId)}">copy ${table.copy === 1 ? 2 : 1}</a>)</span>`;
}

export function livePage(table: TableView, names: Record<string, string>): string {
  const heading = `<h1>Table <span class="muted">${escapeHtml(table.tableId)}</span></h1>
<p>${table.config.maxPlayers} seats · blinds ${table.config.smallBlind}/${table.config.bigBlind} · buy-in ${table.config.buyIn}${table.seeded ? " · seeded" : ""}${twinNote(table)}</p>`;
  const ended = ENDED[table.status];
  if (ended) {
    // Nothing will move here: no live script, no empty felt; the match itself is in its replay.
    const replay = table.matchId ? ` <a href="/matches/${encodeURIComponent(table.matchId)}">Watch its match replay</a> (${table.handsPlayed} hands).` : "";
    return page(`Table ${shortId(table.tableId)}`, `${heading}<section id="ended" aria-label="table over"><p id="status">${ended}${replay}</p></section>`);
  }
  const waiting =
    table.status === "waiting"
      ? `<section aria-labelledby="seats-title"><h2 id="seats-title">Seats</h2><p>Waiting for ${table.config.maxPlayers - table.seats.length} more bot${table.config.maxPlayers - table.seats.length === 1 ? "" : "s"}: the match starts when every seat is taken.</p>${seatList(table, names)}</section>`
      : "";
  return page(
    `Table ${shortId(table.tableId)}`,
    `${heading}${waiting}
<section id="live" aria-label="live table"><p id="status" aria-live="polite">${table.status === "running" ? "live" : escapeHtml(table.status)}</p><p id="hand"></p><div id="table"></div></section>
<section aria-labelledby="log-title"><h2 id="log-title">What just happened</h2><ol id="log" reversed></ol></section>`,
    { script: "live", data: { tableId: table.tableId, maxPlayers: table.config.maxPlayers, seats: table.seats, names } },
  );
}

/** Hands a resumption voided: the replay skips them, and says so (they may have been seen live). */
function voidedNote(voided: number[]): string {
  if (voided.length === 0) return "";
  const shown = voided.length > 12 ? `${voided.slice(0, 12).join(", ")} … (${voided.length} in all)` : voided.join(", ");
  return `<p class="note" id="voided">Voided hands: ${shown}. This match resumed after its server stopped; hands dealt before that and not recorded never happened (their chips were returned), and their numbers were never dealt again.</p>`;
}

/** /tv: the channel's program now (client/tv.ts plays it at the same moment for every viewer). */
export function tvPage(program: TvProgram | null, serverNow: number, settings: { actionMs: number; handsPerMatch: number }): string {
  const how = `TV plays rated matches at a pace a person can read: of those that ended in the last ${TV_WINDOW_MS / 60_000} minutes, the pairing with the highest average rating (none: the latest rated match); of it, its ${settings.handsPerMatch} biggest pots in the order they were played, one action every ${settings.actionMs / 1000} s; then the next match. So it runs behind live: by how much is shown beside each hand.`;
  return page(
    "TV",
    `<h1>TV</h1><p id="tv-how" class="muted">${escapeHtml(how)}</p>
<section id="tv" aria-label="TV table" data-step="-1"><p id="tv-title" aria-live="polite">${program ? "" : "No rated match yet: TV starts with the first one."}</p><p id="tv-behind" class="muted"></p><div id="table"></div></section>
<section aria-labelledby="tv-log-title"><h2 id="tv-log-title">The hand so far</h2><ol id="tv-log"></ol></section>`,
    { script: "tv", data: { program, serverNow } },
  );
}
