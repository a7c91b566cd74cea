import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { openTelemetryTracing } from "../../src/lib/tracing-otel";
import { ROOT } from "../support/process";
import { TestCluster, until } from "../support/nodes";
import { startOtlpReceiver, type ReceivedSpan } from "../support/otlp-receiver";
import { createBot, registerWithCredits, startTestServer, type TestServer } from "../support/server";

// OpenTelemetry spans to a tiny OTLP/HTTP JSON receiver: one server in-process, then two nodes over NATS.
setDefaultTimeout(90_000);

const receiver = startOtlpReceiver();
afterAll(() => receiver.stop());
const OTEL = { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: "100" };
const named = (spans: ReceivedSpan[], name: string) => spans.filter((s) => s.name === name);

describe("with OTEL_EXPORTER_OTLP_ENDPOINT: spans of HTTP requests, ledger operations and a match", () => {
  let server: TestServer;
  const secrets: string[] = [];
  let spans: ReceivedSpan[] = [];

  beforeAll(async () => {
    server = await startTestServer("tracing", { ...OTEL, HOST_ID: "node_tr" });
    expect(server.tracing.enabled).toBe(true);
    const owner = await registerWithCredits(server, "traced");
    secrets.push(owner.token);
    const table = await server.api("POST", "/api/tables", { token: owner.token, body: { maxPlayers: 2, maxHands: 3, buyIn: 500 } });
    for (const strategy of ["caller", "raiser"]) {
      const bot = await createBot(server, owner.token, `t_${strategy}`, strategy);
      secrets.push(bot.apiKey);
      expect((await server.api("POST", `/api/tables/${table.body.tableId}/join`, { token: owner.token, body: { botId: bot.botId } })).status).toBe(201);
    }
    await until(async () => (await server.api("GET", `/api/tables/${table.body.tableId}`)).body.status === "finished", 30_000, "the match's end");
    await server.app.services.host.settled();
    await server.tracing.flush();
    spans = receiver.spans.filter((s) => s.node === "node_tr");
  });
  afterAll(() => server.close());

  test("each request is a server span named by its route template, with its status", () => {
    const joins = named(spans, "POST /api/tables/:tableId/join");
    expect(joins.length).toBe(2);
    for (const join of joins) expect(join.attributes).toMatchObject({ "http.route": "/api/tables/:tableId/join", "http.response.status_code": 201, "http.request.method": "POST" });
    expect(named(spans, "POST /api/tables").length).toBe(1);
    expect(spans.some((s) => s.name.includes("tbl_"))).toBe(false);
  });

  test("ledger operations are spans, a buy-in the child of its join request; the match's start and end", () => {
    expect(named(spans, "ledger faucet").length).toBe(1);
    const buyIns = named(spans, "ledger buy_in");
    expect(buyIns.length).toBe(2);
    const joinIds = new Set(named(spans, "POST /api/tables/:tableId/join").map((s) => s.spanId));
    for (const buyIn of buyIns) {
      expect(joinIds.has(buyIn.parentSpanId)).toBe(true);
      expect(buyIn.attributes).toMatchObject({ "ledger.operation": "buy_in", "ledger.amount": 500 });
    }
    expect(named(spans, "match start").length).toBe(1);
    const end = named(spans, "match end");
    expect(end.length).toBe(1);
    expect(end[0].attributes["poker.hands_played"]).toBe(3);
  });

  test("no token, api key or card in any span", () => {
    // Requests, ledger operations and the match's start and end: the spans checked below.
    expect(spans.length).toBeGreaterThanOrEqual(8);
    const everything = receiver.bodies.join("\n");
    for (const secret of secrets) expect(everything.includes(secret) ? secret : "").toBe("");
    for (const span of spans) for (const value of Object.values(span.attributes)) expect(/^[2-9TJQKA][cdhs]$/.test(String(value)) ? value : "").toBe("");
  });
});

describe("flush(): every span ended before it has reached the collector", () => {
  test("an export the batch processor's timer already started is waited for, not only what is still buffered", async () => {
    const tracing = openTelemetryTracing({ endpoint: receiver.url, serviceName: "poker-bot-service", scheduleDelayMs: 1 }, "node_flush");
    const release = receiver.hold();
    try {
      tracing.start("in flight", {}).end();
      // The timer sends it on its own (1 ms): the collector has the request and keeps its answer back.
      await until(async () => receiver.spans.some((s) => s.node === "node_flush"), 10_000, "the timer's export");
      let flushed = false;
      const flushing = tracing.flush().then(() => void (flushed = true));
      // Nothing is left in the buffer: a flush that only sent the buffer would be over by now.
      await new Promise((resolve) => setImmediate(resolve));
      expect(flushed).toBe(false);
      release();
      await flushing;
      expect(flushed).toBe(true);
    } finally {
      release();
      await tracing.shutdown();
    }
    expect(receiver.spans.filter((s) => s.node === "node_flush").map((s) => s.name)).toEqual(["in flight"]);
  });
});

