/** The hosted-bot routes (issue 27): upload, versions, source, logs, and what the bot views say. */
import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { createHash } from "node:crypto";
import { sql } from "drizzle-orm";
import { queryRows } from "../../src/db";
import { hostedLogs } from "../../src/db/schema";
import { useHarness } from "../support/app";
import { FIXTURES } from "./support";

setDefaultTimeout(60_000);

// Many uploads by one owner: the per-developer upload rate (tested in limits.test.ts) is lifted here.
const h = useHarness("hosted_routes", { HOSTED_UPLOADS_PER_MINUTE: "1000" });
const STARTER = new URL("../../examples/starter-bot.ts", import.meta.url);
const fixture = (name: string) => Bun.file(new URL(`${name}.ts`, FIXTURES)).text();
const TS = { "content-type": "text/typescript" };
const JS = { "content-type": "application/javascript" };

/** A small legal bot in plain JavaScript (no SDK import: the default export is enough). */
const JS_BOT = "export default { decide(state) { return state.legal.has('check') ? { action: 'check' } : { action: 'call' }; } };\n";

let owner: { developerId: string; token: string };
let stranger: { developerId: string; token: string };
let botId: string;
let starter: string;

async function versionRows(id: string): Promise<number> {
  const [{ n }] = await queryRows<{ n: number }>(h.database.db, sql`select count(*)::int as n from bot_code_versions where bot_id = ${id}`);
  return n;
}

const upload = (id: string, source: string, options: { token?: string; headers?: Record<string, string> } = {}) =>
  h.call("PUT", `/api/bots/${id}/code`, { token: options.token ?? owner.token, rawBody: source, headers: options.headers ?? TS });

beforeAll(async () => {
  owner = await h.registerDeveloper();
  stranger = await h.registerDeveloper();
  botId = (await h.call("POST", "/api/bots", { token: owner.token, body: { name: "hosted-one" } })).body.botId;
  starter = await Bun.file(STARTER).text();
});

