import { Type } from "@sinclair/typebox";
import { Elysia, t, type TSchema } from "elysia";
import { AppError, errorBody, type ErrorCode } from "./errors";
import { jsonNestingExceeds, MAX_JSON_DEPTH } from "./json-depth";
import { UNSEEN_CHARACTERS } from "./unseen-characters";

/** SPEC §8 error body, for OpenAPI. */
export const ErrorResponse = t.Object(
  {
    error: t.Object({
      code: t.String({ description: "SCREAMING_SNAKE error code", examples: ["VALIDATION_ERROR"] }),
      message: t.String({ description: "For humans" }),
      details: t.Optional(t.Unknown({ description: "Machine-readable specifics, e.g. the invalid field" })),
    }),
  },
  { $id: "#/components/schemas/Error", title: "Error", additionalProperties: true },
);

export const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: "VALIDATION_ERROR: a field is missing, extra, of the wrong type or out of range (details name it), or the JSON is malformed or nests deeper than 32 levels",
  401: "UNAUTHORIZED: missing, malformed, forged or expired token / credentials",
  402: "INSUFFICIENT_BALANCE: the developer's balance does not cover the amount",
  403: "FORBIDDEN: the resource belongs to another developer",
  404: "NOT_FOUND: the resource does not exist",
  405: "METHOD_NOT_ALLOWED: the path exists but not with this method (the Allow header lists those it takes)",
  409: "CONFLICT (or a specific code such as EMAIL_TAKEN, BOT_NAME_TAKEN, BOT_ALREADY_SEATED, BOT_SEATED, BOT_RETIRED, TABLE_FULL, TABLE_NOT_WAITING, IDEMPOTENCY_KEY_IN_USE)",
  408: "REQUEST_TIMEOUT: the request body did not arrive within BODY_TIMEOUT_MS (the connection is closed)",
  413: "PAYLOAD_TOO_LARGE: the request body exceeds the limit",
  422: "IDEMPOTENCY_KEY_REUSED: this Idempotency-Key was used with a different request (method, path or body)",
  415: "UNSUPPORTED_MEDIA_TYPE: request bodies must be application/json (a hosted bot's file: application/javascript or text/typescript), uncompressed (no Content-Encoding)",
  429: "FAUCET_COOLDOWN or RATE_LIMITED; see the Retry-After header",
  500: "INTERNAL: unexpected failure (no internals are revealed)",
  503: "TABLE_HOST_UNAVAILABLE: the node hosting the table does not answer (a live node takes its tables over within seconds), SERVICE_BUSY: too many such requests at once on this node, or DATABASE_UNAVAILABLE: this node cannot reach its database now (another node may); see the Retry-After header",
};

/** Response map entries for the error statuses a route can answer, each with the §8 body. */
export function errorResponses(...statuses: number[]): Record<number, TSchema> {
  const entries: Record<number, TSchema> = {};
  for (const status of statuses) {
    entries[status] = t.Ref("#/components/schemas/Error", { description: ERROR_DESCRIPTIONS[status] }) as TSchema;
  }
  return entries;
}

/**
 * One of a fixed set of strings. (Elysia's t.UnionEnum, when optional, gets its first value
 * filled in as a default: an omitted field must stay omitted, so we use literals.)
 */
export function oneOf<const T extends readonly string[]>(values: T, options: { description?: string } = {}) {
  const literals = values.map((value) => t.Literal(value)) as unknown as [ReturnType<typeof t.Literal<T[number]>>];
  return t.Union(literals, options);
}

/**
 * An opaque id (`bot_…`, `tbl_…`, `m_…`, `tx_…`) in a path or query: letters, digits and `_`
 * only, so nothing odd (NUL bytes, traversal, quotes) ever reaches the database.
 */
export function idString(options: { description?: string; examples?: string[] } = {}) {
  return t.String({ minLength: 1, maxLength: 64, pattern: "^[A-Za-z0-9_]+$", ...options });
}

/**
 * Text a user writes that others will read (bot names, descriptions): no C0/C1 control
 * characters, no bidirectional controls and no invisible characters (UNSEEN_CHARACTERS). An
 * escape sequence in a bot name would clear, retitle or rewrite another developer's terminal
 * through the CLI, U+202E (right-to-left override) would spoof names on the pages, and a
 * zero-width joiner would make a second name look like the first.
 */
export const PLAIN_TEXT_PATTERN = `^[^\\u0000-\\u001F\\u007F-\\u009F${UNSEEN_CHARACTERS}]*$`;

