import { and, eq, isNull, sql } from "drizzle-orm";
import { queryRows, type Db, type Queryable } from "../../db";
import { bots, developers, LADDER_FORMATS, type BuiltInStrategy } from "../../db/schema";
import type { Clock } from "../../lib/clock";
import { AppError } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { HOUSE_EMAIL, houseRoster } from "../bots/house";
import type { Bots } from "../bots/service";
import { LADDER_SEATS } from "./availability";

export { HOUSE_EMAIL };

/** How far back the house's daily limit looks: a rolling day. */
export const HOUSE_LIMIT_WINDOW_MS = 86_400_000;

/**
 * The house: an ordinary developer in the ledger that owns enough built-in bots to fill every
 * format beside one newcomer (five: a six-max table is a newcomer and five of the house's), the
 * LADDER_HOUSE_BOTS strategies in turn (bots/house.ts names them), each entered in every format,
 * so a newcomer's first bot has rated opponents at once. Its credits come only from the faucet
 * (the matchmaker claims it when it may); when it cannot pay its entries pause like anyone's. It
 * also creates the ladder's tables. Made once, idempotently (two matchmakers in a row, or a
 * restart, find what is there; an older house with fewer bots gets the ones it lacks).
 */
export async function ensureHouse(db: Db, botsService: Bots, clock: Clock, strategies: BuiltInStrategy[]): Promise<string> {
  const secret = await Bun.password.hash(crypto.randomUUID(), { algorithm: "argon2id", memoryCost: 256, timeCost: 1 });
  await db
    .insert(developers)
    .values({ id: newId("dev", clock.now()), email: HOUSE_EMAIL, name: "house", passwordHash: secret, createdAt: new Date(clock.now()) })
    .onConflictDoNothing();
  const [house] = await db.select({ id: developers.id }).from(developers).where(eq(developers.email, HOUSE_EMAIL));
  for (const { name, strategy } of houseRoster(strategies, Math.max(...Object.values(LADDER_SEATS)) - 1)) {
    const find = () => db.select({ id: bots.id }).from(bots).where(and(eq(bots.developerId, house.id), eq(bots.name, name), isNull(bots.retiredAt)));
    let [bot] = await find();
    if (!bot) {
      const description = `The house's ${strategy} built-in, on the ladder for everyone to meet`;
      // Two makers at once (the first entry and the matchmaker's round): the second finds the first's bot.
      const created = await botsService.create(house.id, { name, description, strategy }, { asHouse: true }).catch((error) => {
        if (error instanceof AppError && error.code === "BOT_NAME_TAKEN") return null;
        throw error;
      });
      bot = created ? { id: created.botId } : (await find())[0];
    }
    for (const format of LADDER_FORMATS) {
      await queryRows(db, sql`insert into ladder_entries (bot_id, format, developer_id, entered_at) values (${bot.id}, ${format}, ${house.id}, now()) on conflict do nothing`);
    }
  }
  return house.id;
}

/** The house's developer id, once it exists (null before the first entry made it). */
export async function houseId(db: Queryable): Promise<string | null> {
  const [row] = await queryRows<{ id: string }>(db, sql`select id from developers where email = ${HOUSE_EMAIL}`);
  return row?.id ?? null;
}

/** A developer whose bots won the house's daily limit: paired with the house's bots again from `until`. */
export interface HouseLimitReached {
  /** Net chips its bots won in ladder matches with the house's bots over the last 24 h. */
  won: number;
  until: Date;
}

/**
 * The house's bankroll lasts because no developer may take more than `limit` chips from it a day:
 * each developer's net result in the ladder matches at which a house bot sat, over the rolling 24 h
 * before `now` (in six-max that is the whole match's net, whoever else sat there). Those at or past
 * the limit are not paired with the house's bots until enough of those matches have aged out of
 * the window (`until`). `developerId`: only that developer (its entries' view). 0: no limit.
 * A player's developer is its bot's (match_players no longer stores it: issue 35).
 */
export async function houseLimitsReached(db: Queryable, house: string, now: Date, limit: number, developerId?: string): Promise<Map<string, HouseLimitReached>> {
  if (limit <= 0) return new Map();
  const since = new Date(now.getTime() - HOUSE_LIMIT_WINDOW_MS);
  const houseSat = sql`exists (select 1 from match_players h join bots hb on hb.id = h.bot_id where h.match_id = m.id and hb.developer_id = ${house})`;
  const rows = await queryRows<{ developer_id: string; ended_at: Date | string; profit: string | number }>(
    db,
    developerId === undefined
      ? // The window's ladder matches first (the listing index), then their players once: a plan driven
        // from the house's bots instead reads every match the house ever played (measured: 1.1 s over
        // a week of 20,000 house matches a day, against 0.33 s so; docs/LADDER.md).
        sql`with recent as materialized (
              select m.id, m.ended_at from matches m
              where m.status = 'completed' and m.ended_at > ${since.toISOString()}::timestamptz
                and exists (select 1 from tables t where t.id = m.table_id and t.ladder is not null)
            ), players as materialized (
              select r.id, r.ended_at, ob.developer_id, o.profit from recent r join match_players o on o.match_id = r.id join bots ob on ob.id = o.bot_id
            )
            select p.developer_id, p.ended_at, sum(p.profit)::bigint as profit from players p
            where p.developer_id <> ${house} and p.id in (select id from players where developer_id = ${house})
            group by p.developer_id, p.id, p.ended_at order by p.ended_at`
      : // The redundant filter on the joined owner keeps the planner on this developer's bots' index
        // (without it, it drives from the house's bots: 20× slower on a day of 20,000 house matches).
        sql`select ob.developer_id, m.ended_at, sum(o.profit)::bigint as profit from match_players o join bots ob on ob.id = o.bot_id join matches m on m.id = o.match_id
            where o.bot_id in (select id from bots where developer_id = ${developerId}) and ob.developer_id = ${developerId}
              and m.status = 'completed' and m.ended_at > ${since.toISOString()}::timestamptz and ${houseSat}
              and exists (select 1 from tables t where t.id = m.table_id and t.ladder is not null)
            group by ob.developer_id, m.id, m.ended_at order by m.ended_at`,
  );
  const byDeveloper = new Map<string, Array<{ at: number; profit: number }>>();
  for (const row of rows) {
    const list = byDeveloper.get(row.developer_id) ?? [];
    list.push({ at: new Date(row.ended_at).getTime(), profit: Number(row.profit) });
    byDeveloper.set(row.developer_id, list);
  }
  const reached = new Map<string, HouseLimitReached>();
  for (const [developer, matches] of byDeveloper) {
    const until = limitLiftsAt(matches, limit);
    if (until !== null) reached.set(developer, { won: matches.reduce((sum, m) => sum + m.profit, 0), until: new Date(until) });
  }
  return reached;
}

/**
 * When a developer who won at least `limit` over the window (matches oldest first) falls below it
 * again with no new match: the moment enough of its oldest matches have left the window. Null when
 * below the limit now.
 */
export function limitLiftsAt(matches: Array<{ at: number; profit: number }>, limit: number): number | null {
  let remaining = matches.reduce((sum, m) => sum + m.profit, 0);
  if (remaining < limit) return null;
  for (const match of matches) {
    remaining -= match.profit;
    if (remaining < limit) return match.at + HOUSE_LIMIT_WINDOW_MS;
  }
  return matches.at(-1)!.at + HOUSE_LIMIT_WINDOW_MS;
}
