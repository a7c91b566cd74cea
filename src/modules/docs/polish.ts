/**
 * The OpenAPI document as the plugin generates it, made accurate for the tools that read it:
 * - integers typed as integers (the plugin writes `anyOf: [string (format integer), integer]` for
 *   every t.Integer, elysiajs/elysia-openapi#287, which turns `balance` into `string | number`);
 * - every titled object schema a named component, referenced by `$ref` (Table, Seat, Bot, …);
 * - no `$id` on Error (it breaks every `$ref` to it in Swagger UI's resolver);
 * - every response described (errors by their codes), public operations with `security: []`,
 *   request bodies with a realistic example, the PHH page and a hosted bot's source documented
 *   with their media types.
 */
import { ERROR_DESCRIPTIONS } from "../../lib/http";

type Json = Record<string, any>;

const isIntegerAsString = (s: Json) => s && s.type === "string" && (s.format === "integer" || s.format === "numeric");
const isNumber = (s: Json) => s && (s.type === "integer" || s.type === "number");

/**
 * Schema fixes everywhere: `anyOf: [string-as-integer, integer]` → the integer schema (keeping the
 * outer description and bounds); Elysia's `noValidate` marker dropped; null allowed in nullable enums.
 */
function fixSchemas(node: any): any {
  if (Array.isArray(node)) return node.map(fixSchemas);
  if (!node || typeof node !== "object") return node;
  const out: Json = {};
  // `noValidate` is Elysia's own marker (t.NoValidate), not JSON Schema.
  for (const [key, value] of Object.entries(node)) if (key !== "noValidate") out[key] = fixSchemas(value);
  // A nullable enum (`type: [string, null]`) must list null among its values, or null is refused.
  if (Array.isArray(out.type) && out.type.includes("null") && Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
  const variants = out.anyOf;
  if (Array.isArray(variants) && variants.length === 2 && variants.some(isIntegerAsString) && variants.some(isNumber)) {
    const { anyOf: _anyOf, default: _default, ...rest } = out;
    return { ...variants.find(isNumber), ...rest };
  }
  return out;
}

/** Moves every titled object schema into components.schemas and refers to it there. */
function namedComponents(doc: Json): void {
  const components: Json = (doc.components.schemas ??= {});
  const hoist = (node: any, inside: string | null): any => {
    if (Array.isArray(node)) return node.map((n) => hoist(n, inside));
    if (!node || typeof node !== "object") return node;
    const out: Json = {};
    for (const [key, value] of Object.entries(node)) out[key] = hoist(value, inside);
    if (typeof out.title === "string" && out.type === "object" && out.title !== inside) {
      const name = out.title.replace(/[^A-Za-z0-9]/g, "");
      const known = components[name];
      if (known && JSON.stringify(known) !== JSON.stringify(out)) throw new Error(`OpenAPI: two different schemas are both titled ${name}`);
      components[name] = out;
      return { $ref: `#/components/schemas/${name}` };
    }
    return out;
  };
  doc.paths = hoist(doc.paths, null);
  for (const [name, schema] of Object.entries({ ...components })) components[name] = hoist(schema, name);
}

const PHH_MEDIA = {
  "application/toml": {
    schema: { type: "string", description: "With `?format=phh`: PHH (TOML) text, one table per hand ([1], [2], …)" },
    example: '[1]\nvariant = "NT"\nantes = [ 0, 0 ]\nblinds_or_straddles = [ 5, 10 ]\nmin_bet = 10\nstarting_stacks = [ 1000, 1000 ]\nactions = [ "d dh p1 ????", "d dh p2 ????", "p2 f" ]\n',
  },
};

/** A hosted bot's source is served as it was uploaded (GET /api/bots/{botId}/code/{version}). */
const BOT_SOURCE_MEDIA = {
  "text/typescript": { schema: { type: "string", description: "The file as uploaded, when it was uploaded as TypeScript" } },
  "application/javascript": { schema: { type: "string", description: "The file as uploaded, when it was uploaded as JavaScript" } },
};

/** Routes under the shared per-IP budget: every answer carries the IETF RateLimit fields. */
const RATE_LIMITED_PATHS = new Set(["/api/auth/register", "/api/auth/login"]);
const RETRY_AFTER = { "Retry-After": { description: "Seconds to wait before trying again", schema: { type: "integer", minimum: 1 } } };
const RATE_LIMIT_FIELDS = {
  "RateLimit-Policy": { description: 'The budget: `"auth";q=<attempts>;w=<seconds>` (AUTH_RATE_LIMIT_PER_MINUTE per 60 s per client address)', schema: { type: "string" } },
  RateLimit: { description: 'What is left of it: `"auth";r=<remaining>;t=<seconds until full>`', schema: { type: "string" } },
};

const NEXT_LINK = {
  Link: { description: 'Present when more items follow: `<path?…&cursor>; rel="next"` (RFC 8288), the next page; absent on the last page', schema: { type: "string" } },
};
const REPLAYED = {
  "Idempotent-Replayed": { description: "`true` when this is the stored answer to an earlier request with the same Idempotency-Key", schema: { type: "string", enum: ["true"] } },
};
const takesIdempotencyKey = (operation: Json) => (operation.parameters ?? []).some((p: Json) => p.in === "header" && p.name === "idempotency-key");
const isPaged = (operation: Json) => (operation.parameters ?? []).some((p: Json) => p.in === "query" && p.name === "limit");

function describeOperations(doc: Json): void {
  for (const [path, item] of Object.entries<Json>(doc.paths)) {
    for (const operation of Object.values<Json>(item)) {
      if (!operation || typeof operation !== "object" || !operation.responses) continue;
      operation.security ??= [];
      for (const [status, response] of Object.entries<Json>(operation.responses)) {
        const schema = response.content?.["application/json"]?.schema;
        if (response.description && !/^Response for status/.test(response.description)) continue;
        const code = Number(status);
        if (code >= 400) response.description = schema?.description ?? ERROR_DESCRIPTIONS[code] ?? `Error (${status})`;
        else response.description = operation.summary ?? "OK";
        if (schema?.$ref && schema.description) delete schema.description;
        if (code === 429 || code === 503) response.headers = { ...response.headers, ...RETRY_AFTER };
        if (RATE_LIMITED_PATHS.has(path)) response.headers = { ...response.headers, ...RATE_LIMIT_FIELDS };
        if (code === 200 && isPaged(operation)) response.headers = { ...response.headers, ...NEXT_LINK };
        if (takesIdempotencyKey(operation)) response.headers = { ...response.headers, ...REPLAYED };
      }
      const body = operation.requestBody?.content?.["application/json"];
      const example = body?.schema?.$ref ? doc.components.schemas[body.schema.$ref.split("/").pop()]?.examples?.[0] : body?.schema?.examples?.[0];
      if (body && example !== undefined) body.example = example;
      if (path === "/api/matches/{id}/hands") Object.assign(operation.responses["200"].content, PHH_MEDIA);
      if (path === "/api/bots/{botId}/code/{version}" && operation.responses["200"]) operation.responses["200"].content = BOT_SOURCE_MEDIA;
    }
  }
}

/** A new, accurate document (the input is the plugin's cached object: never changed). */
export function polishOpenApi(generated: Json): Json {
  const doc = fixSchemas(structuredClone(generated));
  if (doc.components?.schemas?.Error) delete doc.components.schemas.Error.$id;
  namedComponents(doc);
  describeOperations(doc);
  return doc;
}
