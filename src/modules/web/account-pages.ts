/**
 * The signed-in developer's pages (issue 39): sign in / register, /me (balance, faucet,
 * transactions, bots and how each plays, ladder entries), and a hosted bot's code and logs.
 * Pure rendering: the routes (account.ts) read the data.
 */
import type { TransactionView } from "../credits/transactions";
import type { CodeVersionView, HostedLogView } from "../hosted/service";
import type { BotConnection } from "../bots/connection-words";
import type { LadderEntryView } from "../ladder/service";
import { entryStateInWords } from "../ladder/words";
import { page, time } from "./layout";
import { escapeHtml, shortId } from "./view-kit";

const when = (iso: string) => `at ${iso.replace("T", " ").slice(0, 16)} UTC`;
const hidden = (name: string, value: string) => `<input type="hidden" name="${name}" value="${escapeHtml(value)}">`;
const alert = (message: string | undefined) => (message ? `<p class="alert" role="alert" id="alert">${escapeHtml(message)}</p>` : "");
const notice = (message: string | undefined) => (message ? `<p class="notice" role="status" id="notice">${escapeHtml(message)}</p>` : "");

/** The sign-out button every signed-in page carries (a form: sign-out changes state, so it is a POST with the token). */
export const signOutForm = (csrf: string) => `<form method="post" action="/logout" class="signout">${hidden("csrf", csrf)}<button type="submit" id="sign-out">Sign out</button></form>`;

export function loginPage(options: { csrf: string; next: string; error?: string; email?: string }): string {
  const { csrf, next } = options;
  const email = escapeHtml(options.email ?? "");
  return page(
    "Sign in",
    `<h1>Sign in</h1>${alert(options.error)}
<section aria-labelledby="login-title"><h2 id="login-title">With your account</h2>
<form method="post" action="/login" id="login-form" class="stacked">${hidden("csrf", csrf)}${hidden("next", next)}
<label>Email <input type="email" name="email" autocomplete="username" required maxlength="254" value="${email}"></label>
<label>Password <input type="password" name="password" autocomplete="current-password" required maxlength="128"></label>
<button type="submit">Sign in</button></form></section>
<section aria-labelledby="register-title"><h2 id="register-title">New here? Register</h2>
<form method="post" action="/register" id="register-form" class="stacked">${hidden("csrf", csrf)}${hidden("next", next)}
<label>Email <input type="email" name="email" autocomplete="email" required maxlength="254"></label>
<label>Password (8 characters or more) <input type="password" name="password" autocomplete="new-password" required minlength="8" maxlength="128"></label>
<label>Name (optional) <input type="text" name="name" maxlength="100"></label>
<button type="submit">Register and sign in</button></form>
<p class="muted">The same account as the API's and the CLI's (<code>bun run cli -- login</code>). Signing in here keeps you signed in on this browser until you sign out or the session expires.</p></section>`,
  );
}

export interface OwnedBotRow {
  botId: string;
  name: string;
  strategy: string | null;
  hosted: boolean;
  codeVersion: number | null;
  house: boolean;
  /** How it plays now (the owner's view, GET /api/me/bots): built-in, hosted, or connected by socket, agent or ACPC, or offline. */
  connection: BotConnection;
  ladder: LadderEntryView[];
}

/**
 * How a bot plays, in words: a built-in the service plays, uploaded code the service runs, or the
 * developer's own program: over the bot socket, an LLM agent through /mcp, or an ACPC player on its
 * TCP port (as it is connected now; not connected, the ways it can be).
 */
export function playsBy(bot: Pick<OwnedBotRow, "strategy" | "hosted" | "codeVersion" | "connection">): { kind: string; words: string } {
  if (bot.strategy) return { kind: "built-in", words: `built-in (${bot.strategy}), played by the service` };
  if (bot.hosted) return { kind: "hosted", words: `hosted: the service runs version ${bot.codeVersion} of your file` };
  if (bot.connection === "agent") return { kind: "agent", words: "an LLM agent, through /mcp (docs/INTEROP.md)" };
  if (bot.connection === "acpc") return { kind: "acpc", words: "an ACPC player, on its one-time TCP port (docs/INTEROP.md)" };
  if (bot.connection === "socket") return { kind: "socket", words: "your program, over the bot socket (WebSocket)" };
  return { kind: "socket", words: "your program: over the bot socket (WebSocket), an agent through /mcp, or an ACPC player" };
}

