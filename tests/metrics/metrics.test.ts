import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { parseTrustProxy, TRUST_NONE } from "../../src/lib/client-address";
import { isLoopback, metricsAccess } from "../../src/modules/metrics/access";
import { createHarness, type Harness } from "../support/app";
import { until } from "../support/nodes";
import { createBot, registerWithCredits, startTestServer, type TestServer } from "../support/server";
import { WsBot } from "../support/ws-bot";
import { promtool } from "../support/promtool";
import { ALLOWED_LABELS, series, total } from "../support/scrape";

setDefaultTimeout(90_000);

describe("who may read /metrics", () => {
  const request = (headers: Record<string, string> = {}) => new Request("http://localhost/metrics", { headers });
  test("with METRICS_TOKEN: exactly that bearer token, from anywhere", () => {
    expect(metricsAccess(request({ authorization: "Bearer s3cret" }), "203.0.113.7", "s3cret", TRUST_NONE)).toBe("allowed");
    expect(metricsAccess(request({ authorization: "Bearer s3cret!" }), "127.0.0.1", "s3cret", TRUST_NONE)).toBe("token_required");
    expect(metricsAccess(request(), "127.0.0.1", "s3cret", TRUST_NONE)).toBe("token_required");
  });
  test("without: loopback clients that came straight, not through a proxy; no socket (app.handle) is refused", () => {
    expect(metricsAccess(request(), "127.0.0.1", undefined, TRUST_NONE)).toBe("allowed");
    expect(metricsAccess(request(), "::1", undefined, TRUST_NONE)).toBe("allowed");
    expect(metricsAccess(request(), "::ffff:127.0.0.1", undefined, TRUST_NONE)).toBe("allowed");
    expect(metricsAccess(request(), "10.0.0.5", undefined, TRUST_NONE)).toBe("loopback_only");
    expect(metricsAccess(request(), null, undefined, TRUST_NONE)).toBe("loopback_only");
    // A proxy on this machine forwarding an internet client: the peer is loopback, the client is not.
    expect(metricsAccess(request({ "x-forwarded-for": "203.0.113.7" }), "127.0.0.1", undefined, TRUST_NONE)).toBe("loopback_only");
    expect(metricsAccess(request({ forwarded: "for=203.0.113.7" }), "127.0.0.1", undefined, TRUST_NONE)).toBe("loopback_only");
    expect(metricsAccess(request({ "x-forwarded-for": "203.0.113.7" }), "127.0.0.1", undefined, parseTrustProxy("1"))).toBe("loopback_only");
    expect(metricsAccess(request({ "x-forwarded-for": "127.0.0.1" }), "127.0.0.1", undefined, parseTrustProxy("1"))).toBe("allowed");
    expect(isLoopback("127.8.9.10")).toBe(true);
    expect(isLoopback("128.0.0.1")).toBe(false);
  });
});

describe("GET /metrics in-process (app.handle: no socket)", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness("metrics_token", { METRICS_TOKEN: "scrape-token", HOST_ID: "node_token" });
  });
  afterAll(() => h.close());

  test("401 without the token, 200 with it, labelled with the node", async () => {
    const refused = await h.call("GET", "/metrics");
    expect(refused.status).toBe(401);
    expect(refused.headers.get("www-authenticate")).toContain("Bearer");
    expect((await h.call("GET", "/metrics", { token: "wrong" })).status).toBe(401);
    const scrape = await h.call("GET", "/metrics", { token: "scrape-token" });
    expect(scrape.status).toBe(200);
    expect(scrape.headers.get("content-type")).toContain("text/plain");
    const all = series(scrape.body);
    // Every series of the registry (default process metrics included), not a handful.
    expect(all.length).toBeGreaterThan(50);
    expect(all.filter((s) => s.labels.node !== "node_token").map((s) => s.name)).toEqual([]);
  });

  test("HTTP requests are counted by route template, unmatched paths share one label", async () => {
    await h.call("GET", "/api/tables/tbl_does_not_exist");
    await h.call("GET", "/some/random/path/123");
    // A request is counted in afterResponse, once its response is out: wait until both are.
    const counted = (text: string) => total(text, "poker_http_requests_total", { status: "404" }) >= 2;
    const text = await until(async () => {
      const body = (await h.call("GET", "/metrics", { token: "scrape-token" })).body as string;
      return counted(body) && body;
    }, 10_000, "both 404s counted");
    expect(total(text, "poker_http_requests_total", { route: "/api/tables/:tableId", status: "404", method: "GET" })).toBe(1);
    expect(total(text, "poker_http_requests_total", { route: "unmatched", status: "404" })).toBe(1);
    expect(text).not.toContain("tbl_does_not_exist");
    expect(text).not.toContain("/some/random");
  });
});

