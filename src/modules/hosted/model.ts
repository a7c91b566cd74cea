/** The hosted-bot routes' shapes (issue 27): uploaded code versions and what the bots logged. */
import { t } from "elysia";
import { idString, oneOf, queryInteger, type RawBodyRoute } from "../../lib/http";
import { pageLimit } from "../../lib/paging";
import { MAX_BUNDLED_BYTES, MAX_SOURCE_BYTES } from "./upload";

export { MAX_BUNDLED_BYTES, MAX_SOURCE_BYTES };

const BotId = idString({ examples: ["bot_01jx8m2k3n4p5q6r7s8t9v0w1x"] });
const VERSION_MAX = 2 ** 31 - 1;

/** The media type a version is served back with, by the language it was uploaded as. */
export const SOURCE_MEDIA_TYPE = { ts: "text/typescript", js: "application/javascript" } as const;

/** PUT /api/bots/:botId/code takes the file itself as its body, up to 256 KiB (not JSON, not the app's 64 KiB cap). */
export const CODE_UPLOAD_BODY: RawBodyRoute = { method: "PUT", path: /^\/api\/bots\/[A-Za-z0-9_]+\/code$/, maxBytes: MAX_SOURCE_BYTES };

export const CodeParams = t.Object({ botId: BotId });
export const CodeVersionParams = t.Object({
  botId: BotId,
  version: queryInteger("version", { minimum: 1, maximum: VERSION_MAX, description: "A version number from GET /api/bots/{botId}/code" }),
});

export const UploadedCode = t.Object(
  {
    botId: t.String(),
    version: t.Integer({ minimum: 1, description: "1 for the first upload, then one more each time; the highest is the current one" }),
    sha256: t.String({ description: "SHA-256 (hex) of the file as uploaded" }),
    bytes: t.Integer({ minimum: 1 }),
    createdAt: t.String({ format: "date-time" }),
  },
  { title: "UploadedCode" },
);

export const UnhostedBot = t.Object(
  {
    botId: t.String(),
    hosted: t.Literal(false),
    unhostedAt: t.String({ format: "date-time", description: "When hosting was turned off (the first time, if asked again)" }),
    versions: t.Integer({ minimum: 1, description: "Versions kept (GET /api/bots/{botId}/code): the next upload, a new version, turns hosting on again" }),
  },
  { title: "UnhostedBot" },
);

export const CodeVersion = t.Object(
  {
    version: t.Integer({ minimum: 1 }),
    sha256: t.String(),
    bytes: t.Integer({ minimum: 1 }),
    language: oneOf(["ts", "js"], { description: "What it was uploaded as (text/typescript or application/javascript): GET …/code/{version} serves it back so" }),
    createdAt: t.String({ format: "date-time" }),
    current: t.Boolean({ description: "The version a match starting now plays (the highest); none while hosting is off (DELETE /api/bots/{botId}/code)" }),
  },
  { title: "CodeVersion" },
);

export const CodeVersionsQuery = t.Object(
  {
    limit: t.Optional(pageLimit()),
    after: t.Optional(queryInteger("after", { minimum: 1, maximum: VERSION_MAX, description: "Continue below this version (the cursor of the `Link` rel=next header)" })),
  },
  { additionalProperties: false },
);

export const HostedLogEntry = t.Object(
  {
    id: t.Integer({ description: "Increasing: the order the lines were written in" }),
    matchId: t.String(),
    version: t.Integer({ minimum: 1, description: "The code version that ran" }),
    handNumber: t.Union([t.Integer(), t.Null()], { description: "null: before the first hand (loading the bot)" }),
    kind: oneOf(["log", "failure", "host"], { description: "`log`: the bot's console; `failure`: a decision or hook that failed (see `failure`); `host`: the sandbox's own note" }),
    failure: t.Union([t.String(), t.Null()], { description: "For `failure`: timeout, memory, stack, exception, illegal, crashed or disabled" }),
    level: t.Union([t.String(), t.Null()], { description: "debug, info, warn or error" }),
    message: t.String(),
    createdAt: t.String({ format: "date-time" }),
  },
  { title: "HostedLogEntry" },
);

export const LogsQuery = t.Object(
  {
    matchId: t.Optional(idString({ description: "The match to read (default: the newest match the bot logged in)" })),
    limit: t.Optional(pageLimit()),
    after: t.Optional(queryInteger("after", { minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: "Continue after this line id (the cursor of the `Link` rel=next header)" })),
  },
  { additionalProperties: false },
);
