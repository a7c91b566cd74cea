import { and, eq, isNull, sql } from "drizzle-orm";
import type { BotConnection } from "./connection-words";
import { anyOf, queryRows, type Db } from "../../db";
import { bots } from "../../db/schema";
import type { Clock } from "../../lib/clock";
import { errors } from "../../lib/errors";
import { newId, newSecret, sha256Hex } from "../../lib/ids";
import type { BuiltInStrategy } from "./model";
import { idCursor, keysetPage, PAGE, type Page } from "../../lib/paging";
import { BotDirectory, OLDEST_FIRST, type BotPage, type WholeList } from "./directory";
import { houseBotsAmong, isHouseBotName } from "./house";

export interface BotView {
  botId: string;
  name: string;
  description: string;
  createdAt: string;
}

export interface BotRecord extends BotView {
  developerId: string;
  strategy: BuiltInStrategy | null;
  /** ISO time of DELETE /api/bots/:botId; null for a bot in service. */
  retiredAt: string | null;
}

function toRecord(row: typeof bots.$inferSelect): BotRecord {
  return {
    botId: row.id,
    developerId: row.developerId,
    name: row.name,
    description: row.description,
    createdAt: row.createdAt.toISOString(),
    strategy: row.strategy as BuiltInStrategy | null,
    retiredAt: row.retiredAt?.toISOString() ?? null,
  };
}

export type { BotConnection };

/** The owner's view of a bot (GET /api/me/bots, GET /api/bots/:botId to its owner): the public fields, how it plays and is connected, its hosted code's current version. */
export function toOwnedBot(record: BotRecord, codeVersion: number | null, house: boolean, connectedVia: "socket" | "agent" | "acpc" | undefined = undefined) {
  const connection: BotConnection = record.strategy ? "built-in" : codeVersion !== null ? "hosted" : (connectedVia ?? "offline");
  return { ...toBotView(record), strategy: record.strategy, hosted: codeVersion !== null, codeVersion, house, connection };
}

/** A retired bot plays no more: no seat, no new key. */
export function refuseIfRetired(bot: BotRecord): void {
  if (bot.retiredAt !== null) throw errors.conflict("BOT_RETIRED", "This bot is retired", { retiredAt: bot.retiredAt });
}

export function toBotView(record: BotRecord): BotView {
  return { botId: record.botId, name: record.name, description: record.description, createdAt: record.createdAt };
}

/** Api keys are 256-bit random secrets, so a plain SHA-256 is the right hash: lookups by hash. */
export function hashApiKey(apiKey: string): string {
  return sha256Hex(apiKey);
}

/**
 * What the bots' service needs of the rest of the node, declared here and given at construction
 * (app's compose): none has a default, so a composition cannot forget one.
 */
export interface BotLinks {
  /** The old key is void: whatever socket it opened, on any node, is closed (the cluster's bot relay). */
  keyRotated(botId: string): void;
  /** The current hosted-code version of each bot that has one (hosted/code-store.ts). */
  codeVersions(botIds: string[]): Promise<Map<string, number>>;
  /** Of these bots, those connected on a live node and how (bot_presence: protocol/presence.ts). */
  connections(botIds: string[]): Promise<Map<string, "socket" | "agent" | "acpc">>;
}

/** Bot records kept by id (a bot's row is small; past this many, the cache starts over). */
const RECORDS_CACHED = 50_000;