function connection(bot: OwnedBotRow): string {
  if (bot.strategy || bot.hosted) return `<span class="muted">not needed</span>`;
  return bot.connection !== "offline" ? `<span class="badge running" data-connected="true">connected</span>` : `<span class="badge paused" data-connected="false">not connected</span>`;
}

function botRows(bots: OwnedBotRow[]): string {
  return bots
    .map((bot) => {
      const plays = playsBy(bot);
      const ladder =
        bot.ladder.length === 0
          ? `<span class="muted">not on the ladder</span>`
          : `<ul class="plain">${bot.ladder.map((e) => `<li data-format="${escapeHtml(e.format)}"><strong>${escapeHtml(e.format)}</strong>: ${escapeHtml(entryStateInWords(e, bot.name, when))}</li>`).join("")}</ul>`;
      const code = bot.strategy ? "" : ` · <a href="/me/bots/${encodeURIComponent(bot.botId)}">${bot.hosted ? "code and logs" : "upload code"}</a>`;
      return `<tr data-bot="${escapeHtml(bot.botId)}"><td><a href="/bots/${encodeURIComponent(bot.botId)}">${escapeHtml(bot.name)}</a>${code}</td>
<td data-plays="${plays.kind}">${escapeHtml(plays.words)}</td><td>${connection(bot)}</td><td class="wrap">${ladder}</td></tr>`;
    })
    .join("");
}

const TRANSACTION_WORDS: Record<TransactionView["type"], string> = { faucet: "faucet", buy_in: "buy-in", cashout: "cash-out" };

function transactionRows(items: TransactionView[], names: Record<string, string>): string {
  return items
    .map(
      (t) => `<tr data-type="${t.type}"><td>${time(t.createdAt)}</td><td>${TRANSACTION_WORDS[t.type]}</td><td class="num">${t.amount > 0 ? "+" : ""}${t.amount}</td><td class="num">${t.balanceAfter}</td>
<td>${t.botId ? escapeHtml(names[t.botId] ?? shortId(t.botId)) : ""}</td><td>${t.matchId ? `<a href="/matches/${encodeURIComponent(t.matchId)}">${escapeHtml(shortId(t.matchId))}</a>` : t.tableId ? escapeHtml(shortId(t.tableId)) : ""}</td></tr>`,
    )
    .join("");
}

export interface MePageData {
  csrf: string;
  developer: { email: string; name: string | null };
  balance: { balance: number; canClaimFaucet: boolean; nextFaucetClaim: string | null };
  faucetAmount: number;
  transactions: { items: TransactionView[]; next: string | null };
  bots: OwnedBotRow[];
  names: Record<string, string>;
  notice?: string;
  error?: string;
}

export function mePage(d: MePageData): string {
  const faucet = d.balance.canClaimFaucet
    ? `<form method="post" action="/me/faucet" class="inline">${hidden("csrf", d.csrf)}<button type="submit" id="claim-faucet">Claim ${d.faucetAmount} credits</button></form>`
    : `<p id="faucet-next">The faucet opens again ${time(d.balance.nextFaucetClaim)}.</p>`;
  const more = d.transactions.next ? `<p><a id="older" href="/me?before=${encodeURIComponent(d.transactions.next)}">Older transactions</a></p>` : "";
  return page(
    "My account",
    `<h1>My account <span class="muted">${d.developer.name ? `${escapeHtml(d.developer.name)} · ` : ""}${escapeHtml(d.developer.email)}</span></h1>${signOutForm(d.csrf)}${notice(d.notice)}${alert(d.error)}
<section aria-labelledby="balance-title"><h2 id="balance-title">Balance</h2><p class="balance"><span id="balance">${d.balance.balance}</span> credits</p>${faucet}</section>
<section aria-labelledby="bots-title"><h2 id="bots-title">My bots</h2>${
      d.bots.length === 0
        ? `<p class="muted">No bot yet: <code>bun run cli -- bots create &lt;name&gt;</code> or <code>POST /api/bots</code>.</p>`
        : `<table id="my-bots"><thead><tr><th>Bot</th><th>Plays as</th><th>Connection</th><th>Ladder</th></tr></thead><tbody>${botRows(d.bots)}</tbody></table>`
    }</section>
<section aria-labelledby="transactions-title"><h2 id="transactions-title">Transactions</h2>${
      d.transactions.items.length === 0
        ? `<p class="muted">None yet.</p>`
        : `<table id="transactions"><thead><tr><th>When</th><th>Type</th><th class="num">Amount</th><th class="num">Balance after</th><th>Bot</th><th>Match / table</th></tr></thead><tbody>${transactionRows(d.transactions.items, d.names)}</tbody></table>`
    }${more}</section>`,
  );
}

