/**
 * Browser sessions (issue 39): a random secret in an HttpOnly cookie, its SHA-256 in
 * web_sessions. The cookie authenticates the pages and their forms only; /api/** stays bearer-only,
 * so no API route can be driven by a cross-site request riding on the cookie.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { and, eq, gt, isNull, lt, or } from "drizzle-orm";
import type { Db } from "../../db";
import { webSessions } from "../../db/schema";
import type { Clock } from "../../lib/clock";
import { newSecret, sha256Hex } from "../../lib/ids";

export const SESSION_COOKIE = "pbs_session";
/** The login form's own anti-forgery value (double-submit: cookie and form field must match) before a session exists. */
export const LOGIN_CSRF_COOKIE = "pbs_login_csrf";

export interface WebSession {
  developerId: string;
  /** The raw cookie value (never stored): the forms' anti-forgery token is derived from it. */
  token: string;
  expiresAt: Date;
}

/** A form's anti-forgery token for this session: an HMAC of the session's secret, so nothing more is stored. */
export function csrfTokenOf(sessionToken: string): string {
  return createHmac("sha256", sessionToken).update("csrf").digest("base64url");
}

/** Constant-time comparison of two tokens (a mismatch in length is a mismatch). */
export function sameToken(expected: string, given: unknown): boolean {
  if (typeof given !== "string") return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

export class WebSessions {
  private created = 0;

  constructor(
    private readonly db: Db,
    private readonly clock: Pick<Clock, "now">,
    readonly ttlSeconds: number,
  ) {}

  async create(developerId: string): Promise<WebSession> {
    const token = newSecret("pbs");
    const now = this.clock.now();
    const expiresAt = new Date(now + this.ttlSeconds * 1000);
    await this.db.insert(webSessions).values({ tokenHash: sha256Hex(token), developerId, createdAt: new Date(now), expiresAt });
    // Now and then, rows that can no longer sign anybody in are deleted.
    if (++this.created % 100 === 0) void this.prune().catch(() => {});
    return { developerId, token, expiresAt };
  }

  /** The live session this cookie value names, or null (unknown, expired or signed out). Read on every request: a sign-out anywhere counts at once. */
  async resolve(token: string | undefined): Promise<WebSession | null> {
    if (!token || token.length > 100) return null;
    const [row] = await this.db
      .select({ developerId: webSessions.developerId, expiresAt: webSessions.expiresAt })
      .from(webSessions)
      .where(and(eq(webSessions.tokenHash, sha256Hex(token)), isNull(webSessions.revokedAt), gt(webSessions.expiresAt, new Date(this.clock.now()))));
    return row ? { developerId: row.developerId, token, expiresAt: row.expiresAt } : null;
  }

  /** Sign-out: the session ends for every tab and node that uses it. */
  async revoke(token: string): Promise<void> {
    await this.db.update(webSessions).set({ revokedAt: new Date(this.clock.now()) }).where(and(eq(webSessions.tokenHash, sha256Hex(token)), isNull(webSessions.revokedAt)));
  }

  private prune(): Promise<unknown> {
    const now = new Date(this.clock.now());
    return this.db.delete(webSessions).where(or(lt(webSessions.expiresAt, now), lt(webSessions.revokedAt, now)));
  }
}
