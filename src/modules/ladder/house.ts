import { and, eq, isNull, sql } from "drizzle-orm";
import { queryRows, type Db } from "../../db";
import { bots, developers, LADDER_FORMATS, type BuiltInStrategy } from "../../db/schema";
import type { Clock } from "../../lib/clock";
import { newId } from "../../lib/ids";
import type { Bots } from "../bots/service";

/** The house's address: no mailbox; the account cannot be logged into (its password is a random secret never kept). */
export const HOUSE_EMAIL = "house@ladder.invalid";

/**
 * The house: an ordinary developer in the ledger that owns one built-in bot per LADDER_HOUSE_BOTS
 * strategy, each entered in every format, so a newcomer's first bot has rated opponents at once.
 * Its credits come only from the faucet (the matchmaker claims it when it may); when it cannot pay
 * its entries pause like anyone's. It also creates the ladder's tables. Made once, idempotently
 * (two matchmakers in a row, or a restart, find what is there).
 */
export async function ensureHouse(db: Db, botsService: Bots, clock: Clock, strategies: BuiltInStrategy[]): Promise<string> {
  const secret = await Bun.password.hash(crypto.randomUUID(), { algorithm: "argon2id", memoryCost: 256, timeCost: 1 });
  await db
    .insert(developers)
    .values({ id: newId("dev", clock.now()), email: HOUSE_EMAIL, name: "house", passwordHash: secret, createdAt: new Date(clock.now()) })
    .onConflictDoNothing();
  const [house] = await db.select({ id: developers.id }).from(developers).where(eq(developers.email, HOUSE_EMAIL));
  for (const strategy of strategies) {
    const name = `house-${strategy}`;
    let [bot] = await db.select({ id: bots.id }).from(bots).where(and(eq(bots.developerId, house.id), eq(bots.name, name), isNull(bots.retiredAt)));
    if (!bot) bot = { id: (await botsService.create(house.id, { name, description: `The house's ${strategy} built-in, on the ladder for everyone to meet`, strategy })).botId };
    for (const format of LADDER_FORMATS) {
      await queryRows(db, sql`insert into ladder_entries (bot_id, format, developer_id, entered_at) values (${bot.id}, ${format}, ${house.id}, now()) on conflict do nothing`);
    }
  }
  return house.id;
}
