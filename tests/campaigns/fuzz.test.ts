/**
 * Fuzzing: every route of the OpenAPI document (/swagger/json, so a new route is fuzzed
 * automatically) with generated hostile input on a real server (real HTTP parsing, body limits),
 * with a valid token where the route needs one. Expect no 5xx, the SPEC §8 error shape, and no
 * state change. Then WebSocket frames: garbage, huge, wrong requestId, actions for another bot.
 *
 *   FUZZ_SEED (replay), FUZZ_CASES (per route, default 40)
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { LoginBody, RegisterBody } from "../../src/modules/auth/model";
import { CreateBotBody } from "../../src/modules/bots/model";
import { CreateTableBody, SeatBody } from "../../src/modules/tables/model";
import { auditLedger } from "../../src/modules/credits/audit";
import { createBot, registerWithCredits, startTestServer, type TestServer } from "../support/server";
import { WsBot } from "../support/ws-bot";
import { callApi, errorShapeProblem, intFromEnv, jsonRpcErrorProblem, Rng, rowsOf, seedFrom } from "./support";

const SEED = seedFrom("FUZZ_SEED");
const CASES = intFromEnv("FUZZ_CASES", 40);

let server: TestServer;
let dev: { token: string; developerId: string };
let builtIn: { botId: string; apiKey: string };
let seated: { botId: string; apiKey: string };
let tableId: string;

beforeAll(async () => {
  server = await startTestServer("fuzz", { BOT_MESSAGES_PER_SECOND: "100000" });
  dev = await registerWithCredits(server, "fuzz");
  builtIn = await createBot(server, dev.token, "fuzz-builtin", "caller");
  seated = await createBot(server, dev.token, "fuzz-seated", "caller");
  tableId = (await server.api("POST", "/api/tables", { token: dev.token, body: { maxPlayers: 3 } })).body.tableId;
  expect((await server.api("POST", `/api/tables/${tableId}/join`, { token: dev.token, body: { botId: seated.botId } })).status).toBe(201);
});
afterAll(() => server.close());

/** Counts and sums of every table: any state change shows. */
async function snapshot() {
  const [row] = await rowsOf(
    server.database.db,
    sql`select
      (select count(*) from developers)::int as developers,
      (select coalesce(sum(balance), 0)::text from developers) as balances,
      (select string_agg(coalesce(last_faucet_at::text, '-') || coalesce(name, '-') || email, ',' order by id) from developers) as developer_rows,
      (select count(*) from bots)::int as bots,
      (select string_agg(api_key_hash || name || description || coalesce(strategy, '-'), ',' order by id) from bots) as bot_rows,
      (select count(*) from transactions)::int as transactions,
      (select coalesce(sum(amount), 0)::text from transactions) as transaction_sum,
      (select count(*) from seats)::int as seats,
      (select coalesce(sum(chips), 0)::text from seats where status = 'open') as open_chips,
      (select string_agg(seq || status, ',' order by seq) from seats) as seat_rows,
      (select count(*) from tables)::int as tables,
      (select string_agg(id || status, ',' order by id) from tables) as table_rows,
      (select count(*) from matches)::int as matches,
      (select count(*) from hands)::int as hands,
      (select count(*) from bot_stats)::int as bot_stats,
      (select count(*) from settings)::int as settings`,
  );
  return row;
}

const NASTY_STRINGS = [
  "",
  " ",
  "NaN",
  "Infinity",
  "-Infinity",
  "1e400",
  "-1",
  "0x10",
  "null",
  "undefined",
  "true",
  "'; drop table developers; --",
  "' OR '1'='1",
  "1; select pg_sleep(1)",
  '{"$ne":null}',
  '"},"admin":true,"x":{"',
  "../../../etc/passwd",
  "..%2f..%2fetc%2fpasswd",
  "%00",
  "\u0000",
  "\u0007\u001b[31m",
  "\r\nX-Injected: 1",
  "𝕏𝖚𝖓𝖎𝖈𝖔𝖉𝖊😀",
  "\u202eevil",
  "\ud800",
  "<script>alert(1)</script>",
  "${7*7}{{7*7}}",
  "__proto__",
  "x".repeat(65),
  "y".repeat(5_000),
];
const NASTY_NUMBERS = [-1, 0, 1.5, -0.5, 1e300, -1e300, Number.MAX_SAFE_INTEGER + 2, 2 ** 31, 2 ** 63, 1_000_000_001, 100_001, 11, 1, 49];
const NASTY_VALUES: unknown[] = [null, true, false, [], {}, [1, 2], { $gt: "" }, { toString: "x" }, ...NASTY_NUMBERS, ...NASTY_STRINGS.slice(0, 12)];

