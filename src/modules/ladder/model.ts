import { t, type Static } from "elysia";
import { LADDER_FORMATS } from "../../db/schema";
import { oneOf } from "../../lib/http";
import { pageLimit, rankCursor } from "../../lib/paging";
import { BotId } from "../bots/model";
import { WIN_RATE_FIELDS } from "../ratings/model";

export { LADDER_SEATS } from "./availability";

const Format = oneOf(LADDER_FORMATS, { description: "heads-up (2 seats) or six-max (6 seats); default heads-up" });

export const EnterBody = t.Object({ botId: BotId, format: t.Optional(Format) }, { additionalProperties: false });
export const FormatQuery = t.Object({ format: t.Optional(Format) }, { additionalProperties: false });
export const EntryParams = t.Object({ botId: BotId });
export const StandingsQuery = t.Object(
  { format: t.Optional(Format), limit: t.Optional(pageLimit()), after: t.Optional(rankCursor.schema("Cursor: continue after this entry (from the `Link` rel=next header)")) },
  { additionalProperties: false },
);

const REASONS = ["NO_OPPONENT", "INSUFFICIENT_BALANCE", "BOT_OFFLINE", "BOT_RETIRED", "HOSTED_SEAT_LIMIT"] as const;
const ENTRY_STATUSES = ["active", "paused", "left"] as const;

export const LadderEntry = t.Object(
  {
    botId: t.String(),
    format: oneOf(LADDER_FORMATS),
    status: oneOf(ENTRY_STATUSES, {
      description: "active: plays rated matches whenever opponents are free (see reason); paused: see reason; left: taken off the ladder (DELETE), its record kept; entering again brings it back",
    }),
    reason: t.Union([oneOf(REASONS), t.Null()], {
      description:
        "Why the entry does not play now, and what changes it: NO_OPPONENT (active and free, but fewer bots it may meet are free than a table needs: see opponentsAvailable and houseUnavailable; it plays as soon as enough are), INSUFFICIENT_BALANCE (your balance is below the ladder's buy-in: claim the faucet), BOT_OFFLINE (a remote bot not connected to any node: connect it), BOT_RETIRED (the bot is retired), HOSTED_SEAT_LIMIT (a hosted bot, while your hosted bots hold MAX_HOSTED_SEATS_PER_DEVELOPER seats: it plays when one of their matches ends); null when it plays or is about to (seated, or opponents are free) and when it left",
    }),
    opponentsAvailable: t.Integer({
      minimum: 0,
      description: "How many bots it may meet are free now, counted as the seats they could fill beside it: one per other developer with a free entry in the format, each free house bot (unless houseUnavailable). A table needs 1 (heads-up) or 5 (six-max)",
    }),
    houseUnavailable: t.Union(
      [
        t.Object(
          {
            reason: oneOf(["HOUSE_OUT_OF_CREDITS", "HOUSE_DAILY_LIMIT"] as const, {
              description: "HOUSE_OUT_OF_CREDITS: the house's balance is below the buy-in (it pays again at its next faucet claim, or sooner if its bots at tables win chips back); HOUSE_DAILY_LIMIT: your bots have won LADDER_HOUSE_DAILY_LIMIT or more from the house's bots in the last 24 h (docs/LADDER.md)",
            }),
            until: t.String({ format: "date-time", description: "When the house's bots meet this entry again (at the latest, for HOUSE_OUT_OF_CREDITS)" }),
            won: t.Union([t.Integer(), t.Null()], { description: "HOUSE_DAILY_LIMIT: your net winnings in ladder matches with the house over the last 24 h; otherwise null" }),
          },
          { title: "HouseUnavailable" },
        ),
        t.Null(),
      ],
      { description: "For an active entry that the house's bots will not meet now, why and until when; null otherwise" },
    ),
    enteredAt: t.String({ format: "date-time", description: "When it entered (again, after a leave)" }),
    matchesPlayed: t.Integer({ description: "Ladder matches of this format the bot completed" }),
  },
  { title: "LadderEntry" },
);

export const LadderStanding = t.Object(
  {
    botId: t.String(),
    name: t.String(),
    house: t.Boolean({ description: "One of the ladder house's bots (built-ins the service enters so that a newcomer always has opponents)" }),
    status: oneOf(ENTRY_STATUSES, { description: "active, paused (why is its owner's: GET /api/me/ladder), or left (taken off the ladder; its record stays)" }),
    reason: t.Union([oneOf(REASONS), t.Null()], {
      description: "Public for the house's entries only (the service's own account): why one does not play (NO_OPPONENT, INSUFFICIENT_BALANCE); always null for a developer's entry, whose reasons are its owner's",
    }),
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
