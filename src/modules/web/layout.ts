import { escapeHtml } from "./view-kit";

/** The HTML of a value placed in a <script type="application/json"> element: nothing in it can close the element. */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value).replace(/</g, "\\u003c").replace(/>/g, "\\u003e").replace(/&/g, "\\u0026");
}

export function page(title: string, body: string, options: { script?: string; data?: unknown } = {}): string {
  const data = options.data === undefined ? "" : `<script type="application/json" id="page-data">${jsonForScript(options.data)}</script>`;
  const script = options.script ? `<script type="module" src="/assets/${options.script}.js"></script>` : "";
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · Poker Bot Service</title><link rel="stylesheet" href="/assets/site.css"><link rel="icon" href="data:,">
</head><body><header class="site"><a href="/">♠ Poker Bot Service</a><nav aria-label="site"><a href="/">Lobby</a><a href="/leaderboard">Leaderboard</a><a href="/ladder">Ladder</a><a href="/tournaments">Tournaments</a><a href="/tv">TV</a><a href="/swagger">API</a><a href="/me">My account</a></nav></header>
<main>${body}</main>${data}${script}</body></html>`;
}

export function htmlResponse(html: string, status = 200): Response {
  return new Response(html, { status, headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-cache" } });
}

export function notFoundPage(what: string): Response {
  return htmlResponse(page("Not found", `<h1>Not found</h1><p>${escapeHtml(what)}</p><p><a href="/">Back to the lobby</a></p>`), 404);
}

/** A page that only says something (403, 409, …): the status and a way back. */
export function messagePage(status: number, title: string, message: string): Response {
  return htmlResponse(page(title, `<h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p><p><a href="/me">My account</a> · <a href="/">the lobby</a></p>`), status);
}

export const time = (iso: string | null) => (iso ? `<time datetime="${escapeHtml(iso)}">${escapeHtml(iso.replace("T", " ").slice(0, 16))} UTC</time>` : "—");
