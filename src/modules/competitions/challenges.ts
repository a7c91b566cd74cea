/**
 * Challenges (docs/COMPETITIONS.md): a match of your bot against another developer's bot whose
 * owner opted in, up to the buy-in that owner accepts. An ordinary heads-up table whose config says
 * `unrated`: each owner's buy-in is debited at its bot's seating and the stacks cashed out at the
 * end (the brief's flows); counted in statistics and the leaderboard; never rated.
 */
import { eq } from "drizzle-orm";
import type { Db } from "../../db";
import { challengeOffers } from "../../db/schema";
import type { Clock } from "../../lib/clock";
import { AppError, errors } from "../../lib/errors";
import { TABLE_DEFAULTS } from "../../config";
import { refuseIfRetired, type Bots } from "../bots/service";
import { houseBotsAmong } from "../bots/house";
import type { Tables } from "../tables/service";

export interface ChallengeOffer {
  botId: string;
  openToChallenges: boolean;
  /** The largest buy-in the owner accepts (null: not open). */
  maxBuyIn: number | null;
}

export interface ChallengeInput {
  botId: string;
  opponentBotId: string;
  hands: number;
  buyIn: number;
}

export interface Challenge {
  tableId: string;
  botId: string;
  opponentBotId: string;
  hands: number;
  buyIn: number;
  smallBlind: number;
  bigBlind: number;
  rated: false;
}

export class Challenges {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly bots: Bots,
    private readonly tables: Tables,
  ) {}

  /** PUT /api/bots/:botId/challenges: the owner opens (with the largest buy-in accepted) or closes the bot to challenges. */
  async setOffer(developerId: string, botId: string, offer: { openToChallenges: boolean; maxBuyIn?: number }): Promise<ChallengeOffer> {
    const bot = await this.bots.findOwned(developerId, botId);
    refuseIfRetired(bot);
    if (!offer.openToChallenges) {
      await this.db.delete(challengeOffers).where(eq(challengeOffers.botId, botId));
      return { botId, openToChallenges: false, maxBuyIn: null };
    }
    if (offer.maxBuyIn === undefined) throw errors.validation("maxBuyIn is required to open a bot to challenges", { field: "maxBuyIn" });
    if ((await houseBotsAmong(this.db, [botId])).has(botId)) throw houseRefusal();
    const row = { botId, maxBuyIn: offer.maxBuyIn, updatedAt: new Date(this.clock.now()) };
    await this.db.insert(challengeOffers).values(row).onConflictDoUpdate({ target: challengeOffers.botId, set: { maxBuyIn: row.maxBuyIn, updatedAt: row.updatedAt } });
    return { botId, openToChallenges: true, maxBuyIn: offer.maxBuyIn };
  }

  async offerOf(botId: string): Promise<ChallengeOffer> {
    await this.bots.find(botId);
    const [row] = await this.db.select().from(challengeOffers).where(eq(challengeOffers.botId, botId));
    return { botId, openToChallenges: row !== undefined, maxBuyIn: row?.maxBuyIn ?? null };
  }

  /**
   * POST /api/challenges. Every refusal comes before any money moves. Then the table, the
   * challenger's seat (its buy-in), the opponent's seat (its owner's buy-in): if the opponent's seat
   * is refused (its owner cannot pay, the bot sits elsewhere), the table is closed and the
   * challenger's buy-in refunded (a cashout), and the answer says why.
   */
  async challenge(developerId: string, input: ChallengeInput): Promise<Challenge> {
    const bot = await this.bots.findOwned(developerId, input.botId);
    refuseIfRetired(bot);
    const opponent = await this.bots.find(input.opponentBotId);
    refuseIfRetired(opponent);
    if (opponent.developerId === developerId) throw errors.validation("A challenge is against another developer's bot (play your own bots at a table of yours)", { field: "opponentBotId" });
    if ((await houseBotsAmong(this.db, [opponent.botId])).has(opponent.botId)) throw houseRefusal();
    const offer = await this.offerOf(opponent.botId);
    if (!offer.openToChallenges) throw errors.conflict("NOT_OPEN_TO_CHALLENGES", `${opponent.name} is not open to challenges (its owner opts in: PUT /api/bots/${opponent.botId}/challenges)`);
    if (input.buyIn > offer.maxBuyIn!) {
      throw errors.conflict("CHALLENGE_BUY_IN_TOO_HIGH", `${opponent.name} accepts challenges up to a buy-in of ${offer.maxBuyIn}`, { maxBuyIn: offer.maxBuyIn });
    }
    const { smallBlind, bigBlind } = TABLE_DEFAULTS;
    if (input.buyIn < bigBlind) throw errors.validation(`buyIn must be at least the big blind (${bigBlind})`, { field: "buyIn" });
    const tableId = await this.tables.createCompetitionTable(developerId, {
      buyIn: input.buyIn,
      smallBlind,
      bigBlind,
      maxPlayers: 2,
      maxHands: input.hands,
      actionTimeoutMs: TABLE_DEFAULTS.actionTimeoutMs,
      unrated: true,
    });
    try {
      await this.tables.joinVia(developerId, tableId, bot.botId);
    } catch (error) {
      await this.tables.closeVia(developerId, tableId);
      throw error;
    }
    try {
      await this.tables.joinVia(opponent.developerId, tableId, opponent.botId);
    } catch (error) {
      await this.tables.closeVia(developerId, tableId);
      if (error instanceof AppError && error.status < 500) {
        throw errors.conflict("OPPONENT_CANNOT_PLAY", `${opponent.name} cannot play now (${error.code}): nothing was charged`, { reason: error.code });
      }
      throw error;
    }
    return { tableId, botId: bot.botId, opponentBotId: opponent.botId, hands: input.hands, buyIn: input.buyIn, smallBlind, bigBlind, rated: false };
  }
}

function houseRefusal(): AppError {
  return errors.conflict("HOUSE_TAKES_NO_CHALLENGES", "The house's bots take no challenges (their bankroll is the ladder's)");
}
