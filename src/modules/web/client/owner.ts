/**
 * The bot page's owner view of its ladder entries: why each does not play, in the words `ladder
 * status` uses (ladder/words.ts). Who waits and why is the owner's (a public INSUFFICIENT_BALANCE
 * would publish a balance), so the page asks the owner to sign in: the token stays in this tab
 * (sessionStorage) and only ever goes to this service's API.
 */
import type { LadderEntryView } from "../../ladder/service";
import { entryStateInWords } from "../../ladder/words";
import { escapeHtml } from "../view-kit";
import { CONNECTION_IN_WORDS, type BotConnection } from "../../bots/connection-words";

const data = JSON.parse(document.getElementById("page-data")!.textContent!) as { botId: string; name: string };
const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const TOKEN_KEY = "poker.token";

const when = (iso: string) => `at ${iso.replace("T", " ").slice(0, 16)} UTC`;

/** How the bot is connected now: only its owner's view of the bot says (GET /api/bots/:botId with the token). */
async function showConnection(token: string): Promise<void> {
  const response = await fetch(`/api/bots/${encodeURIComponent(data.botId)}`, { headers: { authorization: `Bearer ${token}` } });
  const bot = response.ok ? ((await response.json()) as { connection?: BotConnection }) : {};
  $("owner-connection").textContent = bot.connection ? `Connection: ${CONNECTION_IN_WORDS[bot.connection]}.` : "";
}

async function show(token: string): Promise<void> {
  void showConnection(token);
  const out = $("owner-entries");
  const response = await fetch("/api/me/ladder", { headers: { authorization: `Bearer ${token}` } });
  if (response.status === 401) {
    sessionStorage.removeItem(TOKEN_KEY);
    out.innerHTML = `<li>Signed out: sign in again.</li>`;
    return;
  }
  if (!response.ok) {
    out.innerHTML = `<li>The service answered ${response.status}.</li>`;
    return;
  }
  const entries = ((await response.json()) as LadderEntryView[]).filter((e) => e.botId === data.botId);
  out.innerHTML =
    entries.length === 0
      ? `<li>Not on the ladder now (or not one of your bots).</li>`
      : entries.map((e) => `<li data-format="${escapeHtml(e.format)}"><strong>${escapeHtml(e.format)}</strong>: ${escapeHtml(entryStateInWords(e, data.name, when))}</li>`).join("");
}

$("owner-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const email = $<HTMLInputElement>("owner-email").value;
  const password = $<HTMLInputElement>("owner-password").value;
  void fetch("/api/auth/login", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email, password }) }).then(async (response) => {
    if (!response.ok) {
      $("owner-entries").innerHTML = `<li>Sign-in refused (${response.status}).</li>`;
      return;
    }
    const { token } = (await response.json()) as { token: string };
    sessionStorage.setItem(TOKEN_KEY, token);
    $<HTMLInputElement>("owner-password").value = "";
    await show(token);
  });
});

const saved = sessionStorage.getItem(TOKEN_KEY);
if (saved) void show(saved);
