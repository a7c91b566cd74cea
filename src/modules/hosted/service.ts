/**
 * Hosted bots' code and logs as their owner sees them (issue 27): an upload is validated (built,
 * loaded and smoke-tested in the sandbox) before anything is stored, then kept as the bot's next
 * version; versions, sources and logs are read by the owner only. (Playing them is match-host's.)
 */
import { and, desc, eq, sql } from "drizzle-orm";
import { queryRows, type Db } from "../../db";
import { botCodeVersions, bots, hostedLogs } from "../../db/schema";
import { invariant } from "../../lib/assert";
import type { Clock } from "../../lib/clock";
import { AppError, errors } from "../../lib/errors";
import { ascending, descending, keysetPage, PAGE, type Page } from "../../lib/paging";
import type { RateVerdict } from "../../lib/rate-limit";
import { refuseIfRetired, type Bots } from "../bots/service";
import type { Sandbox } from "./sandbox";
import { validateUpload } from "./upload";
import { currentVersionNumbers } from "./code-store";

export interface UploadedCode {
  botId: string;
  version: number;
  sha256: string;
  bytes: number;
  createdAt: string;
}

export interface CodeVersionView {
  version: number;
  sha256: string;
  bytes: number;
  language: "ts" | "js";
  createdAt: string;
  current: boolean;
}

export interface HostedLogView {
  id: number;
  matchId: string;
  version: number;
  handNumber: number | null;
  kind: "log" | "failure" | "host";
  failure: string | null;
  level: string | null;
  message: string;
  createdAt: string;
}

/** How uploads are bounded (docs/HOSTED.md, "Limits"). */
export interface UploadRules {
  /** One token per upload, per developer (a bucket the cluster shares: HOSTED_UPLOADS_PER_MINUTE). */
  uploads: { take(developerId: string): Promise<RateVerdict>; readonly policy: { quota: number; windowSeconds: number } };
  /** Versions a bot keeps (HOSTED_VERSIONS_PER_BOT). */
  versionsPerBot: number;
}

/** Newest first: the first row of a bot's list is its current version. */
const NEWEST_VERSION_FIRST = [descending(botCodeVersions.version)];
/** A match's lines in the order they were written. */
const OLDEST_LINE_FIRST = [ascending(hostedLogs.id)];

/** DELETE /api/bots/:botId/code: the bot's code no longer plays it. */
export interface UnhostedBot {
  botId: string;
  hosted: false;
  /** When hosting was turned off (the first time, if asked again). */
  unhostedAt: string;
  /** Its versions stay, readable by its owner: the next upload (a new version) makes it hosted again. */
  versions: number;
}