type Schema = { type?: string; properties?: Record<string, Schema>; required?: string[]; minimum?: number; maximum?: number; minLength?: number; maxLength?: number; format?: string; anyOf?: Schema[]; const?: unknown; additionalProperties?: boolean };

/** Body schemas by route when the OpenAPI document does not carry them (see the doc finding below). */
const KNOWN_BODIES: Record<string, Schema> = {
  "post /api/auth/register": RegisterBody as unknown as Schema,
  "post /api/auth/login": LoginBody as unknown as Schema,
  "post /api/bots": CreateBotBody as unknown as Schema,
  "post /api/tables": CreateTableBody as unknown as Schema,
  "post /api/tables/{tableId}/join": SeatBody as unknown as Schema,
  "post /api/tables/{tableId}/leave": SeatBody as unknown as Schema,
};

/** A value of the wrong JSON type for the schema, or out of its range: always invalid. */
function invalidFor(schema: Schema, rng: Rng): unknown {
  const type = schema.type ?? (schema.anyOf ? "union" : undefined);
  if (type === "integer" || type === "number") {
    const options: unknown[] = [rng.pick(NASTY_STRINGS), null, true, [], {}, 1.5, -0.25];
    if (schema.minimum !== undefined) options.push(schema.minimum - 1, -1e300);
    if (schema.maximum !== undefined) options.push(schema.maximum + 1, 1e300, 2 ** 63);
    options.push(String(schema.minimum ?? 1)); // a numeric string is still the wrong type in a body
    return rng.pick(options);
  }
  if (type === "string") {
    const options: unknown[] = [rng.int(-5, 5), 1.5, null, true, [], { $ne: null }, [rng.pick(NASTY_STRINGS)]];
    if (schema.maxLength !== undefined) options.push("z".repeat(schema.maxLength + 1 + rng.int(0, 50)));
    if ((schema.minLength ?? 0) > 0) options.push("");
    if (schema.format === "email") options.push(rng.pick(NASTY_STRINGS.filter((s) => !s.includes("@"))));
    return rng.pick(options);
  }
  if (type === "union") return rng.pick([42, null, [], {}, "not-one-of-them", rng.pick(NASTY_STRINGS.filter((s) => s.length < 60))]);
  // A boolean field: true and false would be valid, so never them.
  if (type === "boolean") return rng.pick(NASTY_VALUES.filter((v) => typeof v !== "boolean"));
  return rng.pick(NASTY_VALUES);
}

/** A valid value, as a base to break one thing of. */
function validFor(name: string, schema: Schema, context: Record<string, string>): unknown {
  if (context[name] !== undefined) return context[name];
  if (schema.format === "email") return `fuzz-${Math.random().toString(36).slice(2)}@example.com`;
  if (schema.type === "integer" || schema.type === "number") return schema.minimum ?? 1;
  if (schema.anyOf) return schema.anyOf[0].const;
  return "v".repeat(Math.max(schema.minLength ?? 1, 8));
}

interface FuzzRequest {
  label: string;
  method: string;
  path: string;
  rawBody?: string | Uint8Array;
  contentType?: string | null;
  token?: string;
}

/** Request bodies are named components (`$ref`): put each in place, so the generator reads its fields. */
function inlineBodies(doc: any): any {
  for (const item of Object.values<any>(doc.paths))
    for (const op of Object.values<any>(item)) {
      const media = op?.requestBody?.content?.["application/json"];
      if (media?.schema?.$ref) media.schema = doc.components.schemas[media.schema.$ref.split("/").pop()];
    }
  return doc;
}

