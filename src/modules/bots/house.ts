/**
 * The house's bots as every feature sees them (docs/LADDER.md, "The house"): who the house is, the
 * names its bots take, and which bots are its. The ladder makes the house (ladder/house.ts); lists
 * mark its bots `house: true`; a developer cannot take one of its names, so nobody's bot passes for
 * the house's in a list or on a page.
 */
import { sql } from "drizzle-orm";
import { queryRows, type Queryable } from "../../db";
import { BUILT_IN_STRATEGIES, type BuiltInStrategy } from "../../db/schema";

/** The house's address: no mailbox; the account cannot be logged into (its password is a random secret never kept). */
export const HOUSE_EMAIL = "house@ladder.invalid";

/** A bot the house owns: a built-in strategy under a name of the house's. */
export interface HouseBot {
  name: string;
  strategy: BuiltInStrategy;
}

/**
 * The house's bots: `count` of them, the strategies taken in turn (random, caller, tight, raiser,
 * random, …). The first of a strategy is `house-<strategy>`, the next `house-<strategy>-2`, and so
 * on: distinct bots, each a built-in that knows nothing of the others.
 */
export function houseRoster(strategies: readonly BuiltInStrategy[], count: number): HouseBot[] {
  if (strategies.length === 0) return [];
  const seen = new Map<BuiltInStrategy, number>();
  return Array.from({ length: Math.max(count, strategies.length) }, (_, i) => {
    const strategy = strategies[i % strategies.length];
    const n = (seen.get(strategy) ?? 0) + 1;
    seen.set(strategy, n);
    return { name: n === 1 ? `house-${strategy}` : `house-${strategy}-${n}`, strategy };
  });
}

const HOUSE_NAME = new RegExp(`^house-(${BUILT_IN_STRATEGIES.join("|")})(-\\d+)?$`, "i");

/** A name only the house's bots take (in any case): `house-<strategy>` or `house-<strategy>-<n>`. */
export function isHouseBotName(name: string): boolean {
  return HOUSE_NAME.test(name.trim());
}

/** Of these bots, the house's. */
export async function houseBotsAmong(db: Queryable, botIds: string[]): Promise<Set<string>> {
  if (botIds.length === 0) return new Set();
  const rows = await queryRows<{ id: string }>(
    db,
    sql`select b.id from bots b join developers d on d.id = b.developer_id where d.email = ${HOUSE_EMAIL} and b.id = any(${sql.param([...new Set(botIds)])}::text[])`,
  );
  return new Set(rows.map((row) => row.id));
}