describe("PUT /api/bots/:botId/code", () => {
  test("the starter bot (TypeScript, unchanged) is version 1, a JavaScript file version 2; the answer has the file's hash and size", async () => {
    const first = await upload(botId, starter);
    expect(first.status).toBe(201);
    expect(first.body).toEqual({
      botId,
      version: 1,
      sha256: createHash("sha256").update(starter).digest("hex"),
      bytes: Buffer.byteLength(starter),
      createdAt: new Date(h.clock.now()).toISOString(),
    });
    const second = await upload(botId, JS_BOT, { headers: JS });
    expect([second.status, second.body.version, second.body.bytes]).toEqual([201, 2, Buffer.byteLength(JS_BOT)]);
    expect(await versionRows(botId)).toBe(2);
  });

  test("concurrent uploads get distinct consecutive versions", async () => {
    const id = (await h.call("POST", "/api/bots", { token: owner.token, body: { name: "racer" } })).body.botId;
    const answers = await Promise.all([upload(id, JS_BOT, { headers: JS }), upload(id, JS_BOT, { headers: JS }), upload(id, JS_BOT, { headers: JS })]);
    expect(answers.map((a) => a.status)).toEqual([201, 201, 201]);
    expect(answers.map((a) => a.body.version).sort()).toEqual([1, 2, 3]);
  });

  test("a stranger gets 403 and a missing bot 404, before any work; nothing stored", async () => {
    const before = await versionRows(botId);
    const foreign = await upload(botId, JS_BOT, { token: stranger.token, headers: JS });
    expect([foreign.status, foreign.body.error.code]).toEqual([403, "FORBIDDEN"]);
    const missing = await upload("bot_nope", JS_BOT, { headers: JS });
    expect([missing.status, missing.body.error.code]).toEqual([404, "NOT_FOUND"]);
    const anonymous = await h.call("PUT", `/api/bots/${botId}/code`, { rawBody: JS_BOT, headers: JS });
    expect(anonymous.status).toBe(401);
    expect(await versionRows(botId)).toBe(before);
  });

  test("wrong content type 415, too big 413 (declared or not), empty 400: nothing stored", async () => {
    const before = await versionRows(botId);
    const json = await upload(botId, JSON.stringify({ code: JS_BOT }), { headers: { "content-type": "application/json" } });
    expect([json.status, json.body.error.code]).toEqual([415, "UNSUPPORTED_MEDIA_TYPE"]);
    const big = `// ${"x".repeat(256 * 1024)}\n${JS_BOT}`;
    const declared = await upload(botId, big, { headers: { ...JS, "content-length": String(Buffer.byteLength(big)) } });
    expect([declared.status, declared.body.error.code]).toEqual([413, "PAYLOAD_TOO_LARGE"]);
    const streamed = await h.app.handle(
      new Request(`http://localhost/api/bots/${botId}/code`, {
        method: "PUT",
        headers: { ...JS, authorization: `Bearer ${owner.token}` },
        body: new Blob([big]).stream(),
      }),
    );
    expect(streamed.status).toBe(413);
    // Within 256 KiB the app's 64 KiB JSON cap does not apply to a bot file.
    const padded = `// ${"x".repeat(100 * 1024)}\n${JS_BOT}`;
    const roomy = await upload(botId, padded, { headers: { ...JS, "content-length": String(Buffer.byteLength(padded)) } });
    expect([roomy.status, roomy.body.version]).toEqual([201, before + 1]);
    const empty = await upload(botId, "   ", { headers: JS });
    expect([empty.status, empty.body.error.details.stage]).toEqual([400, "read"]);
    expect(await versionRows(botId)).toBe(before + 1);
  });

  test("a build error, no default bot, a smoke failure: 400 VALIDATION_ERROR with the stage and the error; nothing stored", async () => {
    const before = await versionRows(botId);
    const broken = await upload(botId, "export default defineBot({ decide( {");
    expect([broken.status, broken.body.error.code, broken.body.error.details.stage]).toEqual([400, "VALIDATION_ERROR", "build"]);
    expect(broken.body.error.details.errors.length).toBeGreaterThan(0);
    const none = await upload(botId, await fixture("no-default"));
    expect(none.body.error.details).toMatchObject({ stage: "load", error: expect.stringContaining("no default bot") });
    const loops = await upload(botId, await fixture("infinite-loop"));
    expect(loops.status).toBe(400);
    expect(loops.body.error.details).toMatchObject({ stage: "smoke", kind: "timeout" });
    expect(await versionRows(botId)).toBe(before);
  });

  test("a built-in takes no code (409), nor does a retired bot", async () => {
    const builtIn = (await h.call("POST", "/api/bots", { token: owner.token, body: { name: "house", strategy: "caller" } })).body.botId;
    const refused = await upload(builtIn, JS_BOT, { headers: JS });
    expect([refused.status, refused.body.error.code]).toEqual([409, "BUILT_IN_BOT"]);
    const retired = (await h.call("POST", "/api/bots", { token: owner.token, body: { name: "old-timer" } })).body.botId;
    expect((await h.call("DELETE", `/api/bots/${retired}`, { token: owner.token })).status).toBe(200);
    const late = await upload(retired, JS_BOT, { headers: JS });
    expect([late.status, late.body.error.code]).toEqual([409, "BOT_RETIRED"]);
    expect((await versionRows(builtIn)) + (await versionRows(retired))).toBe(0);
  });

  test("an Idempotency-Key replays the first answer and stores one version; another file under the same key is 422", async () => {
    const id = (await h.call("POST", "/api/bots", { token: owner.token, body: { name: "replayed" } })).body.botId;
    const headers = { ...JS, "idempotency-key": "upload-once" };
    const first = await upload(id, JS_BOT, { headers });
    const again = await upload(id, JS_BOT, { headers });
    expect([first.status, again.status, again.headers.get("idempotent-replayed")]).toEqual([201, 201, "true"]);
    expect(again.body).toEqual(first.body);
    const other = await upload(id, `${JS_BOT}// changed\n`, { headers });
    expect([other.status, other.body.error.code]).toEqual([422, "IDEMPOTENCY_KEY_REUSED"]);
    expect(await versionRows(id)).toBe(1);
  });
});

