/**
 * The client's address behind reverse proxies. `X-Forwarded-For` is whatever the client sent
 * unless a proxy we trust wrote it, so it is read only when TRUST_PROXY says which hops to trust:
 * a count of proxies in front of us (the address that many hops from the right), or the proxies'
 * own addresses (walk from the right past every trusted one). Off by default.
 */
export type TrustProxy = { kind: "none" } | { kind: "hops"; count: number } | { kind: "addresses"; addresses: ReadonlySet<string> };

export const TRUST_NONE: TrustProxy = { kind: "none" };

/** TRUST_PROXY: unset, "", "false" or "0" → off; "2" → two hops; "10.0.0.1,10.0.0.2" → those proxies. */
export function parseTrustProxy(value: string | undefined): TrustProxy {
  const text = (value ?? "").trim();
  if (text === "" || text === "false" || text === "0") return TRUST_NONE;
  if (/^\d+$/.test(text)) return { kind: "hops", count: Number(text) };
  const addresses = text.split(",").map((a) => normalize(a.trim()));
  if (addresses.some((a) => !/^[0-9a-fA-F:.]+$/.test(a))) {
    throw new Error(`TRUST_PROXY must be a hop count or a comma-separated list of proxy IP addresses, got "${value}"`);
  }
  return { kind: "addresses", addresses: new Set(addresses) };
}

/** IPv4 peers reach a dual-stack socket as ::ffff:a.b.c.d; compare them as a.b.c.d. */
function normalize(address: string): string {
  return address.startsWith("::ffff:") && address.includes(".") ? address.slice(7) : address;
}

export function clientAddress(peer: string, forwardedFor: string | null, trust: TrustProxy): string {
  const direct = normalize(peer);
  if (trust.kind === "none" || !forwardedFor) return direct;
  const chain = [...forwardedFor.split(",").map((a) => normalize(a.trim())).filter(Boolean), direct];
  if (trust.kind === "hops") return chain[Math.max(0, chain.length - 1 - trust.count)];
  let i = chain.length - 1;
  while (i > 0 && trust.addresses.has(chain[i])) i--;
  return chain[i];
}

/**
 * Whether the request reached the service over https: its own URL says so (TLS here), or a proxy
 * we trust (TRUST_PROXY) wrote X-Forwarded-Proto — a client's own header is never believed.
 */
export function cameOverHttps(url: string, peer: string, forwardedProto: string | null, trust: TrustProxy): boolean {
  if (url.startsWith("https:")) return true;
  if (!forwardedProto) return false;
  const trusted = trust.kind === "hops" ? trust.count > 0 : trust.kind === "addresses" && trust.addresses.has(normalize(peer));
  // The nearest proxy's word: the last value of a list (each hop appends its own).
  return trusted && forwardedProto.split(",").pop()!.trim().toLowerCase() === "https";
}
