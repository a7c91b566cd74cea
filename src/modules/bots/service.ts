import { asc, eq, inArray, sql } from "drizzle-orm";
import { queryRows, type Db } from "../../db";
import { bots } from "../../db/schema";
import type { Clock } from "../../lib/clock";
import { errors } from "../../lib/errors";
import { newId, newSecret, sha256Hex } from "../../lib/ids";
import { BOT_PAGE_MAX, type BuiltInStrategy } from "./model";
import { BotDirectory, type BotPage } from "./directory";

export interface BotView {
  botId: string;
  name: string;
  description: string;
  createdAt: string;
}

export interface BotRecord extends BotView {
  developerId: string;
  strategy: BuiltInStrategy | null;
}

function toRecord(row: typeof bots.$inferSelect): BotRecord {
  return {
    botId: row.id,
    developerId: row.developerId,
    name: row.name,
    description: row.description,
    createdAt: row.createdAt.toISOString(),
    strategy: row.strategy as BuiltInStrategy | null,
  };
}

export function toBotView(record: BotRecord): BotView {
  return { botId: record.botId, name: record.name, description: record.description, createdAt: record.createdAt };
}

/** Api keys are 256-bit random secrets, so a plain SHA-256 is the right hash: lookups by hash. */
export function hashApiKey(apiKey: string): string {
  return sha256Hex(apiKey);
}

export class Bots {
  /** Looked up on every join, leave and rotation: prepared once. */
  private readonly byId;
  private readonly directory: BotDirectory;
  /** The old key is void: whatever socket it opened, on any node, is closed (set by the app). */
  keyRotated: (botId: string) => void = () => {};

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    /** Bots one developer may own (a flood of bots makes every list heavy). */
    private readonly maxPerDeveloper = 200,
  ) {
    this.directory = new BotDirectory(db);
    this.byId = db.select().from(bots).where(eq(bots.id, sql.placeholder("botId"))).prepare("bot_by_id");
  }

  async create(developerId: string, input: { name: string; description?: string; strategy?: BuiltInStrategy }) {
    const [{ owned }] = await queryRows<{ owned: number }>(this.db, sql`select count(*)::int as owned from bots where developer_id = ${developerId}`);
    if (owned >= this.maxPerDeveloper) {
      throw errors.conflict("TOO_MANY_BOTS", `A developer may own at most ${this.maxPerDeveloper} bots`, { limit: this.maxPerDeveloper });
    }
    const apiKey = newSecret("pbk");
    const now = this.clock.now();
    const inserted = await this.db
      .insert(bots)
      .values({
        id: newId("bot", now),
        developerId,
        name: input.name,
        description: input.description ?? "",
        strategy: input.strategy ?? null,
        apiKeyHash: hashApiKey(apiKey),
        createdAt: new Date(now),
      })
      .onConflictDoNothing()
      .returning();
    if (inserted.length === 0) {
      throw errors.conflict("BOT_NAME_TAKEN", "You already have a bot with this name", { field: "name" });
    }
    const record = toRecord(inserted[0]);
    return { ...toBotView(record), strategy: record.strategy, apiKey };
  }

  /** GET /api/bots: the whole list (kept by the directory) or one page of it. */
  list(query: { limit?: number; offset?: number; after?: string }): Promise<BotPage> {
    if (query.limit === undefined && query.offset === undefined && query.after === undefined) return this.directory.all();
    return this.directory.page(query.limit ?? BOT_PAGE_MAX, query.after, query.offset ?? 0);
  }

  /** The caller's own bots, oldest first, with their strategy. */
  async listOwned(developerId: string) {
    const rows = await this.db.select().from(bots).where(eq(bots.developerId, developerId)).orderBy(asc(bots.createdAt), asc(bots.id));
    return rows.map((row) => {
      const record = toRecord(row);
      return { ...toBotView(record), strategy: record.strategy };
    });
  }

  /** Names of these bots, by id (unknown ids are left out). */
  async namesOf(botIds: string[]): Promise<Record<string, string>> {
    if (botIds.length === 0) return {};
    const rows = await this.db.select({ id: bots.id, name: bots.name }).from(bots).where(inArray(bots.id, botIds));
    return Object.fromEntries(rows.map((row) => [row.id, row.name]));
  }

  async find(botId: string): Promise<BotRecord> {
    const rows = await this.byId.execute({ botId });
    if (rows.length === 0) throw errors.notFound("Bot");
    return toRecord(rows[0]);
  }

  async findOwned(developerId: string, botId: string): Promise<BotRecord> {
    const bot = await this.find(botId);
    if (bot.developerId !== developerId) throw errors.forbidden("This bot belongs to another developer");
    return bot;
  }

  async findByApiKey(apiKey: string): Promise<BotRecord | undefined> {
    const rows = await this.db.select().from(bots).where(eq(bots.apiKeyHash, hashApiKey(apiKey)));
    return rows[0] ? toRecord(rows[0]) : undefined;
  }

  async rotateKey(developerId: string, botId: string): Promise<{ botId: string; apiKey: string }> {
    await this.findOwned(developerId, botId);
    const apiKey = newSecret("pbk");
    await this.db.update(bots).set({ apiKeyHash: hashApiKey(apiKey) }).where(eq(bots.id, botId));
    this.keyRotated(botId);
    return { botId, apiKey };
  }
}
