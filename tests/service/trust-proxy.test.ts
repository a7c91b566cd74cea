import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { clientAddress, parseTrustProxy } from "../../src/lib/client-address";
import { startTestServer, type TestServer } from "../support/server";
import { callApi } from "../support/http";

setDefaultTimeout(60_000);

/** Register attempts from a client claiming `forwardedFor`, until the limit answers 429; how many got through. */
async function attemptsAllowed(server: TestServer, forwardedFor: string, tries = 4): Promise<number> {
  let allowed = 0;
  for (let i = 0; i < tries; i++) {
    const email = `tp-${Math.random().toString(36).slice(2)}@example.com`;
    const response = await callApi(server.url, "POST", "/api/auth/register", { body: { email, password: "a long password" }, headers: { "x-forwarded-for": forwardedFor } });
    if (response.status === 201) allowed++;
    else expect(response.body.error.code).toBe("RATE_LIMITED");
  }
  return allowed;
}

describe("TRUST_PROXY: the client address for the per-IP register/login limit", () => {
  const servers: TestServer[] = [];
  afterAll(() => Promise.all(servers.map((s) => s.close())));
  const start = async (trustProxy: string | undefined) => {
    const server = await startTestServer("trust_proxy", { AUTH_RATE_LIMIT_PER_MINUTE: "2", ...(trustProxy === undefined ? {} : { TRUST_PROXY: trustProxy }) });
    servers.push(server);
    return server;
  };

  test("off (default): a spoofed X-Forwarded-For buys no fresh budget; every claimed address shares the peer's", async () => {
    const server = await start(undefined);
    expect(await attemptsAllowed(server, "203.0.113.1", 2)).toBe(2);
    expect(await attemptsAllowed(server, "203.0.113.2", 2)).toBe(0);
    expect(await attemptsAllowed(server, "198.51.100.7, 203.0.113.3", 2)).toBe(0);
  });

  test("one trusted hop: each client behind the proxy has its own budget, and a client cannot borrow another's", async () => {
    const server = await start("1");
    expect(await attemptsAllowed(server, "203.0.113.1")).toBe(2);
    expect(await attemptsAllowed(server, "203.0.113.2")).toBe(2);
    // A client that prepends a fake address is still known by the address the proxy appended.
    expect(await attemptsAllowed(server, "203.0.113.9, 203.0.113.1")).toBe(0);
  });

  test("a list of trusted proxy addresses: the first untrusted address from the right is the client", async () => {
    const server = await start("127.0.0.1,10.0.0.5");
    expect(await attemptsAllowed(server, "203.0.113.4, 10.0.0.5")).toBe(2);
    expect(await attemptsAllowed(server, "198.51.100.1, 203.0.113.4, 10.0.0.5")).toBe(0);
    expect(await attemptsAllowed(server, "203.0.113.5")).toBe(2);
  });
});

describe("clientAddress", () => {
  test("hops, addresses, IPv4-mapped peers and bad settings", () => {
    expect(clientAddress("::ffff:127.0.0.1", "1.1.1.1", parseTrustProxy(undefined))).toBe("127.0.0.1");
    expect(clientAddress("127.0.0.1", "1.1.1.1, 2.2.2.2", parseTrustProxy("1"))).toBe("2.2.2.2");
    expect(clientAddress("127.0.0.1", "1.1.1.1, 2.2.2.2", parseTrustProxy("2"))).toBe("1.1.1.1");
    expect(clientAddress("127.0.0.1", "2.2.2.2", parseTrustProxy("5"))).toBe("2.2.2.2");
    expect(clientAddress("9.9.9.9", "1.1.1.1", parseTrustProxy("127.0.0.1"))).toBe("9.9.9.9");
    expect(clientAddress("::ffff:127.0.0.1", "1.1.1.1", parseTrustProxy("127.0.0.1"))).toBe("1.1.1.1");
    expect(() => parseTrustProxy("yes please")).toThrow("TRUST_PROXY");
  });
});
