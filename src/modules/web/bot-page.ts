/**
 * A bot's page: its statistics and rating, its rating over time beside its net chips over time,
 * its results by opponent, its ladder entries and recent matches (ladder, private, rated told apart).
 */
import type { LadderEntryView } from "../ladder/service";
import type { MatchKind } from "../matches/service";
import type { OpponentResults, RatingEntry, RatingPoint } from "../ratings/service";
import { page, time } from "./layout";
import { botLink, fixed, matchesSection, rateWithInterval, type MatchSummary, type Names } from "./pages";
import { escapeHtml, lineChartSvg } from "./view-kit";

export interface BotPageData {
  bot: { botId: string; name: string; description: string; createdAt: string; hosted: boolean; house: boolean };
  stats: Record<string, number | string | null>;
  rating: RatingEntry | null;
  matches: MatchSummary[];
  kinds: Map<string, MatchKind>;
  ladder: LadderEntryView[];
  ratingHistory: RatingPoint[];
  opponents: OpponentResults[];
}

const STATUS_WORDS: Record<LadderEntryView["status"], string> = { active: "active", paused: "paused", left: "left" };

/**
 * The bot's ladder entries: format, status, matches. Why an entry does not play is its owner's
 * (a public INSUFFICIENT_BALANCE would publish a balance, BOT_OFFLINE whether a bot runs), and so
 * is how the bot is connected: the owner reads both on /me, or signs in below (client/owner.ts);
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
<p class="muted">Your token stays in this tab and goes only to this service's API. Signed in on <a href="/me">your account page</a>, you see it there too.</p><p id="owner-connection" aria-live="polite"></p><ul id="owner-entries" aria-live="polite"></ul></details>`;
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

const day = (iso: string | null) => (iso ? iso.slice(5, 10) : "");
/** An x label: the match's number, and its date under the first and last. */
const matchLabels = (ends: Array<string | null>) => ends.map((end, i) => (i === 0 || i === ends.length - 1 ? `#${i + 1} (${day(end)})` : `#${i + 1}`));

function ratingChart(history: RatingPoint[], name: string): string {
  if (history.length === 0) return `<p class="muted">No rated match yet.</p>`;
  const span = history.length === 1 ? "" : ` from ${day(history[0].endedAt)} to ${day(history[history.length - 1].endedAt)}`;
  return lineChartSvg(
    [{ label: `${name} (μ ± 3σ)`, points: history.map((p) => p.mu), band: { low: history.map((p) => p.mu - 3 * p.sigma), high: history.map((p) => p.mu + 3 * p.sigma) } }],
    { id: "rating-chart", title: `Rating after each of its ${history.length} rated matches${span}`, note: "The line is the skill estimate μ, the shade μ ± 3σ: its lower edge is the rating (μ − 3σ).", yLabel: "skill (μ)", xLabel: "rated match (number, month-day)", xLabels: matchLabels(history.map((p) => p.endedAt)) },
  );
}

function netChipsChart(matches: MatchSummary[], botId: string, name: string): string {
  if (matches.length === 0) return `<p class="muted">No completed match yet.</p>`;
  // Oldest first: net chips after each of the recent matches, from 0 before the first.
  const chronological = [...matches].reverse();
  let net = 0;
  const points = [0, ...chronological.map((m) => (net += m.players.find((p) => p.botId === botId)?.profit ?? 0))];
  const labels = ["start", ...matchLabels(chronological.map((m) => m.endedAt))];
  return lineChartSvg([{ label: name, points }], { id: "net-chart", title: `Net chips over its last ${matches.length} matches`, yLabel: "net chips", xLabel: "match (number, month-day)", xLabels: labels });
}