export class HostedCode {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly sandbox: Sandbox,
    private readonly owners: Bots,
    readonly rules: UploadRules,
    /**
     * Hosting of a bot went on (an upload: its current version) or off (null): its remote socket, if
     * one is open on any node, is told at once.
     */
    private readonly hostingChanged: (botId: string, version: number | null) => void,
  ) {}

  /**
   * PUT /api/bots/:botId/code. The owner and the bot are checked first (no sandbox time for a
   * stranger), then the file is validated outside any transaction (it takes the sandbox a few
   * hundred ms); the version is numbered under the bot's row lock, which a retirement takes too,
   * so two uploads get consecutive numbers and none lands on a bot retired meanwhile. Each upload
   * that gets that far takes one of the developer's upload tokens (429 when none is left), and the
   * bot keeps at most `versionsPerBot` versions (keepWithinVersionCap).
   */
  async upload(developerId: string, botId: string, body: Uint8Array | string, contentType: string | null): Promise<UploadedCode> {
    const bot = await this.owners.findOwned(developerId, botId);
    refuseIfRetired(bot);
    if (bot.strategy) throw errors.conflict("BUILT_IN_BOT", "A built-in bot is played by the service by its strategy: it takes no code");
    await this.takeUploadToken(developerId);
    const file = await validateUpload(body, this.sandbox, contentType);
    const createdAt = new Date(this.clock.now());
    const [row] = await this.db.transaction(async (tx) => {
      const [locked] = await tx.select({ retiredAt: bots.retiredAt }).from(bots).where(eq(bots.id, botId)).for("update");
      refuseIfRetired({ ...bot, retiredAt: locked.retiredAt?.toISOString() ?? null });
      await this.keepWithinVersionCap(tx, botId);
      // An upload turns hosting (back) on: a match starting from now plays this version.
      await tx.update(bots).set({ unhostedAt: null }).where(eq(bots.id, botId));
      return tx
        .insert(botCodeVersions)
        .values({
          botId,
          version: sql`(select coalesce(max(version), 0) + 1 from bot_code_versions where bot_id = ${botId})`,
          sha256: file.sha256,
          bytes: file.bytes,
          language: file.language,
          source: file.source,
          bundled: file.bundled,
          createdAt,
        })
        .returning({ version: botCodeVersions.version });
    });
    invariant(row.version >= 1, `bot ${botId}: version ${row.version}`);
    this.hostingChanged(botId, row.version);
    return { botId, version: row.version, sha256: file.sha256, bytes: file.bytes, createdAt: createdAt.toISOString() };
  }

  /**
   * DELETE /api/bots/:botId/code: hosting off. A match starting from now seats the bot as a remote
   * bot (it plays through its socket); a match in play keeps the version it pinned, and every
   * match keeps the version it played. The versions stay, readable by the owner; the next upload
   * turns hosting on again. Under the bot's row lock, as an upload, so the two never cross.
   * Again when already off: the same answer. A bot that never had code: 409 BOT_NOT_HOSTED.
   */
  async unhost(developerId: string, botId: string): Promise<UnhostedBot> {
    const bot = await this.owners.findOwned(developerId, botId);
    refuseIfRetired(bot);
    if (bot.strategy) throw errors.conflict("BUILT_IN_BOT", "A built-in bot is played by the service by its strategy: it has no code to stop");
    const now = new Date(this.clock.now());
    const { unhostedAt, versions, changed } = await this.db.transaction(async (tx) => {
      const [locked] = await tx.select({ unhostedAt: bots.unhostedAt }).from(bots).where(eq(bots.id, botId)).for("update");
      const [{ count }] = await tx.select({ count: sql<number>`count(*)::int` }).from(botCodeVersions).where(eq(botCodeVersions.botId, botId));
      if (count === 0) throw errors.conflict("BOT_NOT_HOSTED", "This bot has no uploaded code: it plays through its socket already");
      if (locked.unhostedAt) return { unhostedAt: locked.unhostedAt, versions: count, changed: false };
      await tx.update(bots).set({ unhostedAt: now }).where(eq(bots.id, botId));
      return { unhostedAt: now, versions: count, changed: true };
    });
    if (changed) this.hostingChanged(botId, null);
    return { botId, hosted: false, unhostedAt: unhostedAt.toISOString(), versions };
  }

  /** 429 RATE_LIMITED with Retry-After when the developer has no upload token left (nothing else happens). */
  private async takeUploadToken(developerId: string): Promise<void> {
    const verdict = await this.rules.uploads.take(developerId);
    if (verdict.allowed) return;
    const seconds = Math.max(1, Math.ceil(verdict.retryAfterMs / 1000));
    const { quota, windowSeconds } = this.rules.uploads.policy;
    throw new AppError(429, "RATE_LIMITED", `Too many uploads: at most ${quota} every ${windowSeconds} s per developer; retry in ${seconds} s`, { retryAfterSeconds: seconds, quota, windowSeconds }, { "Retry-After": String(seconds) });
  }

  /**
   * Under the bot's row lock, before a new version is stored: when the bot already keeps
   * `versionsPerBot` versions, its oldest versions no match played (none in match_players, none
   * pinned to an open seat) and that are not current are deleted, as many as make room for one.
   * A version a match played stays readable for that match's record: when those alone fill the
   * cap, the upload is refused (409 TOO_MANY_VERSIONS) and nothing changes.
   */
  private async keepWithinVersionCap(tx: Parameters<Parameters<Db["transaction"]>[0]>[0], botId: string): Promise<void> {
    const cap = this.rules.versionsPerBot;
    await tx.execute(sql`
      delete from bot_code_versions v
      where v.bot_id = ${botId} and v.version in (
        select w.version from bot_code_versions w
        where w.bot_id = ${botId}
          and w.version < (select max(version) from bot_code_versions where bot_id = ${botId})
          and not exists (select 1 from match_players mp where mp.bot_id = w.bot_id and mp.code_version = w.version)
          and not exists (select 1 from seats s where s.bot_id = w.bot_id and s.status = 'open' and s.code_version = w.version)
        order by w.version
        limit greatest(0, (select count(*) from bot_code_versions where bot_id = ${botId}) - ${cap - 1})
      )`);
    const [{ kept }] = await queryRows<{ kept: number }>(tx, sql`select count(*)::int as kept from bot_code_versions where bot_id = ${botId}`);
    if (kept >= cap) {
      throw errors.conflict(
        "TOO_MANY_VERSIONS",
        `This bot keeps ${kept} versions, at most ${cap}, and every one a match played stays readable for that match's record: upload this code as a new bot`,
        { versions: kept, maxVersions: cap },
      );
    }
  }

  /** GET /api/bots/:botId/code: the versions, newest first (the first is current). */
  async versions(developerId: string, botId: string, page: { limit?: number; after?: number }): Promise<Page<CodeVersionView, number>> {
    await this.owners.findOwned(developerId, botId);
    const query = this.db
      .select({ version: botCodeVersions.version, sha256: botCodeVersions.sha256, bytes: botCodeVersions.bytes, language: botCodeVersions.language, createdAt: botCodeVersions.createdAt })
      .from(botCodeVersions)
      .$dynamic();
    const found = await keysetPage(
      query,
      { where: eq(botCodeVersions.botId, botId), order: NEWEST_VERSION_FIRST, limit: page.limit ?? PAGE.default, after: page.after === undefined ? undefined : [page.after] },
      (last) => String(last.version),
    );
    // Hosting off: no version is current (none plays a match starting now).
    const current = (await currentVersionNumbers(this.db, [botId])).get(botId);
    return {
      items: found.items.map((row) => ({ ...row, createdAt: row.createdAt.toISOString(), current: row.version === current })),
      next: found.next === null ? null : Number(found.next),
    };
  }

  /** GET /api/bots/:botId/code/:version: the file as uploaded, and what it was uploaded as. */
  async source(developerId: string, botId: string, version: number): Promise<{ source: string; language: "ts" | "js"; sha256: string }> {
    await this.owners.findOwned(developerId, botId);
    const [row] = await this.db
      .select({ source: botCodeVersions.source, language: botCodeVersions.language, sha256: botCodeVersions.sha256 })
      .from(botCodeVersions)
      .where(and(eq(botCodeVersions.botId, botId), eq(botCodeVersions.version, version)));
    if (!row) throw errors.notFound("Code version");
    return row;
  }

  /**
   * GET /api/bots/:botId/logs: one match's lines, oldest first (the match asked for, else the
   * newest one the bot logged in). The page's cursor is a line id; the next page names the match,
   * so a newer match starting meanwhile does not switch it.
   */
  async logs(developerId: string, botId: string, query: { matchId?: string; limit?: number; after?: number }): Promise<{ matchId: string | null; page: Page<HostedLogView> }> {
    await this.owners.findOwned(developerId, botId);
    const matchId = query.matchId ?? (await this.newestLoggedMatch(botId));
    if (matchId === null) return { matchId: null, page: { items: [], next: null } };
    const found = await keysetPage(
      this.db.select().from(hostedLogs).$dynamic(),
      { where: and(eq(hostedLogs.botId, botId), eq(hostedLogs.matchId, matchId)), order: OLDEST_LINE_FIRST, limit: query.limit ?? PAGE.default, after: query.after === undefined ? undefined : [query.after] },
      (last) => String(last.id),
    );
    const items = found.items.map(({ botId: _botId, createdAt, ...line }) => ({ ...line, createdAt: createdAt.toISOString() }));
    return { matchId, page: { items, next: found.next } };
  }

  /** Bots that are hosted (have a version) → their current version, for the owner's views of bots. */
  currentVersions(botIds: string[]): Promise<Map<string, number>> {
    return currentVersionNumbers(this.db, botIds);
  }

  private async newestLoggedMatch(botId: string): Promise<string | null> {
    const [newest] = await this.db.select({ matchId: hostedLogs.matchId }).from(hostedLogs).where(eq(hostedLogs.botId, botId)).orderBy(desc(hostedLogs.id)).limit(1);
    return newest?.matchId ?? null;
  }
}
