import { t } from "elysia";
import { PAGE, pageLimit } from "../../lib/paging";
import { idString, oneOf, plainText, queryInteger } from "../../lib/http";

export { BUILT_IN_STRATEGIES, type BuiltInStrategy } from "../../db/schema";
import { BUILT_IN_STRATEGIES } from "../../db/schema";

export const BotId = idString({ examples: ["bot_01jx8m2k3n4p5q6r7s8t9v0w1x"] });

const API_KEY_ONCE =
  "pbk_…, shown once: the service keeps only its SHA-256. A replay of this request (same Idempotency-Key, `Idempotent-Replayed: true`) answers the same status and body with `apiKey: null`, since no key is stored anywhere; if the key is lost, rotate it (POST /api/bots/{botId}/rotate-key).";

/** The brief's Bot object: its four fields, and whether it is one of the ladder house's (issue 33: house bots are marked wherever bots are listed). */
export const Bot = t.Object(
  {
    botId: t.String(),
    name: t.String(),
    description: t.String(),
    createdAt: t.String({ format: "date-time" }),
    house: t.Boolean({ description: "One of the ladder house's bots (the service's own sparring partners, docs/LADDER.md): only the house takes their names" }),
  },
  { title: "Bot" },
);

/** One bot as anyone sees it (GET /api/bots/:botId): the four fields and whether the service runs its code. */
export const PublicBot = t.Object(
  {
    botId: t.String(),
    name: t.String(),
    description: t.String(),
    createdAt: t.String({ format: "date-time" }),
    hosted: t.Boolean({
      description:
        "true from the bot's first code upload (PUT /api/bots/{botId}/code) until its owner turns hosting off (DELETE /api/bots/{botId}/code): the service plays its file. Public by design (duplicate ladder matches, and the lobby's twin tables, pair hosted bots only); its code, versions and logs stay its owner's",
    }),
    house: t.Boolean({ description: "One of the ladder house's bots (the service's own sparring partners, docs/LADDER.md): only the house takes their names" }),
  },
  { title: "PublicBot" },
);

export const CreateBotBody = t.Object(
  {
    name: plainText({ minLength: 1, maxLength: 64, description: "Unique among the developer's bots" }),
    description: t.Optional(plainText({ maxLength: 500 })),
    strategy: t.Optional(
      oneOf([...BUILT_IN_STRATEGIES], {
        description: "Omit for a remote bot (connects over WebSocket). A built-in strategy is played by the service in process.",
      }),
    ),
  },
  { additionalProperties: false, title: "CreateBotRequest", examples: [{ name: "my-bot", description: "Raises its pairs" }] },
);

export const CreatedBot = t.Object(
  {
    botId: t.String(),
    name: t.String(),
    description: t.String(),
    createdAt: t.String({ format: "date-time" }),
    strategy: t.Union([oneOf([...BUILT_IN_STRATEGIES]), t.Null()]),
    apiKey: t.Union([t.String(), t.Null()], { description: `${API_KEY_ONCE} It is null for a built-in (\`strategy\`): the service plays it, it never connects` }),
  },
  { title: "CreatedBot" },
);

/** The owner's view of a bot: the brief's four fields plus how it plays. */
export const OwnedBot = t.Object(
  {
    botId: t.String(),
    name: t.String(),
    description: t.String(),
    createdAt: t.String({ format: "date-time" }),
    strategy: t.Union([oneOf(BUILT_IN_STRATEGIES), t.Null()], { description: "null: a remote or hosted bot" }),
    hosted: t.Boolean({ description: "true from the bot's first code upload (PUT /api/bots/{botId}/code) until hosting is turned off (DELETE /api/bots/{botId}/code): the service plays its file" }),
    codeVersion: t.Union([t.Integer({ minimum: 1 }), t.Null()], { description: "The hosted code's current version (a match starting now plays it); null when not hosted" }),
    house: t.Boolean({ description: "One of the ladder house's bots (the service's own sparring partners, docs/LADDER.md): only the house takes their names" }),
    connection: oneOf(["built-in", "hosted", "socket", "agent", "acpc", "offline"] as const, {
      description:
        "How the bot plays now (to its owner only): built-in (a strategy), hosted (its uploaded code), socket (a WebSocket connected to a node: docs/PROTOCOL.md), agent (an LLM agent calling /mcp: docs/INTEROP.md), acpc (an ACPC player on its TCP port: docs/INTEROP.md), offline (a remote bot connected nowhere: it times out at every turn)",
    }),
  },
  { title: "OwnedBot" },
);

export const OwnedBotsQuery = t.Object(
  { limit: t.Optional(pageLimit()), after: t.Optional(idString({ description: "Continue after this botId (the cursor of the `Link` rel=next header)" })) },
  { additionalProperties: false },
);

export const RetiredBot = t.Object(
  { botId: t.String(), retiredAt: t.String({ format: "date-time", description: "When it was retired (the first time, if asked again)" }) },
  { title: "RetiredBot" },
);

export const RotatedKey = t.Object(
  { botId: t.String(), apiKey: t.Union([t.String(), t.Null()], { description: `The new key; the old one stops working. ${API_KEY_ONCE}` }) },
  { title: "RotatedKey" },
);

export const BotParams = t.Object({ botId: BotId });


export const BotListQuery = t.Object(
  {
    // No default: without parameters the answer is the brief's whole list.
    limit: t.Optional(queryInteger("limit", { minimum: 1, maximum: PAGE.max, description: `Bots per page: ${PAGE.default} when only \`after\` or \`offset\` is given, at most ${PAGE.max}` })),
    offset: t.Optional(queryInteger("offset", { minimum: 0, maximum: 1_000_000_000 })),
    after: t.Optional(idString({ description: "Continue after this botId (the cursor of the `Link` rel=next header)" })),
  },
  { additionalProperties: false },
);
