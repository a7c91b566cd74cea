import { t } from "elysia";
import { rankedListQuery } from "../../lib/paging";
import { BotId } from "../bots/model";

export const RatingEntry = t.Object(
  {
    botId: t.String(),
    mu: t.Number({ description: "OpenSkill (Weng–Lin, Plackett–Luce) mean skill; prior 25" }),
    sigma: t.Number({ description: "Uncertainty of mu; prior 25/3, shrinks with every match" }),
    rating: t.Number({ description: "mu − 3·sigma: the conservative estimate the list is sorted by" }),
    matchesPlayed: t.Integer({ description: "Rated matches (unseeded, with bots of at least two developers)" }),
    handsPlayed: t.Integer({ description: "Hands in rated matches" }),
    bbPer100: t.Number({ description: "Win rate: big blinds won per 100 hands (mean of per-hand results × 100)" }),
    bbPer100Ci95: t.Union([t.Array(t.Number(), { minItems: 2, maxItems: 2 }), t.Null()], {
      description: "95 % confidence interval of bbPer100: mean ± 1.96·sd/√n, × 100 (null below two hands)",
    }),
  },
  { title: "RatingEntry" },
);

export const RatingParams = t.Object({ botId: BotId });
export const RatingsQuery = rankedListQuery(1_000_000);
