/**
 * The developer's side of the web (issue 39): sign in and register (a server-side session behind
 * an HttpOnly, SameSite=Strict cookie), sign out, /me, and a hosted bot's code and logs. Every
 * state-changing route refuses a cross-site request (browser-guard.ts) and wants the form's
 * anti-forgery token; the cookie is read by these routes only, never by /api/**.
 */
import { Value } from "@sinclair/typebox/value";
import { Elysia, t } from "elysia";
import { cameOverHttps, clientAddress, type TrustProxy } from "../../lib/client-address";
import { AppError } from "../../lib/errors";
import { idString, type RawBodyRoute } from "../../lib/http";
import { PAGE } from "../../lib/paging";
import { RegisterBody } from "../auth/model";
import type { Identity } from "../auth/service";
import type { SharedRateLimiter } from "../auth/shared-limiter";
import type { Bots } from "../bots/service";
import type { Accounts } from "../credits/service";
import type { TransactionView } from "../credits/transactions";
import { MAX_SOURCE_BYTES } from "../hosted/model";
import type { HostedCode } from "../hosted/service";
import type { Ladder } from "../ladder/service";
import type { Matches } from "../matches/service";
import { hostedBotPage, loginPage, mePage, type HostedPageData } from "./account-pages";
import { cookie, crossSite, localPath, readCookie, refuseCrossSite, seeOther } from "./browser-guard";
import { htmlResponse, messagePage } from "./layout";
import { csrfTokenOf, LOGIN_CSRF_COOKIE, sameToken, SESSION_COOKIE, type WebSession, type WebSessions } from "./sessions";

export interface AccountDeps {
  identity: Identity;
  accounts: Accounts;
  bots: Bots;
  ladder: Ladder;
  hosted: HostedCode;
  matches: Matches;
  sessions: WebSessions;
  /** The API's own sign-in budgets (the same buckets: a form is no way around them). */
  signInLimits: { perMinute: SharedRateLimiter; registrationsPerDay: SharedRateLimiter };
  trustProxy: TrustProxy;
  faucetAmount: number;
  transactions: (developerId: string, page: { limit?: number; before?: string }) => Promise<{ items: TransactionView[]; next: string | null }>;
}

/** The upload form's body: a multipart form carrying the file, taken raw within the file's cap and a margin for the form around it. */
export const PAGE_CODE_UPLOAD_BODY: RawBodyRoute = { method: "POST", path: /^\/me\/bots\/[A-Za-z0-9_]+\/code$/, maxBytes: MAX_SOURCE_BYTES + 16 * 1024 };

type Server = { requestIP(r: Request): { address: string } | null } | null;

/** The login form's anti-forgery value lives two hours (a form left open longer gets a fresh one on reload). */
const LOGIN_CSRF_SECONDS = 2 * 3600;
/** Notices a redirect may ask /me to show: words of ours, never text from the address bar. */
const NOTICES: Record<string, string> = {
  claimed: "Faucet claimed.",
  cooldown: "The faucet is not open yet.",
  uploaded: "Uploaded: the new version is current.",
  welcome: "Registered and signed in.",
};

const field = (form: FormData, name: string) => {
  const value = form.get(name);
  return typeof value === "string" ? value : undefined;
};

/** Form bodies arrive as FormData (app.ts's parse hook); anything else is not one of our forms. */
function formOf(body: unknown): FormData {
  if (body instanceof FormData) return body;
  // No body at all: an empty form (its missing token is then what refuses it).
  if (body === undefined || body === null || body === "") return new FormData();
  throw new AppError(415, "UNSUPPORTED_MEDIA_TYPE", "This form takes application/x-www-form-urlencoded");
}

