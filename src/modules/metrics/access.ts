import { timingSafeEqual } from "node:crypto";
import { clientAddress, type TrustProxy } from "../../lib/client-address";

/**
 * Who may read /metrics. With METRICS_TOKEN set: whoever sends it as a bearer token, from
 * anywhere. Unset: only a client on this machine — its address (as clientAddress resolves it,
 * TRUST_PROXY included) is loopback and the request did not come through a proxy (no
 * X-Forwarded-For / Forwarded header: a proxy on this machine would otherwise make every
 * internet client look local). A request with no socket at all (in-process `app.handle`) has no
 * address to vouch for it: refused, like any other unknown client, unless it carries the token.
 */
export type MetricsVerdict = "allowed" | "token_required" | "loopback_only";

export function metricsAccess(request: Request, peer: string | null, token: string | undefined, trustProxy: TrustProxy): MetricsVerdict {
  if (token) return bearerMatches(request.headers.get("authorization"), token) ? "allowed" : "token_required";
  if (peer === null) return "loopback_only";
  const forwarded = request.headers.get("x-forwarded-for");
  const address = clientAddress(peer, forwarded, trustProxy);
  // Trusted proxies resolved the address above; an untrusted forwarded header means "not direct".
  const proxied = (forwarded !== null && trustProxy.kind === "none") || (request.headers.has("forwarded") && trustProxy.kind === "none");
  return !proxied && isLoopback(address) ? "allowed" : "loopback_only";
}

export function isLoopback(address: string): boolean {
  return address === "::1" || /^127\.\d+\.\d+\.\d+$/.test(address) || /^::ffff:127\./i.test(address);
}

/** Constant-time: the comparison must not tell an attacker how much of the token they guessed. */
function bearerMatches(header: string | null, token: string): boolean {
  const match = /^Bearer (.+)$/i.exec(header ?? "");
  if (!match) return false;
  const given = Buffer.from(match[1]);
  const expected = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
