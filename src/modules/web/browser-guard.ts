/**
 * What keeps the pages' own forms safe in a browser (issue 39): the session cookie's flags, the
 * refusal of cross-site form posts, and redirects that stay on this site.
 */
import { AppError } from "../../lib/errors";

/** One cookie as a Set-Cookie value: HttpOnly and SameSite=Strict always, Secure when the request came over https. */
export function cookie(name: string, value: string, options: { maxAgeSeconds: number; secure: boolean }): string {
  return `${name}=${value}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${Math.max(0, Math.floor(options.maxAgeSeconds))}${options.secure ? "; Secure" : ""}`;
}

export function readCookie(request: Request, name: string): string | undefined {
  const header = request.headers.get("cookie");
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/**
 * A state-changing request from another site is refused before anything else (the anti-forgery
 * token is checked too: this is the first of two locks). Browsers say where a request comes from in
 * Sec-Fetch-Site and Origin; a request without either (curl, an old browser) is left to the token.
 */
export function refuseCrossSite(request: Request): void {
  const site = request.headers.get("sec-fetch-site");
  if (site !== null && site !== "same-origin" && site !== "none") throw crossSite();
  const origin = request.headers.get("origin");
  if (origin !== null && origin !== "null") {
    const host = request.headers.get("host") ?? new URL(request.url).host;
    let originHost: string | null = null;
    try {
      originHost = new URL(origin).host;
    } catch {}
    if (originHost !== host) throw crossSite();
  } else if (origin === "null") throw crossSite();
}

export const crossSite = () => new AppError(403, "FORBIDDEN", "Cross-site request refused: use the form on this site (its anti-forgery token is missing or wrong)");

/** Where to go after signing in: a path on this site only (no scheme, no //host, no backslash tricks), else /me. */
export function localPath(next: unknown): string {
  if (typeof next !== "string" || next.length > 500) return "/me";
  if (!/^\/(?![/\\])[^\s\\]*$/.test(next)) return "/me";
  const resolved = new URL(next, "http://local.invalid");
  return resolved.host === "local.invalid" ? resolved.pathname + resolved.search : "/me";
}

/** A 303 to `location` (a local path), setting these cookies. */
export function seeOther(location: string, cookies: string[] = []): Response {
  const headers = new Headers({ location, "cache-control": "no-store" });
  for (const c of cookies) headers.append("set-cookie", c);
  return new Response(null, { status: 303, headers });
}