export function plainText(options: { minLength?: number; maxLength: number; description?: string; examples?: string[] }) {
  const rule =
    "no control characters (C0, C1), bidirectional controls (U+061C, U+200E/F, U+202A–E, U+2066–9) nor invisible characters (U+200B–D, U+2028/9, U+2060–4, U+FEFF)";
  return t.String({ ...options, pattern: PLAIN_TEXT_PATTERN, description: options.description ? `${options.description}; ${rule}` : rule });
}

/**
 * An integer in a JSON body: strict. (Elysia's t.Integer also takes numeric strings such as
 * "1000"; a JSON field of the wrong type must be a 400, so bodies use TypeBox's own.)
 */
export function bodyInteger(options: { minimum: number; maximum: number; description?: string }) {
  return Type.Integer(options);
}

/**
 * An integer in a query string. Elysia reports a coerced query value that is out of range
 * without its path, so the field name travels in the schema's title.
 */
export function queryInteger(name: string, options: { minimum: number; maximum: number; default?: number; description?: string }) {
  return t.Integer({ ...options, title: name });
}

type ValueError = { path?: string; message?: string; summary?: string; type?: number };

/** TypeBox's ValueErrorType.String: Elysia's summary for it ends in "but found: <the value>". */
const STRING_EXPECTED = 54;

/** What we tell the client about one validation error: never the value itself. */
function describe(e: ValueError): string | undefined {
  if (e.message?.includes(PLAIN_TEXT_PATTERN)) return "contains a control character, a bidirectional control or an invisible character, which text others read may not carry";
  return e.type === STRING_EXPECTED ? e.message : (e.summary ?? e.message);
}

