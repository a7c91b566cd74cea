/** Hosted bots' routes (issue 27, docs/HOSTED.md): upload a bot file, list and read its versions, read its logs. Owner only. */
import { createHash } from "node:crypto";
import { Elysia, t } from "elysia";
import { errorResponses } from "../../lib/http";
import { PAGING_RULE, withNextLink } from "../../lib/paging";
import { authPlugin, type AuthOptions } from "../../plugins/auth";
import { IdempotencyHeaders, type IdempotencyKeys } from "../../plugins/idempotency";
import { CodeParams, CodeVersion, CodeVersionParams, CodeVersionsQuery, HostedLogEntry, LogsQuery, MAX_BUNDLED_BYTES, MAX_SOURCE_BYTES, SOURCE_MEDIA_TYPE, UnhostedBot, UploadedCode } from "./model";
import type { HostedCode } from "./service";

export { CODE_UPLOAD_BODY } from "./model";
export { HostedCode } from "./service";

const BOT_FILE_MEDIA = {
  "text/typescript": { schema: { type: "string" as const, description: "A bot file: `export default defineBot({ decide })` (examples/starter-bot.ts)" } },
  "application/javascript": { schema: { type: "string" as const, description: "The same, in JavaScript" } },
};

export function hostedModule(hosted: HostedCode, auth: AuthOptions, keys: IdempotencyKeys) {
  return new Elysia({ name: "module:hosted" })
    .use(authPlugin(auth))
    .put(
      "/api/bots/:botId/code",
      ({ developerId, params, body, request, headers, set }) => {
        const file = body instanceof Uint8Array ? body : new Uint8Array();
        const contentType = request.headers.get("content-type");
        // The replay store compares requests by a fingerprint of their body: the file's hash stands for it.
        const fingerprint = { sha256: createHash("sha256").update(file).digest("hex"), contentType };
        return keys.once({ developerId, request, body: fingerprint, headers, set }, async () => {
          const uploaded = await hosted.upload(developerId, params.botId, file, contentType);
          set.status = 201;
          return uploaded;
        });
      },
      {
        auth: true,
        params: CodeParams,
        headers: IdempotencyHeaders,
        response: { 201: UploadedCode, ...errorResponses(400, 401, 403, 404, 409, 413, 415, 422, 429) },
        detail: {
          tags: ["hosted"],
          summary: "Upload a hosted bot's file",
          description: `Owner only. The body is the bot file itself (Content-Type \`text/typescript\` or \`application/javascript\`, at most ${MAX_SOURCE_BYTES} bytes: beyond, 413 before more is read; another type, 415), the file you run locally (\`export default defineBot({ decide })\`, as examples/starter-bot.ts, unchanged). It is built with the SDK's pure parts into one script of at most ${MAX_BUNDLED_BYTES} bytes (beyond, 413 PAYLOAD_TOO_LARGE with \`details.stage\` build, \`bundledBytes\` and \`maxBundledBytes\`: a const enum member is copied to every use), loaded in the sandbox's validation worker (never one a table plays in) and played through a sample hand; any failure is 400 VALIDATION_ERROR with \`details.stage\` (read, build, load, smoke) and the build errors or the runtime error and the bot's log lines, and nothing is stored. Uploads are limited per developer (HOSTED_UPLOADS_PER_MINUTE: ${hosted.rules.uploads.policy.quota} every ${hosted.rules.uploads.policy.windowSeconds} s, bursts included, one budget for the cluster): beyond, 429 RATE_LIMITED with Retry-After, before any validation. Stored as the bot's next version (1, 2, …): from its first upload the bot is hosted (turned off by DELETE …/code, on again by the next upload), and each match plays the version current at its start. A remote socket of the bot open now is told at once (an \`error\` BOT_HOSTED; at its next connection, the \`welcome\`'s \`hosted\`). A bot keeps at most HOSTED_VERSIONS_PER_BOT (${hosted.rules.versionsPerBot}) versions: an upload past it deletes the oldest ones no match played; when the versions matches played fill the cap (each stays readable for its match's record), 409 TOO_MANY_VERSIONS. 409 BOT_RETIRED for a retired bot, BUILT_IN_BOT for a built-in. The source is kept as uploaded, readable only by its owner.`,
          requestBody: { required: true, content: BOT_FILE_MEDIA },
        },
      },
    )
    .delete(
      "/api/bots/:botId/code",
      ({ developerId, params, request, headers, set }) => keys.once({ developerId, request, headers, set }, () => hosted.unhost(developerId, params.botId)),
      {
        auth: true,
        params: CodeParams,
        headers: IdempotencyHeaders,
        response: { 200: UnhostedBot, ...errorResponses(400, 401, 403, 404, 409, 422) },
        detail: {
          tags: ["hosted"],
          summary: "Turn hosting off",
          description:
            "Owner only. The bot's uploaded code no longer plays it: a match starting from now seats it as a remote bot, which plays through its socket (`bun examples/starter-bot.ts --bot <name>`); a match in play keeps the version it began with, and every match keeps the version it played. The versions stay, readable by you (GET …/code); the next upload (PUT …/code) turns hosting on again. Again when already off: 200, the same. 409 BOT_NOT_HOSTED for a bot that never had code, BUILT_IN_BOT for a built-in, BOT_RETIRED for a retired bot.",
        },
      },
    )
    .get(
      "/api/bots/:botId/code",
      async ({ developerId, params, query, set }) => {
        const page = await hosted.versions(developerId, params.botId, query);
        return withNextLink(set, { items: page.items, next: page.next === null ? null : String(page.next) }, `/api/bots/${params.botId}/code`, (after) => ({ limit: query.limit, after }));
      },
      {
        auth: true,
        params: CodeParams,
        query: CodeVersionsQuery,
        response: { 200: t.Array(CodeVersion), ...errorResponses(400, 401, 403, 404) },
        detail: {
          tags: ["hosted"],
          summary: "A hosted bot's code versions",
          description: `Owner only (bot code is its author's secret). Newest first; \`current\` marks the version a match starting now plays. Empty for a bot never uploaded (not hosted). ${PAGING_RULE} The cursor is \`after\`, a version.`,
        },
      },
    )
    .get(
      "/api/bots/:botId/code/:version",
      async ({ developerId, params }) => {
        const version = await hosted.source(developerId, params.botId, params.version);
        return new Response(version.source, {
          headers: { "content-type": `${SOURCE_MEDIA_TYPE[version.language]}; charset=utf-8`, etag: `"${version.sha256}"`, "cache-control": "private, no-cache" },
        });
      },
      {
        auth: true,
        params: CodeVersionParams,
        response: { 200: t.String({ description: "The file as uploaded" }), ...errorResponses(400, 401, 403, 404) },
        detail: {
          tags: ["hosted"],
          summary: "A version's source",
          description: "Owner only. The file exactly as uploaded, with the media type it was uploaded as (`text/typescript` or `application/javascript`) and its SHA-256 as the ETag. 404 for a version the bot does not have.",
        },
      },
    )
    .get(
      "/api/bots/:botId/logs",
      async ({ developerId, params, query, set }) => {
        const { matchId, page } = await hosted.logs(developerId, params.botId, query);
        return withNextLink(set, page, `/api/bots/${params.botId}/logs`, (after) => ({ matchId: matchId ?? undefined, limit: query.limit, after }));
      },
      {
        auth: true,
        params: CodeParams,
        query: LogsQuery,
        response: { 200: t.Array(HostedLogEntry), ...errorResponses(400, 401, 403, 404) },
        detail: {
          tags: ["hosted"],
          summary: "What a hosted bot logged in a match",
          description: `Owner only. One match's lines, oldest first: the given \`matchId\`, else the newest match the bot logged in (empty when it never did). \`log\`: its \`console.log\` in the sandbox (capped per match, docs/HOSTED.md); \`failure\`: every decision or hook that failed (timeout, memory, stack, exception, illegal, crashed, disabled) with the hand number; \`host\`: the sandbox's notes (the fallback sent, folded after repeated failures). ${PAGING_RULE} The cursor is \`after\`, a line id; the next page names the match.`,
        },
      },
    );
}