export class Bots {
  /** Looked up on every join, leave and rotation: prepared once. */
  private readonly byId;
  /**
   * Bots as read by id: every field but `retiredAt` never changes, and a retirement made on another
   * node is caught where it matters, by the buy-in statement itself. Saves a round trip per join,
   * leave and rotation.
   */
  private readonly records = new Map<string, BotRecord>();
  private readonly directory: BotDirectory;
  /** The old key is void: whatever socket it opened, on any node, is closed. */
  readonly keyRotated: (botId: string) => void;
  /** The current hosted-code version of each bot that has one. */
  readonly codeVersions: (botIds: string[]) => Promise<Map<string, number>>;
  /** Of these bots, those connected on a live node and how, socket or agent. */
  readonly connections: (botIds: string[]) => Promise<Map<string, "socket" | "agent" | "acpc">>;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    /** Bots one developer may own (a flood of bots makes every list heavy). */
    private readonly maxPerDeveloper: number,
    links: BotLinks,
  ) {
    this.keyRotated = links.keyRotated;
    this.codeVersions = links.codeVersions;
    this.connections = links.connections;
    this.directory = new BotDirectory(db);
    this.byId = db.select().from(bots).where(eq(bots.id, sql.placeholder("botId"))).prepare("bot_by_id");
  }

  /** `asHouse`: the ladder's house making its own bots (only it may take the house's names). */
  async create(developerId: string, input: { name: string; description?: string; strategy?: BuiltInStrategy }, options: { asHouse?: boolean } = {}) {
    if (!options.asHouse && isHouseBotName(input.name)) {
      throw errors.conflict("BOT_NAME_RESERVED", `"${input.name}" is the name of one of the ladder house's bots (house-<strategy>, house-<strategy>-<n>): choose another, so nobody takes your bot for the house's`, { field: "name" });
    }
    const [{ owned }] = await queryRows<{ owned: number }>(this.db, sql`select count(*)::int as owned from bots where developer_id = ${developerId} and retired_at is null`);
    if (owned >= this.maxPerDeveloper) {
      throw errors.conflict("TOO_MANY_BOTS", `A developer may own at most ${this.maxPerDeveloper} bots`, { limit: this.maxPerDeveloper });
    }
    // A built-in is played by the service and never connects: it gets no key (its hash column holds a
    // marker no key hashes to, as a retired bot's does).
    const apiKey = input.strategy ? null : newSecret("pbk");
    const now = this.clock.now();
    const id = newId("bot", now);
    const inserted = await this.db
      .insert(bots)
      .values({
        id,
        developerId,
        name: input.name,
        description: input.description ?? "",
        strategy: input.strategy ?? null,
        apiKeyHash: apiKey ? hashApiKey(apiKey) : `built-in:${id}`,
        createdAt: new Date(now),
      })
      .onConflictDoNothing()
      .returning();
    if (inserted.length === 0) {
      throw errors.conflict("BOT_NAME_TAKEN", "You already have a bot with this name", { field: "name" });
    }
    this.directory.added();
    const record = toRecord(inserted[0]);
    return { ...toBotView(record), strategy: record.strategy, apiKey };
  }

  /** GET /api/bots without parameters: the whole list, one shared body per version (the directory). */
  wholeList(): Promise<WholeList> {
    return this.directory.all();
  }

  /** GET /api/bots with `limit`, `after` or `offset`: one page. */
  page(query: { limit?: number; offset?: number; after?: string }): Promise<BotPage> {
    return this.directory.page(query.limit ?? PAGE.default, query.after, query.offset ?? 0);
  }

  /** The caller's bots in service (not retired), oldest first, with their strategy; `after` a botId cursor. */
  async listOwned(developerId: string, page: { limit?: number; after?: string } = {}): Promise<Page<BotRecord>> {
    const mine = eq(bots.developerId, developerId);
    const after = await idCursor(this.db, bots, OLDEST_FIRST, { id: page.after, within: mine, field: "after", unknown: "Invalid after: none of your bots has this id" });
    const found = await keysetPage(this.db.select().from(bots).$dynamic(), { where: and(mine, isNull(bots.retiredAt)), order: OLDEST_FIRST, limit: page.limit ?? PAGE.default, after }, (last) => last.id);
    return { items: found.items.map(toRecord), next: found.next };
  }

  /**
   * Retires a bot: it plays no more (joins and its api key are refused, its sockets closed), its
   * name is free again, and its records, statistics and matches stay. Refused while it holds a
   * seat. The bot row is locked first, so a buy-in racing this (which locks it too) either
   * commits before (and the seat is seen) or finds the bot retired.
   */
  async retire(developerId: string, botId: string): Promise<{ botId: string; retiredAt: string }> {
    const bot = await this.findOwned(developerId, botId);
    if (bot.retiredAt !== null) return { botId, retiredAt: bot.retiredAt };
    const retiredAt = new Date(this.clock.now());
    const retired = await this.db.transaction(async (tx) => {
      await tx.execute(sql`select id from bots where id = ${botId} for update`);
      const [seat] = await queryRows<{ table_id: string | null }>(tx, sql`select table_id from seats where bot_id = ${botId} and status = 'open' limit 1`);
      if (seat) throw errors.conflict("BOT_SEATED", "This bot holds a seat: leave the table first (or wait for its match to end)", { tableId: seat.table_id });
      // A hash no key can have: the api key stops working (the unique index needs one per bot).
      return tx.update(bots).set({ retiredAt, apiKeyHash: `retired:${botId}` }).where(and(eq(bots.id, botId), isNull(bots.retiredAt))).returning({ id: bots.id });
    });
    // Retired meanwhile through another node: its answer stands.
    if (retired.length === 0) return { botId, retiredAt: (await this.load(botId)).retiredAt! };
    this.records.set(botId, { ...bot, retiredAt: retiredAt.toISOString() });
    this.keyRotated(botId);
    return { botId, retiredAt: retiredAt.toISOString() };
  }

  /** The owner's views of these bots (their own: the caller checked), with their hosted code's version. */
  async ownedViews(records: BotRecord[]) {
    const ids = records.map((record) => record.botId);
    const [versions, house, connections] = await Promise.all([this.codeVersions(ids), this.houseBots(ids), this.connections(ids)]);
    return records.map((record) => toOwnedBot(record, versions.get(record.botId) ?? null, house.has(record.botId), connections.get(record.botId)));
  }

  /** Of these bots, those the ladder's house owns (lists and pages mark them `house`). */
  houseBots(botIds: string[]): Promise<Set<string>> {
    return houseBotsAmong(this.db, botIds);
  }

  /** Names of these bots, by id (unknown ids are left out). */
  async namesOf(botIds: string[]): Promise<Record<string, string>> {
    if (botIds.length === 0) return {};
    const rows = await this.db.select({ id: bots.id, name: bots.name }).from(bots).where(anyOf(bots.id, botIds));
    return Object.fromEntries(rows.map((row) => [row.id, row.name]));
  }

  async find(botId: string): Promise<BotRecord> {
    return this.records.get(botId) ?? this.load(botId);
  }

  /** The bot as the database has it now (and so in the cache). */
  private async load(botId: string): Promise<BotRecord> {
    const rows = await this.byId.execute({ botId });
    if (rows.length === 0) throw errors.notFound("Bot");
    const record = toRecord(rows[0]);
    if (this.records.size >= RECORDS_CACHED) this.records.clear();
    this.records.set(botId, record);
    return record;
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
    const bot = await this.findOwned(developerId, botId);
    refuseIfRetired(bot);
    if (bot.strategy) throw errors.conflict("BUILT_IN_BOT", "A built-in bot is played by the service and has no api key");
    const apiKey = newSecret("pbk");
    const rotated = await this.db.update(bots).set({ apiKeyHash: hashApiKey(apiKey) }).where(and(eq(bots.id, botId), isNull(bots.retiredAt))).returning({ id: bots.id });
    if (rotated.length === 0) refuseIfRetired(await this.load(botId));
    this.keyRotated(botId);
    return { botId, apiKey };
  }
}
