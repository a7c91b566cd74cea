import { t } from "elysia";
import { rankedListQuery } from "../../lib/paging";
import { BotId } from "../bots/model";

/** The brief's Bot statistics object. */
export const BotStatistics = t.Object(
  {
    botId: t.String(),
    matchesPlayed: t.Integer(),
    matchesWon: t.Integer({ description: "Matches in which the bot finished with the most chips (ties count for each)" }),
    handsPlayed: t.Integer(),
    handsWon: t.Integer({ description: "Hands in which the bot won a pot (or a share of one)" }),
    totalBuyIns: t.Integer(),
    totalWinnings: t.Integer({ description: "Sum of all cashouts" }),
    netChips: t.Integer({ description: "totalWinnings − totalBuyIns" }),
    biggestWin: t.Integer({ description: "Largest single-match profit; 0 before any win" }),
    biggestLoss: t.Integer({ description: "Largest single-match loss as a negative number; 0 before any loss" }),
    lastPlayed: t.Union([t.String({ format: "date-time" }), t.Null()], { description: "End of the last match; null before any" }),
  },
  { title: "BotStats" },
);

/** The brief's Leaderboard entry. */
export const LeaderboardEntry = t.Object(
  { botId: t.String(), netChips: t.Integer(), matchesPlayed: t.Integer() },
  { title: "LeaderboardEntry" },
);

export const StatsParams = t.Object({ botId: BotId });
export const LeaderboardQuery = rankedListQuery(1_000_000_000);
