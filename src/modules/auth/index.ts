import { Elysia } from "elysia";
import { clientAddress, TRUST_NONE, type TrustProxy } from "../../lib/client-address";
import { AppError } from "../../lib/errors";
import { errorResponses } from "../../lib/http";
import type { SharedRateLimiter } from "./shared-limiter";
import { authPlugin, issueToken, type AuthOptions } from "../../plugins/auth";
import { Developer, LoginBody, LoginResponse, RegisterBody, RegisterResponse } from "./model";
import type { Identity } from "./service";

/**
 * Register and login are limited per client IP (brute force, account spam), one budget for the
 * whole cluster. The per-minute budget is announced in the RateLimit fields; the daily cap on
 * registrations (each account may own MAX_BOTS_PER_DEVELOPER bots, so accounts are bots) is not.
 */
function limitByClientIp(limiter: SharedRateLimiter, trustProxy: TrustProxy, options: { announce: boolean; refusal: string }) {
  const { quota, windowSeconds } = limiter.policy;
  return async ({ request, server, set }: { request: Request; server: { requestIP(r: Request): { address: string } | null } | null; set: { headers: Record<string, string | number> } }) => {
    const ip = clientAddress(server?.requestIP(request)?.address ?? "unknown", request.headers.get("x-forwarded-for"), trustProxy);
    const verdict = await limiter.take(ip);
    if (options.announce) {
      // IETF RateLimit fields (draft-ietf-httpapi-ratelimit-headers): the policy, and what is left of it.
      set.headers["ratelimit-policy"] = `"auth";q=${quota};w=${windowSeconds}`;
      set.headers.ratelimit = `"auth";r=${verdict.remaining};t=${verdict.resetSeconds}`;
    }
    if (!verdict.allowed) {
      const seconds = Math.max(1, Math.ceil(verdict.retryAfterMs / 1000));
      throw new AppError(429, "RATE_LIMITED", `${options.refusal}; retry in ${seconds} s`, { retryAfterSeconds: seconds }, {
        "Retry-After": String(seconds),
      });
    }
  };
}

export function authModule(identity: Identity, auth: AuthOptions, limiters: { perMinute: SharedRateLimiter; registrationsPerDay: SharedRateLimiter }, trustProxy: TrustProxy = TRUST_NONE) {
  const limited = limitByClientIp(limiters.perMinute, trustProxy, { announce: true, refusal: "Too many attempts from this address" });
  const dailyCap = limiters.registrationsPerDay.policy.quota;
  const registrationsCapped = limitByClientIp(limiters.registrationsPerDay, trustProxy, { announce: false, refusal: `At most ${dailyCap} registrations a day from one address` });
  return new Elysia({ name: "module:auth" })
    .use(authPlugin(auth))
    .post(
      "/api/auth/register",
      async ({ body, jwt, set }) => {
        const developer = await identity.register(body);
        const { token } = await issueToken(jwt, auth, developer.developerId);
        set.status = 201;
        return { developer, token };
      },
      {
        beforeHandle: [limited, registrationsCapped],
        parse: "json",
        body: RegisterBody,
        response: { 201: RegisterResponse, ...errorResponses(400, 409, 429) },
        detail: {
          tags: ["identity"],
          summary: "Register a developer",
          description:
            "Creates a developer account and returns a bearer token (valid 7 days by default). Emails are unique, case-insensitive. Limited per client IP (AUTH_RATE_LIMIT_PER_MINUTE, default 30 register+login attempts a minute), and at most REGISTRATIONS_PER_ADDRESS_PER_DAY (20) registrations a day per client IP: 429 RATE_LIMITED with Retry-After.",
        },
      },
    )
    .post(
      "/api/auth/login",
      async ({ body, jwt }) => {
        const developer = await identity.verifyCredentials(body.email, body.password);
        return issueToken(jwt, auth, developer.developerId);
      },
      {
        beforeHandle: limited,
        parse: "json",
        body: LoginBody,
        response: { 200: LoginResponse, ...errorResponses(400, 401, 429) },
        detail: {
          tags: ["identity"],
          summary: "Log in",
          description:
            "Exchanges email and password for a bearer token. Unknown email and wrong password get the same 401. Limited per client IP like register: 429 RATE_LIMITED with Retry-After.",
        },
      },
    )
    .get("/api/me", ({ developerId }) => identity.developer(developerId), {
      auth: true,
      response: { 200: Developer, ...errorResponses(401) },
      detail: { tags: ["identity"], summary: "The calling developer" },
    });
}