describe("across nodes: a join through node B for a table on node A is one trace", () => {
  let cluster: TestCluster;
  beforeAll(async () => {
    cluster = await TestCluster.create("tracing", OTEL);
    await cluster.start("tr_a");
    await cluster.start("tr_b");
  });
  afterAll(() => cluster.close());

  test("B's request span, A's table command (its child) and A's buy-in share one trace id", async () => {
    const token = await cluster.fundedDeveloper("tr_a");
    const table = await cluster.api("tr_a", "POST", "/api/tables", { token, body: { maxPlayers: 3, buyIn: 500 } });
    expect(await cluster.hostOf(table.body.tableId)).toBe("tr_a");
    const bot = await cluster.api("tr_a", "POST", "/api/bots", { token, body: { name: "via_b", strategy: "caller" } });
    expect((await cluster.api("tr_b", "POST", `/api/tables/${table.body.tableId}/join`, { token, body: { botId: bot.body.botId } })).status).toBe(201);
    const request = await until(async () => receiver.spans.find((s) => s.node === "tr_b" && s.name === "POST /api/tables/:tableId/join"), 10_000, "B's join span");
    const command = await until(async () => receiver.spans.find((s) => s.node === "tr_a" && s.name === "table join" && s.traceId === request.traceId), 10_000, "A's table join span");
    expect(command.parentSpanId).toBe(request.spanId);
    expect(command.attributes["poker.table_id"]).toBe(table.body.tableId);
    const buyIn = await until(async () => receiver.spans.find((s) => s.node === "tr_a" && s.name === "ledger buy_in" && s.traceId === request.traceId), 10_000, "A's buy-in span");
    expect(buyIn.parentSpanId).toBe(command.spanId);
  });
});

describe("without OTEL_EXPORTER_OTLP_ENDPOINT: off, and nothing of tracing loaded", () => {
  test("a server that answered requests and seated a bot loaded no OpenTelemetry SDK, exporter or resources (nor lib/tracing-otel.ts)", async () => {
    // A process of its own: this one loaded OpenTelemetry for the tests above.
    const script = `
      import { startTestServer, registerWithCredits } from "./tests/support/server";
      const server = await startTestServer("tracing_off", { OTEL_EXPORTER_OTLP_ENDPOINT: "" });
      const owner = await registerWithCredits(server, "untraced");
      const table = await server.api("POST", "/api/tables", { token: owner.token, body: { maxPlayers: 2 } });
      const bot = await server.api("POST", "/api/bots", { token: owner.token, body: { name: "b", strategy: "caller" } });
      const joined = await server.api("POST", "/api/tables/" + table.body.tableId + "/join", { token: owner.token, body: { botId: bot.body.botId } });
      // @opentelemetry/api itself is prom-client's (processCpuTotal requires it, tracing or not): the SDK, exporter and our OTel side are what tracing would add.
      const loaded = Object.keys(require.cache).filter((path) => (path.includes("opentelemetry") && !path.includes("/@opentelemetry/api/")) || path.endsWith("tracing-otel.ts"));
      const api = Object.keys(require.cache).filter((path) => path.includes("/@opentelemetry/api/")).length;
      console.log(JSON.stringify({ enabled: server.tracing.enabled, joined: joined.status, loaded, api, modules: Object.keys(require.cache).length }));
      await server.close();
    `;
    const child = Bun.spawn(["bun", "-e", script], { cwd: ROOT, env: { ...process.env, OTEL_EXPORTER_OTLP_ENDPOINT: "" }, stdout: "pipe", stderr: "pipe" });
    const [out, err, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
    const line = out.split("\n").find((l) => l.startsWith("{"));
    if (!line) throw new Error(`no report (rc ${code}): ${out} ${err}`);
    const report = JSON.parse(line);
    expect(report).toMatchObject({ enabled: false, joined: 201, loaded: [] });
    expect(report.modules).toBeGreaterThan(100);
    // The check sees packages at all: prom-client's copy of the API is there.
    expect(report.api).toBeGreaterThan(0);
  });
});
