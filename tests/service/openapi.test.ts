/**
 * The OpenAPI document as tools read it: integers are integers, named components by $ref, every
 * response described, Redocly `recommended` and Spectral `spectral:oas` without errors, the types
 * openapi-typescript generates compile with arithmetic on money, and live responses match it (ajv).
 */
import { beforeAll, describe, expect, test, setDefaultTimeout } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createConfig, lintFromString } from "@redocly/openapi-core";
import { Spectral } from "@stoplight/spectral-core";
import { oas } from "@stoplight/spectral-rulesets";
import Ajv2020 from "ajv/dist/2020";
import addFormats from "ajv-formats";
import { type Harness, useHarness } from "../support/app";
import { ROOT } from "../support/process";

setDefaultTimeout(60_000);

let doc: any;
const h = useHarness("openapi_doc");
beforeAll(async () => {
  doc = (await h.call("GET", "/swagger/json")).body;
});

function walk(node: unknown, visit: (node: Record<string, any>, path: string) => void, path = "#"): void {
  if (Array.isArray(node)) node.forEach((n, i) => walk(n, visit, `${path}/${i}`));
  else if (node && typeof node === "object") {
    visit(node as Record<string, any>, path);
    for (const [key, value] of Object.entries(node)) walk(value, visit, `${path}/${key}`);
  }
}

describe("the document", () => {
  test("integers are integers: no anyOf of a string and an integer anywhere; no $id; every $ref resolves", () => {
    const problems: string[] = [];
    walk(doc, (node, path) => {
      if (Array.isArray(node.anyOf) && node.anyOf.some((s: any) => s.type === "string") && node.anyOf.some((s: any) => s.type === "integer" || s.type === "number")) problems.push(`${path}: anyOf string|integer`);
      if ("$id" in node) problems.push(`${path}: $id`);
      if (typeof node.$ref === "string" && !doc.components.schemas[node.$ref.replace("#/components/schemas/", "")]) problems.push(`${path}: dangling ${node.$ref}`);
    });
    expect(problems).toEqual([]);
    expect(doc.components.schemas.Balance.properties.balance.type).toBe("integer");
  });

  test("named components for every resource, referenced by $ref; nullable where the server sends null", () => {
    for (const name of ["Bot", "OwnedBot", "CreatedBot", "BotStats", "LeaderboardEntry", "Balance", "FaucetClaim", "Transaction", "Match", "MatchHands", "HandHistory", "Table", "Seat", "TableConfig", "Error", "RatingEntry"]) {
      expect(doc.components.schemas[name]?.type).toBe("object");
    }
    expect(doc.paths["/api/tables/{tableId}"].get.responses["200"].content["application/json"].schema).toEqual({ $ref: "#/components/schemas/Table" });
    expect(doc.components.schemas.Table.properties.seats.items).toEqual({ $ref: "#/components/schemas/Seat" });
    expect(JSON.stringify(doc.components.schemas.OwnedBot.properties.strategy)).toContain('"null"');
  });

  test("every operation: tagged with a declared tag, security stated (public: []), every response described", () => {
    const declared = new Set(doc.tags.map((t: { name: string }) => t.name));
    const problems: string[] = [];
    for (const [path, item] of Object.entries<any>(doc.paths))
      for (const [method, op] of Object.entries<any>(item)) {
        if (!Array.isArray(op.security)) problems.push(`${method} ${path}: no security`);
        for (const tag of op.tags ?? []) if (!declared.has(tag)) problems.push(`${method} ${path}: undeclared tag ${tag}`);
        for (const [status, response] of Object.entries<any>(op.responses))
          if (!response.description || /^Response for status/.test(response.description)) problems.push(`${method} ${path} ${status}: "${response.description}"`);
      }
    expect(problems).toEqual([]);
    expect(doc.paths["/api/stats"].get.security).toEqual([]);
    expect(doc.paths["/api/me/balance"].get.security).toEqual([{ bearerAuth: [] }]);
    expect(doc.paths["/api/tables/{tableId}/join"].post.responses["402"].description).toContain("INSUFFICIENT_BALANCE");
  });

  test("a realistic create-table example (no seed) that the service accepts; PHH documented as served; /swagger/ loads", async () => {
    const example = doc.paths["/api/tables"].post.requestBody.content["application/json"].example;
    expect(example).toEqual({ maxPlayers: 2, maxHands: 200, buyIn: 1000, smallBlind: 5, bigBlind: 10 });
    const { token } = await h.fundedDeveloper();
    expect((await h.call("POST", "/api/tables", { token, body: example })).status).toBe(201);
    expect(Object.keys(doc.paths["/api/matches/{id}/hands"].get.responses["200"].content)).toEqual(["application/json", "application/toml"]);
    const slash = await h.app.handle(new Request("http://localhost/swagger/"));
    expect([slash.status, slash.headers.get("location")]).toEqual([308, "http://localhost/swagger"]);
  });
});

