/**
 * /tournaments and /tournaments/:id (docs/COMPETITIONS.md): what GET /api/tournaments shows anyone,
 * server-rendered. A sit-and-go shows its entries, its live table (a link to the table's page) and
 * its places; a round robin its schedule, its crosstable as a heat map with intervals, and its standings.
 */
import type { TournamentView } from "../competitions/tournaments";
import { page, time } from "./layout";
import { botLink, fixed, rateWithInterval, type Names } from "./pages";
import { escapeHtml } from "./view-kit";

const STATUS_TITLES: Array<[TournamentView["status"], string]> = [
  ["registering", "Upcoming"],
  ["running", "Running"],
  ["finished", "Finished"],
];

function describe(t: TournamentView): string {
  if (t.kind === "sit-and-go") return `Sit-and-go · ${t.seats} seats · buy-in ${t.buyIn}`;
  return `Round robin (${t.division}) · ${t.matchesPerPair} × ${t.handsPerMatch} hands per pair · buy-in ${t.buyIn} · blinds ${t.smallBlind}/${t.bigBlind}`;
}

/** /tournaments: upcoming, running and finished events. */
export function tournamentsPage(byStatus: Map<TournamentView["status"], TournamentView[]>): string {
  const sections = STATUS_TITLES.map(([status, title]) => {
    const list = byStatus.get(status) ?? [];
    const rows = list
      .map((t) => `<li data-tournament="${escapeHtml(t.tournamentId)}"><a href="/tournaments/${encodeURIComponent(t.tournamentId)}">${escapeHtml(describe(t))}</a> <span class="muted">${t.entries.length} entries · created ${time(t.createdAt)}</span></li>`)
      .join("");
    return `<section aria-labelledby="t-${status}"><h2 id="t-${status}">${title}</h2>${list.length === 0 ? `<p class="muted">None.</p>` : `<ul class="tournaments">${rows}</ul>`}</section>`;
  });
  return page(
    "Tournaments",
    `<h1>Tournaments</h1>
<p>Sit-and-go freezeouts (rising blinds, until one bot holds every chip) and round robins (every pair meets; the hosted division deals every match of a round the same decks). Create one with <code>bun run cli -- tournaments create</code> or <code>POST /api/tournaments</code>; enter with <code>bun run cli -- tournaments enter &lt;id&gt; &lt;bot&gt;</code>. Entries are ordinary seats: each buy-in is the brief's <code>buy_in</code>.</p>
${sections.join("\n")}`,
  );
}

/** A cell's colour class (the stylesheet's, no inline style: the pages' CSP): green for the row bot's win, red for its loss, five steps up to ±100 bb/100. */
function heat(bbPer100: number): string {
  const step = Math.min(5, 1 + Math.floor(Math.abs(bbPer100) / 20));
  return ` class="num heat-${bbPer100 >= 0 ? "win" : "loss"}-${step}"`;
}

function crosstableSection(t: TournamentView, names: Names): string {
  const cells = t.crosstable ?? [];
  const bots = (t.standings ?? []).map((s) => s.botId);
  if (bots.length === 0) return "";
  const cellOf = (a: string, b: string) => cells.find((c) => c.botId === a && c.opponentBotId === b);
  const header = bots.map((b) => `<th scope="col">${botLink(b, names)}</th>`).join("");
  const rows = bots
    .map((a) => {
      const tds = bots
        .map((b) => {
          if (a === b) return `<td class="num muted">—</td>`;
          const cell = cellOf(a, b);
          if (!cell || cell.bbPer100 === null) return `<td class="num muted" data-pair="${escapeHtml(`${a}|${b}`)}">${cell?.matches ?? 0} played</td>`;
          const ci = cell.ci95 ? `95 % interval ${fixed(cell.ci95[0])} … ${fixed(cell.ci95[1])}` : "one match: no interval";
          return `<td data-pair="${escapeHtml(`${a}|${b}`)}"${heat(cell.bbPer100)} title="${escapeHtml(`${cell.matches} matches; ${ci}`)}">${rateWithInterval(cell.bbPer100, cell.ci95)}</td>`;
        })
        .join("");
      return `<tr><th scope="row">${botLink(a, names)}</th>${tds}</tr>`;
    })
    .join("");
  return `<section aria-labelledby="crosstable-title"><h2 id="crosstable-title">Crosstable</h2>
<p class="muted">Each cell: the row bot's big blinds won per 100 hands against the column bot over their matches, with the 95 % interval of the per-match rates; green won, red lost.</p>
<table id="crosstable" class="crosstable"><thead><tr><th></th>${header}</tr></thead><tbody>${rows}</tbody></table></section>`;
}