describe("a node that played matches with built-in and remote bots", () => {
  let server: TestServer;
  const secrets: string[] = [];
  let scrape = "";

  beforeAll(async () => {
    server = await startTestServer("metrics_match", { HOST_ID: "node_m1" });
    const owner = await registerWithCredits(server, "owner");
    secrets.push(owner.token, owner.developerId);
    const remote = await createBot(server, owner.token, "remote");
    secrets.push(remote.botId, remote.apiKey);
    const bot = await new WsBot(server.url, remote.apiKey).connect();
    for (const strategy of ["caller", "raiser"]) {
      const table = await server.api("POST", "/api/tables", { token: owner.token, body: { maxPlayers: 2, maxHands: 30, buyIn: 500 } });
      secrets.push(table.body.tableId);
      const builtin = await createBot(server, owner.token, `b_${strategy}`, strategy);
      secrets.push(builtin.botId, builtin.apiKey);
      expect((await server.api("POST", `/api/tables/${table.body.tableId}/join`, { token: owner.token, body: { botId: remote.botId } })).status).toBe(201);
      expect((await server.api("POST", `/api/tables/${table.body.tableId}/join`, { token: owner.token, body: { botId: builtin.botId } })).status).toBe(201);
      const ended = await bot.next((m) => m.type === "match_ended" && m.tableId === table.body.tableId, 60_000);
      secrets.push(ended.matchId);
    }
    expect(bot.messages.some((m) => Array.isArray(m.holeCards))).toBe(true);
    await server.app.services.host.settled();
    bot.disconnect();
    await bot.untilClosed();
    // The server counts the socket gone when it handles the close: scrape once it has.
    scrape = await until(async () => {
      const response = await fetch(`${server.url}/metrics`);
      expect(response.status).toBe(200);
      const text = await response.text();
      return total(text, "poker_websocket_connections", { kind: "bot" }) === 0 && text;
    }, 10_000, "the bot's socket counted closed");
  });
  afterAll(() => server.close());

  test("loopback scrapes; the same request through a proxy header does not", async () => {
    expect((await fetch(`${server.url}/metrics`, { headers: { "x-forwarded-for": "203.0.113.7" } })).status).toBe(403);
  });

  test("the figures of what happened", () => {
    expect(total(scrape, "poker_hands_dealt_total")).toBeGreaterThan(0);
    expect(total(scrape, "poker_matches_started_total")).toBe(2);
    expect(total(scrape, "poker_matches_finished_total")).toBe(2);
    expect(total(scrape, "poker_ledger_operations_total", { type: "faucet", result: "ok" })).toBe(1);
    expect(total(scrape, "poker_ledger_operations_total", { type: "buy_in", result: "ok" })).toBe(4);
    expect(total(scrape, "poker_ledger_operations_total", { type: "cashout", result: "ok" })).toBeGreaterThanOrEqual(0);
    expect(total(scrape, "poker_ledger_operation_duration_seconds_count", { type: "buy_in" })).toBe(4);
    expect(total(scrape, "poker_bot_actions_total", { outcome: "accepted" })).toBeGreaterThan(0);
    expect(total(scrape, "poker_relay_turnaround_seconds_count")).toBeGreaterThan(0);
    expect(total(scrape, "poker_websocket_messages_received_total", { kind: "bot" })).toBeGreaterThan(0);
    expect(total(scrape, "poker_websocket_connections", { kind: "bot" })).toBe(0);
    expect(total(scrape, "poker_tables", { status: "running" })).toBe(0);
    expect(total(scrape, "poker_http_requests_total", { route: "/api/tables/:tableId/join", method: "POST", status: "201" })).toBe(4);
    expect(total(scrape, "poker_nats_connected")).toBe(1);
    expect(total(scrape, "poker_lease_standing")).toBe(1);
    expect(total(scrape, "process_resident_memory_bytes")).toBeGreaterThan(0);
    expect(scrape).toContain("nodejs_eventloop_lag_p99_seconds");
  });

  test("bounded label sets: known label names only, and no id, key, token or card anywhere", () => {
    expect(secrets.length).toBeGreaterThan(10);
    for (const s of series(scrape)) {
      for (const [name, value] of Object.entries(s.labels)) {
        expect(ALLOWED_LABELS.has(name) ? name : `${s.name}{${name}}`).toBe(name);
        // A card (rank and suit) is never a label value.
        expect(/^[2-9TJQKA][cdhs]$/.test(value) ? `${name}=${value}` : "").toBe("");
        if (name === "route") expect(value === "unmatched" || /^\/[a-z/:A-Z-]*$/.test(value)).toBe(true);
      }
    }
    for (const secret of secrets) expect(scrape.includes(secret) ? secret : "").toBe("");
  });

  test("promtool check metrics: no errors", async () => {
    const checked = await promtool(["check", "metrics"], scrape);
    expect(checked.output).toBe("");
    expect(checked.code).toBe(0);
  });
});