describe("tools", () => {
  test("Redocly `recommended`: 0 errors", async () => {
    const config = await createConfig({ extends: ["recommended"] });
    const problems = await lintFromString({ source: JSON.stringify(doc), absoluteRef: "openapi.json", config });
    expect(problems.filter((p) => p.severity === "error").map((p) => `${p.ruleId}: ${p.message} at ${p.location?.[0]?.pointer}`)).toEqual([]);
  });

  test("Spectral `spectral:oas`: 0 errors", async () => {
    const spectral = new Spectral();
    spectral.setRuleset({ extends: [oas as any] } as any);
    const results = await spectral.run(JSON.stringify(doc));
    expect(results.filter((r) => r.severity === 0).map((r) => `${r.code}: ${r.message} at ${r.path.join(".")}`)).toEqual([]);
  });

  test("openapi-typescript's types (bun run openapi:types) compile with arithmetic on balance, netChips and chips (and fail on a string)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "openapi-ts-"));
    try {
      writeFileSync(join(dir, "openapi.json"), JSON.stringify(doc));
      const generated = Bun.spawnSync(["bun", "scripts/openapi-types.ts", join(dir, "openapi.json"), join(dir, "api.ts")], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
      expect(generated.stderr.toString()).toBe("");
      expect(generated.exitCode).toBe(0);
      const use = (extra: string) =>
        `import type { components } from "./api";\ntype S = components["schemas"];\ndeclare const balance: S["Balance"];\ndeclare const stats: S["BotStats"];\ndeclare const seat: S["Seat"];\nexport const total: number = balance.balance + 1 + stats.netChips * 2 + seat.chips - 3;\n${extra}\n`;
      const tsc = (file: string) => Bun.spawnSync([join(ROOT, "node_modules/.bin/tsc"), "--noEmit", "--strict", "--skipLibCheck", "--target", "es2022", "--moduleResolution", "bundler", "--module", "esnext", join(dir, file)], { cwd: dir, stdout: "pipe", stderr: "pipe" });
      writeFileSync(join(dir, "ok.ts"), use(""));
      const ok = tsc("ok.ts");
      expect(ok.stdout.toString() + ok.stderr.toString()).toBe("");
      expect(ok.exitCode).toBe(0);
      // The check can fail: a string where the document says integer does not compile.
      writeFileSync(join(dir, "bad.ts"), use(`export const wrong: string = balance.balance;`));
      expect(tsc("bad.ts").exitCode).not.toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("live responses against their documented schemas (ajv, draft 2020-12)", () => {
  test("20+ responses of every kind, errors included, all valid", async () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addSchema(doc, "openapi.json");
    const pointer = (s: string) => s.replaceAll("~", "~0").replaceAll("/", "~1");
    const checked: string[] = [];
    const problems: string[] = [];
    const check = async (method: string, template: string, path: string, options: Parameters<Harness["call"]>[2] = {}) => {
      const response = await h.call(method, path, options);
      const documented = doc.paths[template]?.[method.toLowerCase()]?.responses?.[String(response.status)];
      if (!documented) return void problems.push(`${method} ${path}: status ${response.status} is not documented`);
      const validate = ajv.getSchema(`openapi.json#/paths/${pointer(template)}/${method.toLowerCase()}/responses/${response.status}/content/application~1json/schema`);
      if (!validate) return void problems.push(`${method} ${path}: no JSON schema for ${response.status}`);
      if (!validate(response.body)) problems.push(`${method} ${path} ${response.status}: ${ajv.errorsText(validate.errors)}`);
      checked.push(`${method} ${template} ${response.status}`);
      return response.body;
    };
    const email = `ajv_${Math.random().toString(36).slice(2)}@example.com`;
    const { token } = await check("POST", "/api/auth/register", "/api/auth/register", { body: { email, password: "correct horse battery", name: "Ajv" } });
    await check("POST", "/api/auth/register", "/api/auth/register", { body: { email, password: "correct horse battery" } }); // 409
    await check("POST", "/api/auth/login", "/api/auth/login", { body: { email, password: "correct horse battery" } });
    await check("POST", "/api/auth/login", "/api/auth/login", { body: { email, password: "wrong password!" } }); // 401
    await check("GET", "/api/me", "/api/me", { token });
    await check("GET", "/api/me/balance", "/api/me/balance", { token });
    await check("POST", "/api/me/balance/faucet", "/api/me/balance/faucet", { token });
    await check("POST", "/api/me/balance/faucet", "/api/me/balance/faucet", { token }); // 429
    const remote = await check("POST", "/api/bots", "/api/bots", { token, body: { name: "ajv-remote" } });
    const house = await check("POST", "/api/bots", "/api/bots", { token, body: { name: "ajv-house", strategy: "caller" } });
    await check("POST", "/api/bots", "/api/bots", { token, body: { name: "ajv-remote" } }); // 409
    await check("GET", "/api/me/bots", "/api/me/bots", { token });
    await check("GET", "/api/bots", "/api/bots");
    await check("GET", "/api/bots/{botId}", `/api/bots/${remote.botId}`);
    await check("GET", "/api/bots/{botId}", "/api/bots/bot_nope"); // 404
    const table = await check("POST", "/api/tables", "/api/tables", { token, body: { maxPlayers: 3 } });
    await check("POST", "/api/tables", "/api/tables", { token, body: { maxPlayers: 99 } }); // 400
    await check("POST", "/api/tables/{tableId}/join", `/api/tables/${table.tableId}/join`, { token, body: { botId: house.botId } });
    await check("GET", "/api/tables", "/api/tables");
    await check("GET", "/api/tables/{tableId}", `/api/tables/${table.tableId}`);
    await check("POST", "/api/tables/{tableId}/leave", `/api/tables/${table.tableId}/leave`, { token, body: { botId: house.botId } });
    await check("GET", "/api/me/transactions", "/api/me/transactions", { token });
    await check("GET", "/api/matches", "/api/matches");
    await check("GET", "/api/stats/{botId}", `/api/stats/${house.botId}`);
    await check("GET", "/api/stats", "/api/stats");
    await check("GET", "/api/ratings", "/api/ratings");
    await check("GET", "/health", "/health");
    expect(problems).toEqual([]);
    expect(checked.length).toBeGreaterThanOrEqual(20);
  });
});
