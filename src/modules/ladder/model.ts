import { t, type Static } from "elysia";
import { LADDER_FORMATS } from "../../db/schema";
import { oneOf } from "../../lib/http";
import { pageLimit, rankCursor } from "../../lib/paging";
import { BotId } from "../bots/model";
import { WIN_RATE_FIELDS } from "../ratings/model";

const Format = oneOf(LADDER_FORMATS, { description: "heads-up (2 seats) or six-max (6 seats); default heads-up" });

export const EnterBody = t.Object({ botId: BotId, format: t.Optional(Format) }, { additionalProperties: false });
export const FormatQuery = t.Object({ format: t.Optional(Format) }, { additionalProperties: false });
export const EntryParams = t.Object({ botId: BotId });
export const StandingsQuery = t.Object(
  { format: t.Optional(Format), limit: t.Optional(pageLimit()), after: t.Optional(rankCursor.schema("Cursor: continue after this entry (from the `Link` rel=next header)")) },
  { additionalProperties: false },
);

export const LadderEntry = t.Object(
  {
    botId: t.String(),
    format: oneOf(LADDER_FORMATS),
    status: oneOf(["active", "paused"] as const, { description: "active: plays rated matches whenever an opponent is free; paused: see reason" }),
    reason: t.Union([oneOf(["INSUFFICIENT_BALANCE", "BOT_OFFLINE", "BOT_RETIRED"] as const), t.Null()], {
      description:
        "Why a paused entry does not play, and what resumes it by itself: INSUFFICIENT_BALANCE (your balance is below the ladder's buy-in: claim the faucet), BOT_OFFLINE (a remote bot not connected to any node: connect it), BOT_RETIRED (the bot is retired); null when active",
    }),
    enteredAt: t.String({ format: "date-time" }),
    matchesPlayed: t.Integer({ description: "Ladder matches of this format the bot completed" }),
  },
  { title: "LadderEntry" },
);

export const LadderStanding = t.Object(
  {
    botId: t.String(),
    name: t.String(),
    rating: t.Number({ description: "mu − 3·sigma (the bot's OpenSkill rating, every rated match counted): the order of the standings" }),
    mu: t.Number(),
    sigma: t.Number(),
    matchesPlayed: t.Integer({ description: "Ladder matches of this format completed" }),
    duplicateMatches: t.Integer({
      description:
        "Of matchesPlayed, the duplicate matches (both bots hosted, heads-up): each a pair of matches at twin tables, the second dealing the first's decks with the seats swapped, counted once here and rated once, on both copies' hands; their hands count in bbPer100 like any other",
    }),
    handsPlayed: t.Integer({ description: "Hands in rated matches" }),
    ...WIN_RATE_FIELDS,
  },
  { title: "LadderStanding" },
);

/** A row of GET /api/ladder (the web page and the CLI read it). */
export type LadderStandingRow = Static<typeof LadderStanding>;