export function validationDetails(error: unknown): { field: string; message: string; errors?: unknown[] } {
  const all = ((error as { all?: ValueError[] }).all ?? []).slice(0, 10);
  const first = all[0];
  const titled = (error as { validator?: { title?: unknown } }).validator?.title;
  const field =
    (first?.path ?? "").replace(/^\//, "").replaceAll("/", ".") || (typeof titled === "string" ? titled : "(body)");
  return {
    field,
    message: (first && describe(first)) ?? "Invalid value",
    errors: all.map((e) => ({ field: (e.path ?? "").replace(/^\//, "").replaceAll("/", ".") || "(body)", message: describe(e) })),
  };
}

export function payloadTooLarge(maxBodyBytes: number): AppError {
  return new AppError(413, "PAYLOAD_TOO_LARGE", `Request bodies are limited to ${maxBodyBytes} bytes`);
}

/*
 * Bodies are JSON only, and bounded (a raw-body route, below, has its own type and cap). Without a
 * Content-Length (chunked) the size is checked as it is read; the server's own maxRequestBodySize
 * stops the read itself. Bounded in time too: a body not whole within BODY_TIMEOUT_MS of its
 * request is answered 408 (withinBodyDeadline).
 */

/** How long a request body may take to arrive, and what reads it. */
export interface BodyLimits {
  maxBytes: number;
  timeoutMs: number;
}

/**
 * A body that trickles in (headers, then a byte a second) would hold its request, and a handler's
 * worth of memory, for as long as its declared length takes: Bun's idleTimeout never fires while
 * bytes keep coming. Past `timeoutMs` the request is answered 408 REQUEST_TIMEOUT with
 * `Connection: close`, so the server closes the socket once the answer is written (a client that
 * no longer reads it loses only the answer).
 */
async function withinBodyDeadline<T>(read: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new AppError(408, "REQUEST_TIMEOUT", `The request body did not arrive within ${timeoutMs} ms`, { timeoutMs }, { connection: "close" })),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([read, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Whether a body declares its length (within the cap: beyond, a 413 before anything is read). A
 * body with a declared length is exactly that long and is read whole, without a stream reader
 * (about 30 µs a request under the ledger benchmark's load).
 */
function declaresLength(request: Request, maxBodyBytes: number): boolean {
  const declared = request.headers.get("content-length");
  if (declared === null || !/^\d+$/.test(declared)) return false;
  if (Number(declared) > maxBodyBytes) throw payloadTooLarge(maxBodyBytes);
  return true;
}

/** A body without a declared length (chunked), read no further than `maxBodyBytes`: beyond, a 413. */
async function streamCapped(body: ReadableStream<Uint8Array>, maxBodyBytes: number): Promise<Buffer> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBodyBytes) {
      await reader.cancel().catch(() => {});
      throw payloadTooLarge(maxBodyBytes);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, size);
}

async function readTextCapped(request: Request, limits: BodyLimits): Promise<string> {
  if (!request.body) return "";
  if (declaresLength(request, limits.maxBytes)) return withinBodyDeadline(request.text(), limits.timeoutMs);
  return (await withinBodyDeadline(streamCapped(request.body, limits.maxBytes), limits.timeoutMs)).toString("utf8");
}

async function readBytesCapped(request: Request, limits: BodyLimits): Promise<Uint8Array> {
  if (!request.body) return new Uint8Array();
  if (declaresLength(request, limits.maxBytes)) return new Uint8Array(await withinBodyDeadline(request.arrayBuffer(), limits.timeoutMs));
  return withinBodyDeadline(streamCapped(request.body, limits.maxBytes), limits.timeoutMs);
}

/**
 * A route whose body is not JSON but a file taken as it is (a hosted bot's source), with its own
 * size cap: the app's request hook checks a declared length against it before anything is read,
 * and its parse hook hands the route the raw bytes, read no further than the cap.
 */
export interface RawBodyRoute {
  method: string;
  path: RegExp;
  maxBytes: number;
}

export function rawBodyRouteOf(request: Request, routes: readonly RawBodyRoute[]): RawBodyRoute | undefined {
  if (request.method === "GET" || request.method === "HEAD") return undefined;
  const candidates = routes.filter((route) => route.method === request.method);
  if (candidates.length === 0) return undefined;
  const path = new URL(request.url).pathname;
  return candidates.find((route) => route.path.test(path));
}

/** The raw body of a RawBodyRoute: at most its cap (413 beyond, read no further), within the body deadline (408 past it). */
export function readRawBody(request: Request, route: RawBodyRoute, timeoutMs: number): Promise<Uint8Array> {
  return readBytesCapped(request, { maxBytes: route.maxBytes, timeoutMs });
}

/**
 * Request bodies are read as they come: a compressed one (Content-Encoding: gzip, br, …) would be
 * parsed as its raw bytes. Refused up front with a 415 naming the encoding, before anything runs.
 */
export function refuseContentEncoding(request: Request): void {
  const encoding = request.headers.get("content-encoding")?.trim();
  if (!encoding || encoding.toLowerCase() === "identity") return;
  const named = encoding.slice(0, 40).replace(/[^\x21-\x7e ]/g, "?");
  throw new AppError(415, "UNSUPPORTED_MEDIA_TYPE", `Content-Encoding "${named}" is not accepted: send the request body uncompressed`, { header: "Content-Encoding", encoding: named });
}

export async function readJsonBody(request: Request, contentType: string, limits: BodyLimits): Promise<unknown> {
  const text = await readTextCapped(request, limits);
  // Postgres text cannot hold NUL: refuse it here rather than fail deep in a query.
  if (/\\u0000|\u0000/.test(text)) {
    throw new AppError(400, "VALIDATION_ERROR", "NUL characters are not accepted", { field: "(body)" });
  }
  // An empty body (e.g. POST /api/me/balance/faucet) needs no content type; route schemas decide.
  if (text.trim() === "") return "";
  if (!/^application\/json\s*(;|$)/i.test(contentType)) {
    throw new AppError(415, "UNSUPPORTED_MEDIA_TYPE", "Request bodies must be JSON (Content-Type: application/json)");
  }
  if (jsonNestingExceeds(text, MAX_JSON_DEPTH)) {
    throw new AppError(400, "VALIDATION_ERROR", `The request body nests too deep (more than ${MAX_JSON_DEPTH} levels of arrays/objects)`, {
      field: "(body)",
      maxDepth: MAX_JSON_DEPTH,
    });
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new AppError(400, "VALIDATION_ERROR", "The request body is not valid JSON", { field: "(body)" });
  }
}

/**
 * The pages' own forms (outside /api, which stays JSON only): an urlencoded body, bounded like a
 * JSON one, as FormData. A multipart form (a file) comes through a RawBodyRoute and its own cap.
 */
export async function readFormBody(request: Request, limits: BodyLimits): Promise<FormData> {
  const text = await readTextCapped(request, limits);
  const form = new FormData();
  for (const [key, value] of new URLSearchParams(text)) {
    // Postgres text cannot hold NUL (%00 once decoded).
    if (value.includes("\u0000")) throw new AppError(400, "VALIDATION_ERROR", "NUL characters are not accepted", { field: key });
    form.append(key, value);
  }
  return form;
}

export const isPageForm = (request: Request, contentType: string) =>
  /^application\/x-www-form-urlencoded\s*(;|$)/i.test(contentType) && !new URL(request.url).pathname.startsWith("/api/");

export function jsonError(status: number, code: ErrorCode, message: string, details?: unknown, headers?: Record<string, string>) {
  return new Response(JSON.stringify(errorBody(code, message, details)), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}

/** 86_400_000 → "24 h", 90_000 → "90 s": a duration for the OpenAPI text, from the config's milliseconds. */
export function humanDuration(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000} h`;
  if (ms % 60_000 === 0) return `${ms / 60_000} min`;
  return ms % 1_000 === 0 ? `${ms / 1_000} s` : `${ms} ms`;
}