describe("versions and sources", () => {
  test("GET …/code lists versions newest first, the first current; GET …/code/:version is the file as uploaded, with its type", async () => {
    const total = await versionRows(botId);
    const list = await h.call("GET", `/api/bots/${botId}/code`, { token: owner.token });
    expect(list.status).toBe(200);
    expect(list.body.map((v: { version: number }) => v.version)).toEqual(Array.from({ length: total }, (_, i) => total - i));
    expect(list.body.map((v: { current: boolean }) => v.current)).toEqual(Array.from({ length: total }, (_, i) => i === 0));
    expect(list.body[total - 1]).toMatchObject({ version: 1, language: "ts", bytes: Buffer.byteLength(starter) });

    const one = await h.call("GET", `/api/bots/${botId}/code/1`, { token: owner.token });
    expect([one.status, one.body, one.headers.get("content-type")]).toEqual([200, starter, "text/typescript; charset=utf-8"]);
    const two = await h.call("GET", `/api/bots/${botId}/code/2`, { token: owner.token });
    expect([two.body, two.headers.get("content-type")]).toEqual([JS_BOT, "application/javascript; charset=utf-8"]);
    expect((await h.call("GET", `/api/bots/${botId}/code/${total + 1}`, { token: owner.token })).status).toBe(404);
    expect((await h.call("GET", `/api/bots/${botId}/code/zero`, { token: owner.token })).status).toBe(400);
  });

  test("pages: limit and the Link header's after", async () => {
    const first = await h.call("GET", `/api/bots/${botId}/code?limit=1`, { token: owner.token });
    expect(first.body).toHaveLength(1);
    const link = first.headers.get("link")!;
    expect(link).toContain(`after=${first.body[0].version}`);
    const next = await h.call("GET", link.slice(1, link.indexOf(">")), { token: owner.token });
    expect(next.body.map((v: { version: number; current: boolean }) => [v.version, v.current])).toEqual([[first.body[0].version - 1, false]]);
  });

  test("a stranger reads neither the versions nor a source (403), nor the logs", async () => {
    for (const path of [`/api/bots/${botId}/code`, `/api/bots/${botId}/code/1`, `/api/bots/${botId}/logs`]) {
      const answer = await h.call("GET", path, { token: stranger.token });
      expect([path, answer.status]).toEqual([path, 403]);
      expect(JSON.stringify(answer.body)).not.toContain("defineBot");
    }
  });
});

describe("the bot views", () => {
  test("GET /api/bots keeps the four fields and the house mark; GET /api/bots/:botId says hosted to anyone (public by design), and to its owner the version", async () => {
    const remote = (await h.call("POST", "/api/bots", { token: owner.token, body: { name: "still-remote" } })).body.botId;
    const total = await versionRows(botId);
    const list = await h.call("GET", "/api/bots");
    for (const bot of list.body) expect(Object.keys(bot).sort()).toEqual(["botId", "createdAt", "description", "house", "name"]);
    expect(list.body.length).toBeGreaterThanOrEqual(2);

    const anonymous = await h.call("GET", `/api/bots/${botId}`);
    expect(Object.keys(anonymous.body).sort()).toEqual(["botId", "createdAt", "description", "hosted", "house", "name"]);
    expect(anonymous.body.hosted).toBe(true);
    expect((await h.call("GET", `/api/bots/${remote}`)).body.hosted).toBe(false);
    const seenByStranger = await h.call("GET", `/api/bots/${botId}`, { token: stranger.token });
    expect(seenByStranger.body).toEqual(anonymous.body);
    const seenByOwner = await h.call("GET", `/api/bots/${botId}`, { token: owner.token });
    expect(seenByOwner.body).toEqual({ ...anonymous.body, strategy: null, codeVersion: total, connection: "hosted" });

    const mine = await h.call("GET", "/api/me/bots", { token: owner.token });
    const byId = new Map(mine.body.map((b: { botId: string }) => [b.botId, b]));
    expect(byId.get(botId)).toMatchObject({ hosted: true, codeVersion: total });
    expect(byId.get(remote)).toMatchObject({ hosted: false, codeVersion: null, strategy: null });
  });
});