export interface HostedPageData {
  csrf: string;
  bot: { botId: string; name: string; hosted: boolean };
  versions: CodeVersionView[];
  logs: { matchId: string | null; items: HostedLogView[] };
  recentMatches: string[];
  notice?: string;
  error?: { message: string; details: string[] };
}

/** A hosted bot's page for its owner: upload a new version (the upload's errors shown as they came), its versions, its logs per match. */
export function hostedBotPage(d: HostedPageData): string {
  const errorBlock = d.error
    ? `<div class="alert" role="alert" id="alert"><p>${escapeHtml(d.error.message)}</p>${d.error.details.length ? `<pre id="upload-details">${escapeHtml(d.error.details.join("\n"))}</pre>` : ""}</div>`
    : "";
  const versions =
    d.versions.length === 0
      ? `<p class="muted">No version uploaded: the bot plays through its socket.</p>`
      : `<table id="versions"><thead><tr><th class="num">Version</th><th>Uploaded</th><th>Language</th><th class="num">Bytes</th><th>SHA-256</th><th></th></tr></thead><tbody>${d.versions
          .map((v) => `<tr data-version="${v.version}"><td class="num">${v.version}</td><td>${time(v.createdAt)}</td><td>${v.language}</td><td class="num">${v.bytes}</td><td><code>${v.sha256.slice(0, 12)}…</code></td><td>${v.current ? `<span class="badge running">current</span>` : ""}</td></tr>`)
          .join("")}</tbody></table>`;
  const matchLinks = d.recentMatches.map((m) => `<a href="/me/bots/${encodeURIComponent(d.bot.botId)}?match=${encodeURIComponent(m)}"${m === d.logs.matchId ? ` aria-current="true"` : ""}>${escapeHtml(shortId(m))}</a>`).join(" · ");
  const logs =
    d.logs.items.length === 0
      ? `<p class="muted">${d.logs.matchId ? "Nothing logged in this match." : "The bot has not logged anything yet."}</p>`
      : `<table id="logs"><thead><tr><th class="num">Hand</th><th>Kind</th><th>Line</th></tr></thead><tbody>${d.logs.items
          .map((l) => `<tr data-kind="${l.kind}"><td class="num">${l.handNumber ?? ""}</td><td>${escapeHtml(l.kind === "failure" ? `failure (${l.failure})` : l.kind)}</td><td class="wrap"><code>${escapeHtml(l.message)}</code></td></tr>`)
          .join("")}</tbody></table>`;
  return page(
    `${d.bot.name}: code`,
    `<h1>${escapeHtml(d.bot.name)} <span class="muted">hosted code and logs · <a href="/me">my account</a></span></h1>${signOutForm(d.csrf)}${notice(d.notice)}${errorBlock}
<section aria-labelledby="upload-title"><h2 id="upload-title">Upload a new version</h2>
<form method="post" action="/me/bots/${encodeURIComponent(d.bot.botId)}/code" enctype="multipart/form-data" id="upload-form" class="stacked">${hidden("csrf", d.csrf)}
<label><span>Bot file (.ts or .js: <code>export default defineBot({ decide })</code>)</span><input type="file" name="file" accept=".ts,.js,.mjs,text/typescript,application/javascript" required></label>
<button type="submit">Upload</button></form>
<p class="muted">Checked as <code>PUT /api/bots/:botId/code</code> checks it: built, loaded in the sandbox and played through a sample hand; a file that fails is not stored. From its first upload the bot is hosted.</p></section>
<section aria-labelledby="versions-title"><h2 id="versions-title">Versions</h2>${versions}</section>
<section aria-labelledby="logs-title"><h2 id="logs-title">Logs${d.logs.matchId ? ` of match <a href="/matches/${encodeURIComponent(d.logs.matchId)}">${escapeHtml(shortId(d.logs.matchId))}</a>` : ""}</h2>${matchLinks ? `<p>Matches: ${matchLinks}</p>` : ""}${logs}</section>`,
  );
}
