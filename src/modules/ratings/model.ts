import { t } from "elysia";
import { rankedListQuery } from "../../lib/paging";
import { BotId } from "../bots/model";

const interval = (description: string) => t.Union([t.Array(t.Number(), { minItems: 2, maxItems: 2 }), t.Null()], { description });

/** The win rate, raw and adjusted, each with its 95 % interval (skill.ts `winRate`): shared by the ratings and the ladder standings. */
export const WIN_RATE_FIELDS = {
  bbPer100: t.Number({ description: "Win rate as the chips say: big blinds won per 100 rated hands (mean of per-hand results × 100)" }),
  estimator: t.String({
    description:
      "Which estimator produced bbPer100Adjusted (docs/RATINGS.md, Estimators): aivat-2 (all-in adjusted, chance corrected at the deal, flop, turn and river — the cards' luck scaled by the stack-to-pot ratio too — and the reference's baseline on the same deals taken out), aivat-1 (aivat-2 without the deal's luck and the depth term: matches rated before aivat-2), chance-1 (all-in adjusted, turn and river luck only: matches recorded without a deck secret, or rated before issue 36), baseline-1 (aivat-1 without the flop), or mixed (matches rated by more than one, until `bun run ratings:rebuild`).",
  }),
  bbPer100Ci95: interval("95 % confidence interval of bbPer100: mean ± 1.96·sd/√n, × 100 (null below two hands)"),
  bbPer100Adjusted: t.Number({
    description: "Win rate with the measurable luck taken out (docs/RATINGS.md), by the estimator named in `estimator`: per 100 rated hands, each hand's result all-in adjusted (pots contested all in before the river credited by exact equity), chance corrected (turn and river luck removed) and, with aivat-2, the flop's luck, the deal's luck (the hole cards' equity against the others'), the depth of the cards' luck (scaled by the stack-to-pot ratio) and a quarter of the baseline removed too (a fixed reference bot replaying the same deal in every rotation of the hole cards). Same expectation as bbPer100, narrower interval; an expectation in big blinds, never chips paid. Applied a moment after the match is recorded.",
  }),
  bbPer100AdjustedCi95: interval("95 % confidence interval of bbPer100Adjusted, same formula as bbPer100Ci95 over the adjusted per-hand results (null below two hands)"),
};

export const RatingEntry = t.Object(
  {
    botId: t.String(),
    mu: t.Number({ description: "OpenSkill (Weng–Lin, Plackett–Luce) mean skill; prior 25" }),
    sigma: t.Number({ description: "Uncertainty of mu; prior 25/3, shrinks with every match" }),
    rating: t.Number({ description: "mu − 3·sigma: the conservative estimate the list is sorted by" }),
    matchesPlayed: t.Integer({ description: "Rated matches (unseeded, with bots of at least two developers)" }),
    handsPlayed: t.Integer({ description: "Hands in rated matches" }),
    ...WIN_RATE_FIELDS,
  },
  { title: "RatingEntry" },
);

export const RatingParams = t.Object({ botId: BotId });
export const RatingsQuery = rankedListQuery(1_000_000);