export function accountModule(deps: AccountDeps) {
  const { sessions } = deps;
  const peerOf = (request: Request, server: Server) => server?.requestIP(request)?.address ?? "unknown";
  const secure = (request: Request, server: Server) => cameOverHttps(request.url, peerOf(request, server), request.headers.get("x-forwarded-proto"), deps.trustProxy);
  const sessionOf = (request: Request) => sessions.resolve(readCookie(request, SESSION_COOKIE));
  const toLogin = (request: Request) => {
    const url = new URL(request.url);
    return seeOther(`/login?next=${encodeURIComponent(url.pathname + url.search)}`);
  };
  /** The session of a state-changing form: from this site, signed in, with this session's token. */
  async function formSession(request: Request, form: FormData): Promise<WebSession | null> {
    const session = await sessionOf(request);
    if (session && !sameToken(csrfTokenOf(session.token), field(form, "csrf"))) throw crossSite();
    return session;
  }
  const sessionCookie = (request: Request, server: Server, session: WebSession) =>
    cookie(SESSION_COOKIE, session.token, { maxAgeSeconds: sessions.ttlSeconds, secure: secure(request, server) });

  /** Sign-in and registration share the API's per-address budget; beyond it, the form says when to retry. */
  async function withinBudget(request: Request, server: Server, limiter: SharedRateLimiter, csrf: string, next: string): Promise<Response | null> {
    const ip = clientAddress(peerOf(request, server), request.headers.get("x-forwarded-for"), deps.trustProxy);
    const verdict = await limiter.take(ip);
    if (verdict.allowed) return null;
    const seconds = Math.max(1, Math.ceil(verdict.retryAfterMs / 1000));
    const response = htmlResponse(loginPage({ csrf, next, error: `Too many attempts from this address: retry in ${seconds} s.` }), 429);
    response.headers.set("retry-after", String(seconds));
    return response;
  }

  /** The login form's double-submit check: its field must equal the cookie the login page set. */
  function loginCsrf(request: Request, form: FormData): string {
    refuseCrossSite(request);
    const expected = readCookie(request, LOGIN_CSRF_COOKIE);
    if (!expected || !sameToken(expected, field(form, "csrf"))) throw crossSite();
    return expected;
  }

  async function signedIn(request: Request, server: Server, developerId: string, next: string): Promise<Response> {
    const session = await sessions.create(developerId);
    return seeOther(next, [sessionCookie(request, server, session), cookie(LOGIN_CSRF_COOKIE, "", { maxAgeSeconds: 0, secure: secure(request, server) })]);
  }

  return new Elysia({ name: "module:web-account" })
    .get(
      "/login",
      async ({ request, query, server }) => {
        const next = localPath(query.next);
        if (await sessionOf(request)) return seeOther(next);
        const existing = readCookie(request, LOGIN_CSRF_COOKIE);
        const csrf = existing && /^[A-Za-z0-9_-]{20,100}$/.test(existing) ? existing : Buffer.from(crypto.getRandomValues(new Uint8Array(24))).toString("base64url");
        const response = htmlResponse(loginPage({ csrf, next }));
        if (csrf !== existing) response.headers.append("set-cookie", cookie(LOGIN_CSRF_COOKIE, csrf, { maxAgeSeconds: LOGIN_CSRF_SECONDS, secure: secure(request, server) }));
        return response;
      },
      { query: t.Object({ next: t.Optional(t.String({ maxLength: 500 })) }), detail: { hide: true } },
    )
    .post(
      "/login",
      async ({ request, body, server }) => {
        const form = formOf(body);
        const csrf = loginCsrf(request, form);
        const next = localPath(field(form, "next"));
        const email = field(form, "email") ?? "";
        const password = field(form, "password") ?? "";
        const refused = await withinBudget(request, server, deps.signInLimits.perMinute, csrf, next);
        if (refused) return refused;
        if (email.length === 0 || email.length > 254 || password.length === 0 || password.length > 128) {
          return htmlResponse(loginPage({ csrf, next, email: email.slice(0, 254), error: "Enter your email and password." }), 400);
        }
        try {
          const developer = await deps.identity.verifyCredentials(email, password);
          return signedIn(request, server, developer.developerId, next);
        } catch (error) {
          if (error instanceof AppError && error.status === 401) return htmlResponse(loginPage({ csrf, next, email, error: "Wrong email or password." }), 401);
          throw error;
        }
      },
      { detail: { hide: true } },
    )
    .post(
      "/register",
      async ({ request, body, server }) => {
        const form = formOf(body);
        const csrf = loginCsrf(request, form);
        const next = localPath(field(form, "next"));
        const input = { email: field(form, "email") ?? "", password: field(form, "password") ?? "", ...(field(form, "name") ? { name: field(form, "name") } : {}) };
        for (const limiter of [deps.signInLimits.perMinute, deps.signInLimits.registrationsPerDay]) {
          const refused = await withinBudget(request, server, limiter, csrf, next);
          if (refused) return refused;
        }
        const invalid = Value.Errors(RegisterBody, input).First();
        if (invalid) {
          const what = invalid.path.replace(/^\//, "") || "form";
          return htmlResponse(loginPage({ csrf, next, error: `Registration refused: the ${what} is not valid (${what === "password" ? "8 to 128 characters" : invalid.message}).` }), 400);
        }
        try {
          const developer = await deps.identity.register(input);
          return signedIn(request, server, developer.developerId, next === "/me" ? "/me?notice=welcome" : next);
        } catch (error) {
          if (error instanceof AppError && error.code === "EMAIL_TAKEN") return htmlResponse(loginPage({ csrf, next, error: "This email is already registered: sign in instead." }), 409);
          throw error;
        }
      },
      { detail: { hide: true } },
    )
    .post(
      "/logout",
      async ({ request, body, server }) => {
        refuseCrossSite(request);
        const session = await formSession(request, formOf(body));
        if (session) await sessions.revoke(session.token);
        return seeOther("/", [cookie(SESSION_COOKIE, "", { maxAgeSeconds: 0, secure: secure(request, server) })]);
      },
      { detail: { hide: true } },
    )
    .get(
      "/me",
      async ({ request, query }) => {
        const session = await sessionOf(request);
        if (!session) return toLogin(request);
        const developerId = session.developerId;
        const [developer, balance, transactions, owned, entries] = await Promise.all([
          deps.identity.developer(developerId),
          deps.accounts.balance(developerId),
          deps.transactions(developerId, { limit: PAGE.default, before: query.before }),
          deps.bots.listOwned(developerId, { limit: PAGE.max }).then((page) => deps.bots.ownedViews(page.items)),
          deps.ladder.mine(developerId),
        ]);
        // ownedViews says how each bot is connected (bot_presence), as GET /api/me/bots does.
        const bots = owned.map((b) => ({ ...b, ladder: entries.filter((e) => e.botId === b.botId) }));
        const names = Object.fromEntries(owned.map((b) => [b.botId, b.name]));
        return htmlResponse(
          mePage({ csrf: csrfTokenOf(session.token), developer, balance, faucetAmount: deps.faucetAmount, transactions, bots, names, notice: NOTICES[query.notice ?? ""] }),
        );
      },
      { query: t.Object({ before: t.Optional(idString()), notice: t.Optional(t.String({ maxLength: 20 })) }), detail: { hide: true } },
    )
    .post(
      "/me/faucet",
      async ({ request, body }) => {
        refuseCrossSite(request);
        const session = await formSession(request, formOf(body));
        if (!session) return toLogin(request);
        try {
          await deps.accounts.claimFaucet(session.developerId);
          return seeOther("/me?notice=claimed");
        } catch (error) {
          if (error instanceof AppError && error.code === "FAUCET_COOLDOWN") return seeOther("/me?notice=cooldown");
          throw error;
        }
      },
      { detail: { hide: true } },
    )
    .get(
      "/me/bots/:botId",
      async ({ request, params, query }) => {
        const session = await sessionOf(request);
        if (!session) return toLogin(request);
        return hostedView(session, params.botId, { matchId: query.match, notice: NOTICES[query.notice ?? ""] });
      },
      { params: t.Object({ botId: idString() }), query: t.Object({ match: t.Optional(idString()), notice: t.Optional(t.String({ maxLength: 20 })) }), detail: { hide: true } },
    )
    .post(
      "/me/bots/:botId/code",
      async ({ request, params, body }) => {
        refuseCrossSite(request);
        const form = await multipartOf(request, body);
        const session = await formSession(request, form);
        if (!session) return toLogin(request);
        const file = form.get("file");
        if (!(file instanceof File) || file.size === 0) return hostedView(session, params.botId, { error: new AppError(400, "VALIDATION_ERROR", "Choose a bot file to upload.") });
        try {
          await deps.hosted.upload(session.developerId, params.botId, new Uint8Array(await file.arrayBuffer()), mediaTypeOf(file));
          return seeOther(`/me/bots/${encodeURIComponent(params.botId)}?notice=uploaded`);
        } catch (error) {
          if (error instanceof AppError && error.status < 500) return hostedView(session, params.botId, { error });
          throw error;
        }
      },
      { params: t.Object({ botId: idString() }), detail: { hide: true } },
    );

  /** A hosted bot's page for its owner; another developer's bot is a 403 page with nothing of it. */
  async function hostedView(session: WebSession, botId: string, options: { matchId?: string; notice?: string; error?: AppError }): Promise<Response> {
    const developerId = session.developerId;
    let bot;
    try {
      bot = await deps.bots.findOwned(developerId, botId);
    } catch (error) {
      if (error instanceof AppError && (error.status === 403 || error.status === 404)) return messagePage(error.status, error.status === 403 ? "Not yours" : "Not found", error.status === 403 ? "This bot belongs to another developer." : "No bot with this id.");
      throw error;
    }
    if (bot.strategy) return messagePage(409, "A built-in", "A built-in bot is played by the service: it has no code to upload.");
    const [versions, logs, recent] = await Promise.all([
      deps.hosted.versions(developerId, botId, { limit: 20 }),
      deps.hosted.logs(developerId, botId, { matchId: options.matchId, limit: PAGE.max }),
      deps.matches.list({ botId, limit: 10 }),
    ]);
    const data: HostedPageData = {
      csrf: csrfTokenOf(session.token),
      bot: { botId, name: bot.name, hosted: versions.items.length > 0 },
      versions: versions.items,
      logs: { matchId: logs.matchId, items: logs.page.items },
      recentMatches: recent.items.map((m) => m.matchId),
      notice: options.notice,
      error: options.error ? { message: options.error.message, details: detailLines(options.error.details) } : undefined,
    };
    return htmlResponse(hostedBotPage(data), options.error?.status ?? 200);
  }
}

/** The upload form's body: multipart, read as raw bytes within its cap (PAGE_CODE_UPLOAD_BODY), then parsed. */
async function multipartOf(request: Request, body: unknown): Promise<FormData> {
  const contentType = request.headers.get("content-type") ?? "";
  if (!(body instanceof Uint8Array) || !/^multipart\/form-data/i.test(contentType)) throw new AppError(415, "UNSUPPORTED_MEDIA_TYPE", "The upload form sends multipart/form-data");
  try {
    return (await new Response(body, { headers: { "content-type": contentType } }).formData()) as unknown as FormData;
  } catch {
    throw new AppError(400, "VALIDATION_ERROR", "The form's body is not valid multipart/form-data", { field: "(body)" });
  }
}

/** A browser sends a .ts file as video/mp2t or nothing at all: the name's extension says what it is. */
function mediaTypeOf(file: File): string | null {
  if (/\.(ts|mts)$/i.test(file.name)) return "text/typescript";
  if (/\.(js|mjs)$/i.test(file.name)) return "application/javascript";
  return file.type || null;
}

/** An upload's error details (stage, build errors, the bot's log lines) as lines to show. */
function detailLines(details: unknown): string[] {
  if (!details || typeof details !== "object") return [];
  const lines: string[] = [];
  for (const [key, value] of Object.entries(details as Record<string, unknown>)) {
    if (Array.isArray(value)) for (const item of value.slice(0, 20)) lines.push(`${key}: ${typeof item === "string" ? item : JSON.stringify(item)}`);
    else lines.push(`${key}: ${typeof value === "string" ? value : JSON.stringify(value)}`);
  }
  return lines;
}