describe("GET /api/bots/:botId/logs", () => {
  const at = (second: number) => new Date(Date.UTC(2030, 0, 1, 0, 0, second));

  test("the newest match by default, another with matchId, oldest line first, paged; other bots' lines never", async () => {
    const id = (await h.call("POST", "/api/bots", { token: owner.token, body: { name: "logger" } })).body.botId;
    const empty = await h.call("GET", `/api/bots/${id}/logs`, { token: owner.token });
    expect([empty.status, empty.body]).toEqual([200, []]);
    await h.database.db.insert(hostedLogs).values([
      { botId: id, matchId: "m_old", version: 1, handNumber: null, kind: "host", level: "info", message: "loaded", createdAt: at(0) },
      { botId: id, matchId: "m_old", version: 1, handNumber: 3, kind: "failure", failure: "timeout", level: "warn", message: "decision failed (timeout)", createdAt: at(1) },
      { botId: id, matchId: "m_new", version: 2, handNumber: 1, kind: "log", level: "info", message: "first", createdAt: at(2) },
      { botId: id, matchId: "m_new", version: 2, handNumber: 2, kind: "log", level: "info", message: "second", createdAt: at(3) },
      { botId: id, matchId: "m_new", version: 2, handNumber: 2, kind: "failure", failure: "illegal", level: "warn", message: "decision failed (illegal)", createdAt: at(4) },
      { botId: botId, matchId: "m_new", version: 1, handNumber: 1, kind: "log", level: "info", message: "not yours to read here", createdAt: at(5) },
    ]);
    const newest = await h.call("GET", `/api/bots/${id}/logs`, { token: owner.token });
    expect(newest.body.map((line: { message: string }) => line.message)).toEqual(["first", "second", "decision failed (illegal)"]);
    expect(newest.body[2]).toMatchObject({ matchId: "m_new", version: 2, handNumber: 2, kind: "failure", failure: "illegal", level: "warn", createdAt: at(4).toISOString() });

    const old = await h.call("GET", `/api/bots/${id}/logs?matchId=m_old`, { token: owner.token });
    expect(old.body.map((line: { kind: string; failure: string | null; handNumber: number | null }) => [line.kind, line.failure, line.handNumber])).toEqual([
      ["host", null, null],
      ["failure", "timeout", 3],
    ]);

    const page = await h.call("GET", `/api/bots/${id}/logs?limit=2`, { token: owner.token });
    expect(page.body.map((line: { message: string }) => line.message)).toEqual(["first", "second"]);
    const link = page.headers.get("link")!;
    expect(link).toContain("matchId=m_new");
    const rest = await h.call("GET", link.slice(1, link.indexOf(">")), { token: owner.token });
    expect(rest.body.map((line: { message: string }) => line.message)).toEqual(["decision failed (illegal)"]);
    expect(rest.headers.get("link")).toBeNull();

    expect((await h.call("GET", `/api/bots/${id}/logs?matchId=m_unknown`, { token: owner.token })).body).toEqual([]);
    expect((await h.call("GET", `/api/bots/${id}/logs?matchId=../etc`, { token: owner.token })).status).toBe(400);
  });
});
