import { jwt } from "@elysiajs/jwt";
import { Elysia } from "elysia";
import type { Clock } from "../lib/clock";
import { errors } from "../lib/errors";

export interface AuthOptions {
  secret: string;
  clock: Clock;
  ttlSeconds: number;
  /** A well-signed token may name a developer this database does not have (another deployment). */
  developerExists: (developerId: string) => Promise<boolean>;
  /**
   * Tokens already verified, with their developer and expiry: a bot client sends the same token
   * with every call, and the HMAC check was a tenth of a ledger call's CPU. Expiry is still checked
   * on every use. (Bounded; cleared when full.)
   */
  verified?: Map<string, { developerId: string; expiresAtMs: number }>;
}

const VERIFIED_TOKENS_LIMIT = 50_000;

export interface IssuedToken {
  token: string;
  expiresAt: string;
}

/** Reads `Authorization: Bearer <token>`; anything else is no token at all. */
export function bearerToken(header: string | undefined | null): string | undefined {
  if (!header) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

/** A token for a developer, expiring `ttlSeconds` from the injected clock's now. */
export async function issueToken(
  jwt: { sign(payload: { sub: string; exp: number }): Promise<string> },
  options: AuthOptions,
  developerId: string,
): Promise<IssuedToken> {
  const expiresAtSeconds = Math.floor(options.clock.now() / 1000) + options.ttlSeconds;
  const token = await jwt.sign({ sub: developerId, exp: expiresAtSeconds });
  return { token, expiresAt: new Date(expiresAtSeconds * 1000).toISOString() };
}

/**
 * Developer identity: HS256 JWTs with `sub` = developerId and an `exp` from the injected clock.
 * Routes opt in with `{ auth: true }` and receive `developerId`, or with `{ optionalAuth: true }`
 * and receive `viewerId` (null when anonymous).
 */
export function authPlugin(options: AuthOptions) {
  return new Elysia({ name: "auth" })
    .use(jwt({ name: "jwt", secret: options.secret, alg: "HS256" }))
    .macro({
      auth: {
        async resolve({ headers, jwt }) {
          const token = bearerToken(headers.authorization);
          if (!token) throw errors.unauthorized("Missing bearer token");
          return { developerId: await developerOf(token, jwt, options) };
        },
        detail: { security: [{ bearerAuth: [] }] },
      },
      /**
       * Public routes that show more to an owner: no Authorization header is an anonymous viewer
       * (`viewerId` null); a header with a bad token is still a 401, never silently anonymous.
       */
      optionalAuth: {
        async resolve({ headers, jwt }) {
          if (headers.authorization === undefined) return { viewerId: null as string | null };
          const token = bearerToken(headers.authorization);
          if (!token) throw errors.unauthorized("Malformed Authorization header");
          return { viewerId: (await developerOf(token, jwt, options)) as string | null };
        },
        detail: { security: [{}, { bearerAuth: [] }] },
      },
    });
}

type JwtVerifier = { verify(token: string, options?: object): Promise<false | Record<string, unknown>> };

/** jwt.verify answers false for every failure (bad signature, alg none, expired, malformed): one 401. */
async function developerOf(token: string, jwt: JwtVerifier, options: AuthOptions): Promise<string> {
  const known = options.verified?.get(token);
  if (known) {
    if (known.expiresAtMs > options.clock.now()) return known.developerId;
    options.verified!.delete(token);
  }
  const payload = await jwt.verify(token, { algorithms: ["HS256"], currentDate: new Date(options.clock.now()) });
  if (!payload || typeof payload.sub !== "string" || typeof payload.exp !== "number") {
    throw errors.unauthorized("Invalid or expired token");
  }
  if (!(await options.developerExists(payload.sub))) throw errors.unauthorized("Invalid or expired token");
  if (options.verified) {
    if (options.verified.size >= VERIFIED_TOKENS_LIMIT) options.verified.clear();
    options.verified.set(token, { developerId: payload.sub, expiresAtMs: payload.exp * 1000 });
  }
  return payload.sub;
}
