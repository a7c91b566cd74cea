import { t } from "elysia";
import { idString, oneOf, queryInteger } from "../../lib/http";

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
    limit: t.Optional(queryInteger("limit", { minimum: 1, maximum: 200, default: 50, description: "Default 50, at most 200" })),
    before: t.Optional(idString({ description: "A matchId: only matches that ended before it (cursor)" })),
    botId: t.Optional(idString({ description: "Only matches this bot played" })),
  },
  { additionalProperties: false },
);

export const HandsQuery = t.Object(
  { format: t.Optional(oneOf(["json", "phh"] as const, { description: "json (default) or phh: PHH text (TOML), one table per hand" })) },
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
      description: "Every event in order: ante, blind, hole_cards (per seat), action, street, uncalled_returned, show, muck, pot_awarded, hand_finished. Cards as strings (\"As\").",
    }),
    pots: t.Array(t.Object({ amount: t.Integer(), eligible: t.Array(t.Integer()), winners: t.Array(t.Integer()), shares: t.Array(t.Integer()) })),
  },
  { title: "HandHistory" },
);

export const MatchHands = t.Object({ matchId: t.String(), hands: t.Array(HandHistory) });