/** One hostile request for a route: an invalid body, path id or query, or a broken transport. */
function generate(method: string, path: string, op: any, rng: Rng): FuzzRequest {
  const key = `${method} ${path}`;
  const needsAuth = Array.isArray(op.security) && op.security.length > 0;
  const token = needsAuth ? dev.token : undefined;
  const pathParams = (op.parameters ?? []).filter((p: any) => p.in === "path");
  const queryParams = (op.parameters ?? []).filter((p: any) => p.in === "query");
  const bodySchema: Schema | undefined = op.requestBody?.content?.["application/json"]?.schema ?? KNOWN_BODIES[key];
  const context: Record<string, string> = { botId: builtIn.botId, tableId };
  const realPath = (ids: Record<string, string> = {}) =>
    path.replace(/\{(\w+)\}/g, (_, name) => enc(ids[name] ?? context[name] ?? "x"));
  const kinds: string[] = [];
  if (pathParams.length) kinds.push("path", "path", "path");
  if (queryParams.length) kinds.push("query", "query", "unknown-query");
  if (method !== "get") kinds.push("body", "body", "body", "body", "extra-key", "missing", "top-level", "duplicate-key", "content-type", "huge", "nested");
  if (kinds.length === 0) kinds.push("unknown-query");
  const kind = rng.pick(kinds);
  const base = () => {
    const body: Record<string, unknown> = {};
    for (const name of bodySchema?.required ?? []) body[name] = validFor(name, bodySchema!.properties![name], context);
    return body;
  };
  // Where a body is valid, the path id is garbage, so the request is still one that must fail.
  const garbageIdPath = () => realPath(Object.fromEntries(pathParams.map((p: any) => [p.name, `${rng.pick(["bot_", "tbl_", "m_", ""])}${rng.pick(NASTY_STRINGS.filter((s) => s.length > 0 && s.length <= 64))}`])));
  const json = (value: unknown) => JSON.stringify(value);
  switch (kind) {
    case "path": {
      const value = rng.pick([...NASTY_STRINGS.filter((s) => s.length > 0), "x".repeat(64), "bot_00000000000000000000000000", "%2e%2e%2f%2e%2e%2f"]);
      const encoded = value.startsWith("%") ? value : enc(value);
      const p = path.replace(/\{(\w+)\}/g, () => encoded);
      return { label: `${kind}:${value.slice(0, 20)}`, method, path: p, token, rawBody: bodySchema ? json(base()) : undefined, contentType: bodySchema ? "application/json" : undefined };
    }
    case "query": {
      const param = rng.pick(queryParams) as any;
      const value = rng.pick(["-1", "0", "1.5", "1e400", "NaN", "Infinity", "abc", "99999999999999999999", "", "%00", "x".repeat(70), "'%20OR%201=1", "__proto__", "1,2", "[]"]);
      const repeated = rng.chance(0.2) ? `&${param.name}=1` : "";
      return { label: `query:${param.name}=${value.slice(0, 12)}`, method, path: `${garbageIdPath()}?${param.name}=${value}${repeated}`, token };
    }
    case "unknown-query":
      return { label: "unknown-query", method, path: `${pathParams.length ? garbageIdPath() : realPath()}?${rng.pick(["__proto__[x]=1", "admin=true", "limit[]=1", "a=%00", "constructor=1"])}`, token };
    case "body": {
      const body = base();
      const props = Object.entries(bodySchema?.properties ?? { x: {} });
      const [name, schema] = rng.pick(props);
      body[name] = invalidFor(schema, rng);
      return { label: `body:${name}`, method, path: !bodySchema || (pathParams.length && rng.chance(0.3)) ? garbageIdPath() : realPath(), token, rawBody: json(body), contentType: "application/json" };
    }
    case "extra-key": {
      const body = base();
      const extra = rng.pick(["admin", "balance", "developerId", "apiKey", "constructor", "__proto__", "'; drop table bots; --", "𝕏"]);
      const raw = json(body).replace(/^\{/, `{${json(extra)}:${json(rng.pick(NASTY_VALUES))}${Object.keys(body).length ? "," : ""}`);
      // additionalProperties: false everywhere; bodyless routes get a garbage id.
      return { label: `extra-key:${extra.slice(0, 12)}`, method, path: bodySchema ? realPath() : garbageIdPath(), token, rawBody: raw, contentType: "application/json" };
    }
    case "missing": {
      const body = base();
      const required = bodySchema?.required ?? [];
      if (required.length) delete body[rng.pick(required)];
      return { label: "missing", method, path: required.length ? realPath() : garbageIdPath(), token, rawBody: required.length ? json(body) : "", contentType: "application/json" };
    }
    case "top-level":
      return { label: "top-level", method, path: bodySchema ? realPath() : garbageIdPath(), token, rawBody: rng.pick(["[]", "null", "42", '"str"', "true", "[{}]", "{", "}", "{'a':1}", "NaN", "\u0000", "{\"a\":1}}"]), contentType: "application/json" };
    case "duplicate-key": {
      const body = base();
      const props = Object.keys(bodySchema?.properties ?? { x: {} });
      const name = rng.pick(props);
      // The last occurrence wins in JSON.parse: make that one invalid.
      const invalid = invalidFor((bodySchema?.properties ?? {})[name] ?? {}, rng);
      const raw = `{${json(name)}:${json(validFor(name, (bodySchema?.properties ?? {})[name] ?? {}, context))},${json(body).slice(1, -1)}${Object.keys(body).length ? "," : ""}${json(name)}:${json(invalid)}}`;
      return { label: `duplicate-key:${name}`, method, path: bodySchema ? realPath() : garbageIdPath(), token, rawBody: raw, contentType: "application/json" };
    }
    case "content-type": {
      const contentType = rng.pick(["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/xml", "application/jsonx", "json", null]);
      const raw = rng.pick([json(base()), "name=x&strategy=random", "<a/>"]);
      return { label: `content-type:${contentType}`, method, path: bodySchema ? realPath() : garbageIdPath(), token, rawBody: raw, contentType };
    }
    case "huge": {
      const size = rng.pick([70_000, 1_048_576]);
      const raw = json({ ...base(), pad: "p".repeat(size) });
      return { label: `huge:${size}`, method, path: bodySchema ? realPath() : garbageIdPath(), token, rawBody: raw, contentType: "application/json" };
    }
    default: {
      const depth = rng.pick([100, 1_000, 10_000]);
      const raw = rng.chance(0.5) ? "[".repeat(depth) + "]".repeat(depth) : `{"a":${'{"a":'.repeat(depth)}1${"}".repeat(depth)}}`;
      return { label: `nested:${depth}`, method, path: bodySchema ? realPath() : garbageIdPath(), token, rawBody: raw, contentType: "application/json" };
    }
  }
}

/** encodeURIComponent, but a lone surrogate becomes its (invalid UTF-8) CESU bytes instead of throwing. */
function enc(value: string): string {
  try {
    return encodeURIComponent(value);
  } catch {
    return value.replace(/[\ud800-\udfff]/g, "%ED%A0%80").replace(/[^%A-Za-z0-9]/g, (c) => encodeURIComponent(c));
  }
}

async function send(request: FuzzRequest) {
  const headers: Record<string, string> = {};
  if (request.token) headers.authorization = `Bearer ${request.token}`;
  if (request.contentType) headers["content-type"] = request.contentType;
  const response = await fetch(`${server.url}${request.path}`, { method: request.method.toUpperCase(), headers, body: request.rawBody });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {}
  return { status: response.status, body, text };
}

describe("fuzzing", () => {
  test("every route from the OpenAPI document, hostile input: no 5xx, §8 errors, no state change", async () => {
    const rng = new Rng(SEED);
    console.log(`[fuzz] seed ${SEED} (replay with FUZZ_SEED=${SEED}), ${CASES} cases per route`);
    const doc = inlineBodies((await (await fetch(`${server.url}/swagger/json`)).json()) as any);
    const routes: Array<[string, string, any]> = [];
    for (const [path, ops] of Object.entries<any>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(ops)) if (["get", "post", "put", "patch", "delete"].includes(method)) routes.push([method, path, op]);
    }
    expect(routes.length).toBeGreaterThanOrEqual(20);
    // The faucet was claimed: from here on a claim is refused (cooldown), so it cannot change state.
    const before = await snapshot();
    const statuses = new Map<number, number>();
    const problems: string[] = [];
    let sent = 0;
    for (const [method, path, op] of routes) {
      for (let i = 0; i < CASES; i++) {
        const request = generate(method, path, op, rng);
        const response = await send(request);
        sent += 1;
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
        const where = `${method.toUpperCase()} ${request.path.slice(0, 80)} [${request.label}]`;
        if (response.status >= 500) problems.push(`${where}: ${response.status} ${response.text.slice(0, 200)}`);
        if (method !== "get" && response.status < 400) problems.push(`${where}: a hostile write answered ${response.status} ${response.text.slice(0, 200)}`);
        if (response.status >= 400) {
          const problem = path === "/mcp" ? jsonRpcErrorProblem(response.status, response.body) : errorShapeProblem(response.body);
          // SQL-looking text in an answer may just be our own input echoed back in a validation message.
          const echoedSql = problem?.includes("(sql)") && /select|insert|drop|update/i.test(`${request.path}${request.rawBody}`);
          if (problem && !echoedSql) problems.push(`${where}: ${problem}`);
        }
        if (response.status === 413 || response.status === 415 || response.status === 400 || response.status === 404) continue;
      }
    }
    // Routes outside the document: unknown paths and methods.
    for (const [method, path] of [["DELETE", "/api/bots"], ["PUT", "/api/tables"], ["PATCH", "/api/me"], ["GET", "/api/../etc/passwd"], ["GET", "/api/%2e%2e/%2e%2e/etc/passwd"], ["GET", "/api/tables/..%2F..%2Fetc%2Fpasswd"], ["OPTIONS", "/api/bots"]]) {
      const response = await callApi(server.url, method, path).catch(() => ({ status: 0, body: null }));
      sent += 1;
      statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
      if (response.status >= 500) problems.push(`${method} ${path}: ${response.status}`);
      if (response.status >= 400) {
        const problem = errorShapeProblem(response.body);
        if (problem) problems.push(`${method} ${path}: ${problem}`);
      }
    }
    const after = await snapshot();
    console.log(`[fuzz] ${sent} requests over ${routes.length} routes; statuses ${JSON.stringify(Object.fromEntries([...statuses].sort(([a], [b]) => a - b)))}`);
    expect(problems.slice(0, 30)).toEqual([]);
    expect(after).toEqual(before);
    expect((await auditLedger(server.database.db)).problems).toEqual([]);
    // Still healthy.
    expect((await server.api("GET", "/health")).status).toBe(200);
  }, 110_000);

  test("regression (NUL byte): an id or cursor with U+0000 answers 4xx, not 500 INTERNAL", async () => {
    const statuses = [];
    for (const [method, path, body] of [
      ["GET", "/api/tables/%00"],
      ["GET", "/api/bots/bot_%00"],
      ["GET", "/api/matches/m_%00"],
      ["GET", "/api/matches?before=%00"],
      ["GET", "/api/bots?after=%00"],
      ["GET", "/api/stats/bot_%00"],
      ["POST", "/api/bots/bot_%00/rotate-key"],
      ["POST", `/api/tables/${tableId}/join`, { botId: "bot_\u0000" }],
      ["POST", "/api/bots", { name: "nul\u0000name" }],
    ] as Array<[string, string, unknown?]>) {
      statuses.push((await callApi(server.url, method, path, { token: dev.token, body })).status);
    }
    expect(statuses.filter((s) => s >= 500)).toEqual([]);
  });

  test("regression (body limit): a body over MAX_BODY_BYTES gets the §8 413 PAYLOAD_TOO_LARGE body, not Bun's empty 413", async () => {
    const response = await fetch(`${server.url}/api/bots`, {
      method: "POST",
      headers: { authorization: `Bearer ${dev.token}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "x", description: "d".repeat(1_048_576) }),
    });
    expect(response.status).toBe(413);
    expect(errorShapeProblem(await response.json().catch(() => null))).toBeNull();
  });

  test("the OpenAPI document carries the request body schema of every route that takes a body", async () => {
    const doc = inlineBodies((await (await fetch(`${server.url}/swagger/json`)).json()) as any);
    const missing = Object.keys(KNOWN_BODIES).filter((key) => {
      const [method, path] = key.split(" ");
      return !doc.paths[path]?.[method]?.requestBody?.content?.["application/json"]?.schema;
    });
    expect(missing).toEqual([]);
  });

  test("WebSocket frames: garbage, huge, wrong requestId, actions for another bot change nothing", async () => {
    const a = await createBot(server, dev.token, "ws-a");
    const b = await createBot(server, dev.token, "ws-b");
    const wsA = await new WsBot(server.url, a.apiKey, () => "silent").connect();
    const wsB = await new WsBot(server.url, b.apiKey, () => "silent").connect();
    const table = (await server.api("POST", "/api/tables", { token: dev.token, body: { maxPlayers: 2, maxHands: 3, actionTimeoutMs: 60_000 } })).body.tableId;
    expect((await server.api("POST", `/api/tables/${table}/join`, { token: dev.token, body: { botId: a.botId } })).status).toBe(201);
    expect((await server.api("POST", `/api/tables/${table}/join`, { token: dev.token, body: { botId: b.botId } })).status).toBe(201);
    // Whoever acts first holds the open request; the other is the intruder.
    const first = await Promise.race([wsA.next((m) => m.type === "action_request").then((m) => [wsA, wsB, m] as const), wsB.next((m) => m.type === "action_request").then((m) => [wsB, wsA, m] as const)]);
    const [actor, intruder, request] = first;
    const before = await snapshot();
    const frames: Array<string | Record<string, unknown>> = [
      "not json",
      "",
      "[]",
      "null",
      "42",
      '{"type":5}',
      '{"type":null}',
      '{"type":"action"',
      "\u0000\u0001\u0002",
      "x".repeat(5_000),
      { type: "teleport" },
      { type: "__proto__" },
      { type: "action", requestId: "req_forged", action: "fold" },
      { type: "action", requestId: request.requestId, action: "fold" },
      { type: "action", requestId: request.requestId, action: "raise", amount: 1e300 },
      { type: "action", requestId: { $ne: null }, action: "call" },
      { type: "action", requestId: null, action: "call" },
    ];
    const rng = new Rng(SEED ^ 0x5eed);
    for (let i = 0; i < 40; i++) frames.push({ type: rng.pick(["action", "ping", "ACTION", "action "]), requestId: rng.pick([request.requestId, "req_x", null, 7, "'; drop table hands; --"]), action: rng.pick(NASTY_VALUES), amount: rng.pick(NASTY_VALUES) });
    const intruderSince = intruder.messages.length;
    const actorMark = actor.messages.length;
    for (const frame of frames) intruder.send(frame);
    intruder.send({ type: "ping" });
    await intruder.next((m) => m.type === "pong", 10_000, intruderSince);
    const answers = intruder.messages.slice(intruderSince);
    // Every frame from the intruder got an error or a pong; never an action taken on the actor's behalf.
    const codes = new Set(answers.filter((m) => m.type === "error").map((m) => m.code));
    expect([...codes].every((c) => ["BAD_MESSAGE", "UNKNOWN_TYPE", "STALE_REQUEST"].includes(c))).toBe(true);
    expect(codes.has("STALE_REQUEST")).toBe(true);
    const actorBotId = actor === wsA ? a.botId : b.botId;
    expect(actor.messages.slice(actorMark).some((m) => m.type === "action" && m.botId === actorBotId)).toBe(false);
    // The actor's own garbage: ILLEGAL_ACTION and the request stays open.
    const actorSince = actor.messages.length;
    actor.send({ type: "action", requestId: request.requestId, action: "raise", amount: -5 });
    actor.send({ type: "action", requestId: request.requestId, action: "raise", amount: "100" });
    actor.send({ type: "action", requestId: request.requestId, action: "shove" });
    actor.send({ type: "ping" });
    await actor.next((m) => m.type === "pong", 10_000, actorSince);
    expect(actor.messages.slice(actorSince).filter((m) => m.type === "error").map((m) => m.code)).toEqual(["ILLEGAL_ACTION", "ILLEGAL_ACTION", "ILLEGAL_ACTION"]);
    expect(actor.messages.slice(actorSince).some((m) => m.type === "action")).toBe(false);
    expect(await snapshot()).toEqual(before);
    // A frame over 16 KiB is refused: the socket is closed; a reconnect works and gets the open request again.
    intruder.send("h".repeat(20_000));
    // Over the frame cap, the server closes the socket (1009), whatever the frame says.
    await intruder.untilClosed(10_000);
    expect(intruder.closed).toBe(true);
    // Now the match plays on with legal answers and ends; the books balance.
    actor.policy = intruder.policy = (r) => ({ action: r.legalActions.includes("check") ? "check" : "call" });
    await intruder.connect();
    actor.send({ type: "action", requestId: request.requestId, action: request.legalActions.includes("check") ? "check" : "call" });
    await actor.next((m) => m.type === "match_ended", 30_000);
    expect((await auditLedger(server.database.db)).problems).toEqual([]);
    wsA.disconnect();
    wsB.disconnect();
    console.log(`[fuzz] websocket: ${frames.length + 4} frames; intruder answers ${JSON.stringify([...codes])}; the over-16KiB frame closed the socket`);
  }, 60_000);
});
