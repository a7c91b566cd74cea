import { t } from "elysia";
import { idString, oneOf, queryInteger } from "../../lib/http";
import { pageLimit } from "../../lib/paging";

/** The brief's Match object, exactly these fields. */
export const Match = t.Object(
  {
    matchId: t.String(),
    config: t.Object({ buyIn: t.Integer(), smallBlind: t.Integer(), bigBlind: t.Integer(), maxPlayers: t.Integer() }),
    players: t.Array(t.Object({ botId: t.String(), finalChips: t.Integer(), profit: t.Integer({ description: "finalChips − buyIn" }) })),
    winners: t.Array(
      t.Object({ botId: t.String(), amount: t.Integer({ description: "The winner's profit" }) }),
      { description: "The bots that finished with the most chips (several on a tie)" },
    ),
    handsPlayed: t.Integer(),
    duration: t.Integer({ description: "Milliseconds from start to end" }),
    startedAt: t.String({ format: "date-time" }),
    endedAt: t.String({ format: "date-time" }),
  },
  { title: "Match" },
);

export const MatchParams = t.Object({ id: idString() });

export const MatchListQuery = t.Object(
  {
    limit: t.Optional(pageLimit()),
    before: t.Optional(idString({ description: "A matchId: only matches that ended before it (the cursor of the `Link` rel=next header)" })),
    botId: t.Optional(idString({ description: "Only matches this bot played" })),
  },
  { additionalProperties: false },
);

/** Hands per page: JSON pages are built in memory, PHH pages are streamed (so may be longer). */
export const HANDS_PAGE = { json: { default: 200, max: 1_000 }, phh: { default: 10_000, max: 10_000 } } as const;

export const HandsQuery = t.Object(
  {
    format: t.Optional(oneOf(["json", "phh"] as const, { description: "json (default) or phh: PHH text (TOML), one table per hand" })),
    limit: t.Optional(
      queryInteger("limit", {
        minimum: 1,
        maximum: HANDS_PAGE.phh.max,
        description: `Hands per page. JSON: default ${HANDS_PAGE.json.default}, at most ${HANDS_PAGE.json.max}. PHH: default and at most ${HANDS_PAGE.phh.max}`,
      }),
    ),
    after: t.Optional(
      queryInteger("after", { minimum: 0, maximum: 1_000_000_000, description: "Cursor: only hands numbered above this (the last hand number of the previous page)" }),
    ),
  },
  { additionalProperties: false },
);

export const HandHistory = t.Object(
  {
    handNumber: t.Integer(),
    button: t.Integer({ description: "Seat of the button" }),
    smallBlind: t.Integer(),
    bigBlind: t.Integer(),
    players: t.Array(t.Object({ seat: t.Integer(), botId: t.String(), startingStack: t.Integer(), finalStack: t.Integer() })),
    board: t.Array(t.String()),
    events: t.Array(t.Record(t.String(), t.Unknown()), {
      description: "Every event in order: ante, blind, hole_cards (per seat), action, street, uncalled_returned, show, muck, pot_awarded, hand_finished. Cards as strings (\"As\"); a hole_cards event of a hand the reader may not see has `cards: null`.",
    }),
    pots: t.Array(t.Object({ amount: t.Integer(), eligible: t.Array(t.Integer()), winners: t.Array(t.Integer()), shares: t.Array(t.Integer()) })),
  },
  { title: "HandHistory" },
);

export const MatchHands = t.Object({
  matchId: t.String(),
  seeded: t.Boolean({ description: "Dealt from a seed: never counted toward statistics, the leaderboard or ratings" }),
  voidedHands: t.Array(t.Integer(), {
    description: "Hand numbers voided when the match resumed after its host died: dealt perhaps, never recorded, never dealt again; the histories skip them",
  }),
  hands: t.Array(HandHistory),
}, { title: "MatchHands" });

export const Fairness = t.Object(
  {
    matchId: t.String(),
    deckCommitment: t.String({ description: "Lowercase hex SHA-256 of the secret's bytes, published at match start" }),
    deckSecret: t.String({ description: "The 256-bit secret, lowercase hex" }),
    algorithm: t.String({ description: "How each hand's deck derives from (secret, hand number): see docs/FAIRNESS.md" }),
    handsPlayed: t.Integer({ description: "Hands recorded: GET /api/matches/{matchId}/hands pages through every one" }),
    voidedHands: t.Array(t.Integer(), {
      description:
        "Hand numbers voided when the match resumed after its host died: dealt perhaps, never recorded, never dealt again (their decks derive from the secret like any other). Every number up to the last hand is either recorded or listed here.",
    }),
    twinMatchId: t.Union([t.String(), t.Null()], {
      description:
        "A copy of a duplicate match: the other copy's match, which committed to the same secret (its hand n deals this match's hand-n deck, the seats swapped); null for any other match",
    }),
    round: t.Union(
      [
        t.Object({ tournamentId: t.String(), round: t.Integer(), matchIds: t.Array(t.String(), { description: "Every match of the round (both copies of each pair): each committed to this same secret" }) }),
        t.Null(),
      ],
      { description: "A hosted round robin's match: every match of its round dealt from this one secret, committed before the round and revealed after its last match (docs/FAIRNESS.md, \"Rounds\"); null for any other match" },
    ),
  },
  { title: "Fairness" },
);