function standingsSection(t: TournamentView, names: Names): string {
  const rows = (t.standings ?? [])
    .map(
      (s) =>
        `<tr data-bot="${escapeHtml(s.botId)}"><td class="num">${s.rank}</td><td>${botLink(s.botId, names)}</td><td class="num" data-points>${s.points}</td><td class="num">${s.matches}</td><td class="num">${s.bbPer100 === null ? "—" : rateWithInterval(s.bbPer100, s.ci95)}</td><td class="num" title="Share of bootstrap resamples of the matches in which this bot still ranks above the next">${s.overNext === null ? "—" : `${Math.round(100 * s.overNext)} %`}</td></tr>`,
    )
    .join("");
  if (!rows) return "";
  return `<section aria-labelledby="standings-title"><h2 id="standings-title">Standings${t.status === "finished" ? " (final)" : " (so far)"}</h2>
<table id="standings" class="standings"><thead><tr><th class="num">#</th><th>Bot</th><th class="num" title="1 a match won, ½ level, 0 lost or forfeited">Points</th><th class="num">Matches</th><th class="num">bb/100 (95 %)</th><th class="num">Sure over next</th></tr></thead><tbody>${rows}</tbody></table></section>`;
}

function scheduleSection(t: TournamentView, names: Names): string {
  const rows = (t.matches ?? [])
    .map((m) => {
      const link = m.matchId ? `<a href="/matches/${encodeURIComponent(m.matchId)}">${m.status}</a>` : m.tableId && m.status === "playing" ? `<a href="/tables/${encodeURIComponent(m.tableId)}">playing</a>` : m.status;
      return `<tr><td class="num">${m.round}</td><td>${botLink(m.players[0], names)} – ${botLink(m.players[1], names)}</td><td>${link}${m.forfeitedBy ? ` (${botLink(m.forfeitedBy, names)} forfeited)` : ""}</td></tr>`;
    })
    .join("");
  if (!rows) return "";
  return `<section aria-labelledby="schedule-title"><h2 id="schedule-title">Matches</h2><table class="schedule"><thead><tr><th class="num">Round</th><th>Pair</th><th>Match</th></tr></thead><tbody>${rows}</tbody></table></section>`;
}

function sitAndGoSections(t: TournamentView, names: Names): string {
  const live = t.tableId && t.status === "running" ? `<p id="live-table">Playing now: <a href="/tables/${encodeURIComponent(t.tableId)}">watch the table live</a>.</p>` : "";
  const levels = (t.blindLevels ?? []).map((l, i) => `<li>Level ${i + 1}: ${l.smallBlind}/${l.bigBlind}${i + 1 === t.blindLevels!.length ? " to the end" : `, ${l.hands} hands`}</li>`).join("");
  const places = (t.places ?? [])
    .map((p) => `<tr data-bot="${escapeHtml(p.botId)}"><td class="num">${p.place}</td><td>${botLink(p.botId, names)}</td><td class="num">${p.cashout}</td></tr>`)
    .join("");
  return `${live}<section aria-labelledby="levels-title"><h2 id="levels-title">Blinds</h2><ol>${levels}</ol></section>
${places ? `<section aria-labelledby="places-title"><h2 id="places-title">Final places</h2><table id="places"><thead><tr><th class="num">Place</th><th>Bot</th><th class="num">Cashout</th></tr></thead><tbody>${places}</tbody></table>${t.matchId ? `<p><a href="/matches/${encodeURIComponent(t.matchId)}">The match, hand by hand</a></p>` : ""}</section>` : ""}`;
}

/** /tournaments/:id */
export function tournamentPage(t: TournamentView, names: Names): string {
  const entries = t.entries.map((e) => `<li>${botLink(e.botId, names)}</li>`).join("");
  return page(
    describe(t),
    `<h1>${escapeHtml(describe(t))}</h1>
<p>Status: <strong data-status="${t.status}">${t.status}</strong>${t.kind === "round-robin" && t.rounds ? ` · round ${t.currentRound} of ${t.rounds}` : ""}${t.startsAt ? ` · starts ${time(t.startsAt)}` : ""}</p>
<section aria-labelledby="entries-title"><h2 id="entries-title">Entries (${t.entries.length}${t.seats ? ` of ${t.seats}` : ""})</h2>${entries ? `<ul>${entries}</ul>` : `<p class="muted">None yet.</p>`}</section>
${t.kind === "sit-and-go" ? sitAndGoSections(t, names) : `${standingsSection(t, names)}\n${crosstableSection(t, names)}\n${scheduleSection(t, names)}`}`,
  );
}