function opponentsSection(opponents: OpponentResults[], names: Names): string {
  const body =
    opponents.length === 0
      ? `<p class="muted">No rated match yet.</p>`
      : `<table id="by-opponent"><thead><tr><th>Opponent</th><th class="num">Matches</th><th class="num">Hands</th><th class="num">bb/100 (95 %)</th><th class="num">adjusted bb/100 (95 %)</th></tr></thead><tbody>${opponents
          .map(
            (o) => `<tr data-opponent="${escapeHtml(o.opponentId)}"><td>${botLink(o.opponentId, names)}</td><td class="num">${o.matches}</td><td class="num">${o.hands}</td>
<td class="num" data-rate="raw">${rateWithInterval(o.bbPer100, o.bbPer100Ci95)}</td><td class="num" data-rate="adjusted">${rateWithInterval(o.bbPer100Adjusted, o.bbPer100AdjustedCi95)}</td></tr>`,
          )
          .join("")}</tbody></table>`;
  return `<section aria-labelledby="opponents-title"><h2 id="opponents-title">Results by opponent</h2><p class="muted">Rated matches only. Its own hands against each opponent (at a table of more, they count against each of the others); adjusted: the luck taken out by the estimator that rated the matches (docs/RATINGS.md; aivat-2 today).</p>${body}</section>`;
}

export function botPage(d: BotPageData, names: Names): string {
  const { bot, stats, rating } = d;
  const statItems = STAT_LABELS.map(([key, label]) => `<div><dt>${label}</dt><dd data-stat="${key}">${escapeHtml(stats[key])}</dd></div>`).join("");
  const ratingItems =
    rating && rating.matchesPlayed > 0
      ? `<div><dt>Rating (μ − 3σ)</dt><dd data-stat="rating">${fixed(rating.rating, 2)}</dd></div><div><dt>μ ± σ</dt><dd>${fixed(rating.mu, 2)} ± ${fixed(rating.sigma, 2)}</dd></div>
<div><dt>bb/100 (95 %)</dt><dd data-stat="bbPer100">${rateWithInterval(rating.bbPer100, rating.bbPer100Ci95)}</dd></div>
<div><dt title="the luck the cards dealt taken out (docs/RATINGS.md): all-in adjusted, chance corrected and, with aivat-2, a reference bot's results on the same deals and the luck of the deal and of the flop">adjusted bb/100 (95 %)</dt><dd data-stat="bbPer100Adjusted">${rateWithInterval(rating.bbPer100Adjusted, rating.bbPer100AdjustedCi95)}</dd></div>
<div><dt title="which estimator took the luck out (docs/RATINGS.md, Estimators)">estimator</dt><dd data-stat="estimator">${escapeHtml(rating.estimator)}</dd></div>`
      : `<div><dt>Rating</dt><dd class="muted">not rated yet</dd></div>`;
  return page(
    bot.name,
    `<h1>${escapeHtml(bot.name)} <span class="muted">${escapeHtml(bot.botId)}</span>${bot.hosted ? ` <span class="badge" data-hosted title="The service runs this bot's uploaded code">hosted</span>` : ""}${
      bot.house ? ` <span class="badge house" data-house title="One of the ladder house's built-ins">house</span>` : ""
    }</h1>
${bot.description ? `<p>${escapeHtml(bot.description)}</p>` : ""}<p class="muted">Registered ${time(bot.createdAt)} · last played ${time(stats.lastPlayed as string | null)}</p>
<section aria-labelledby="stats-title"><h2 id="stats-title">Statistics</h2><dl class="stats">${statItems}${ratingItems}</dl></section>
<div class="charts"><section aria-labelledby="rating-title"><h2 id="rating-title">Rating over time</h2>${ratingChart(d.ratingHistory, bot.name)}</section>
<section aria-labelledby="chart-title"><h2 id="chart-title">Net chips</h2>${netChipsChart(d.matches, bot.botId, bot.name)}</section></div>
${opponentsSection(d.opponents, names)}
${ladderSection(d.ladder, bot.house)}
${matchesSection(d.matches, names, "Recent matches", d.kinds)}`,
    // The owner's view (client/owner.ts): how the bot is connected, and its ladder entries; the house's bots have no owner to sign in.
    !bot.house ? { script: "owner", data: { botId: bot.botId, name: bot.name } } : {},
  );
}
