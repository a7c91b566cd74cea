import { sql } from "drizzle-orm";
import { queryRows, type Db } from "../../db";
import { LADDER_FORMATS, type LadderFormat, type TableConfig } from "../../db/schema";
import type { Clock } from "../../lib/clock";
import type { LadderSettings } from "../../config";
import type { Bots } from "../bots/service";
import { RoleKeeper } from "../cluster/roles";
import type { Accounts } from "../credits/service";
import type { MatchHost } from "../match-host/host";
import type { Tables } from "../tables/service";
import { entryState, type PauseReason } from "./availability";
import { ensureHouse } from "./house";
import { MeetingCounts, pairings, type Candidate } from "./pairing";
import type { EntryWithFacts, Ladder } from "./service";

export const MATCHMAKER_ROLE = "ladder-matchmaker";
const SEATS: Record<LadderFormat, number> = { "heads-up": 2, "six-max": 6 };
/** A ladder table fills within milliseconds of being made: one still waiting after this was stranded. */
const STRANDED_AFTER_MS = 10_000;
/** The house's faucet is tried this often (the guarded UPDATE refuses until its cooldown is over). */
const HOUSE_FAUCET_EVERY_MS = 60_000;

/** What one pairing round saw and did: for whoever watches the ladder from outside (metrics). */
export interface RoundReport {
  /** Every entry as the round read it; `waiting`: active and free, yet not seated by this round. */
  entries: Array<{ format: LadderFormat; status: "active" | "paused"; reason: PauseReason | null; waiting: boolean }>;
  /** Ladder tables this round filled, per format. */
  seated: Record<LadderFormat, number>;
}

export interface MatchmakerDeps {
  db: Db;
  clock: Clock;
  ladder: Ladder;
  tables: Tables;
  host: MatchHost;
  bots: Bots;
  accounts: Accounts;
  settings: LadderSettings;
  hostId: string;
  leaseStanding?: () => boolean;
  log: (message: string, error?: unknown) => void;
}

/**
 * The ladder's one matchmaker for the whole cluster: the node holding the role (cluster/roles.ts)
 * pairs available entries every LADDER_PAIR_EVERY_MS and seats them at ladder tables it hosts,
 * through the ordinary join (each buy-in off its owner's balance, guarded in SQL: a bot can never
 * be seated twice, whatever runs twice). Another node takes the role within seconds of its loss.
 */
export class Matchmaker {
  readonly role: RoleKeeper;
  private timer: ReturnType<typeof setInterval> | undefined;
  private busy = false;
  /** Per format, how often each pair has met (read from the database when this node takes the role). */
  private meetings: Record<LadderFormat, MeetingCounts> | null = null;
  /** Since when each available bot has been free (first seen so by this matchmaker): the longest waiting is paired first. */
  private readonly freeSince = new Map<string, number>();
  private house: string | null = null;
  private houseFaucetAt = 0;
  /** Told after every round that read the entries (default: nobody). */
  observe: (report: RoundReport) => void = () => {};
  private finishedRounds = 0;

  constructor(private readonly deps: MatchmakerDeps) {
    this.role = new RoleKeeper(deps.db, MATCHMAKER_ROLE, deps.hostId, deps.log, deps.leaseStanding);
  }

  /** Rounds that read the entries and went to their end: a test that proves a round changed nothing waits on it. */
  get roundsCompleted(): number {
    return this.finishedRounds;
  }

  isMatchmaker(): boolean {
    return this.role.holds();
  }

  start(): void {
    this.role.start();
    this.timer = setInterval(() => void this.round().catch((error) => this.deps.log("a ladder pairing round failed (the next one retries)", error)), this.deps.settings.pairEveryMs);
    (this.timer as { unref?: () => void }).unref?.();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.role.stop();
  }

  /** One round: who is available, who plays whom, seat them. Only the role's holder pairs. */
  async round(): Promise<number> {
    if (!this.role.holds()) {
      this.meetings = null;
      return 0;
    }
    if (this.busy) return 0;
    this.busy = true;
    try {
      let entries = await this.deps.ladder.withFacts();
      const seated = { "heads-up": 0, "six-max": 0 } satisfies Record<LadderFormat, number>;
      // Nobody entered yet: no house account, no house bots (a service nobody uses for the ladder stays as it was).
      if (entries.length === 0) {
        this.finishedRounds++;
        this.observe({ entries: [], seated });
        return 0;
      }
      if (this.house === null) {
        this.house = await ensureHouse(this.deps.db, this.deps.bots, this.deps.clock, this.deps.settings.houseBots);
        entries = await this.deps.ladder.withFacts();
      }
      this.meetings ??= await this.loadMeetings();
      await this.claimHouseFaucet(this.house);
      await this.closeStrandedTables(this.house);
      const now = this.deps.clock.now();
      // The rule decided once per entry this round.
      const states = new Map(entries.map((e) => [e, entryState(e.facts, this.deps.settings.buyIn)]));
      const available = new Set(entries.filter((e) => states.get(e)!.available).map((e) => e.botId));
      for (const botId of this.freeSince.keys()) if (!available.has(botId)) this.freeSince.delete(botId);
      for (const botId of available) if (!this.freeSince.has(botId)) this.freeSince.set(botId, now);
      const hosted = new Set(entries.filter((e) => e.facts.hosted).map((e) => e.botId));
      const picked = new Set<string>();
      const seatings: Promise<void>[] = [];
      for (const format of LADDER_FORMATS) {
        const playing = entries.filter((e) => e.format === format && states.get(e)!.status === "active");
        const candidates = playing.filter((e) => !picked.has(e.botId) && !e.facts.seated).map((e) => this.candidate(e));
        const perDeveloper = new Map<string, number>();
        for (const e of playing) perDeveloper.set(e.developerId, (perDeveloper.get(e.developerId) ?? 0) + 1);
        const options = { population: playing.length, entriesOf: (d: string) => perDeveloper.get(d) ?? 1, now, patienceMs: this.deps.settings.patienceMs };
        for (const group of pairings(candidates, SEATS[format], this.meetings[format].get, options)) {
          for (const member of group) picked.add(member.botId);
          const duplicate = format === "heads-up" && group.every((member) => hosted.has(member.botId));
          seatings.push(this.seat(format, group, duplicate).then((filled) => void (filled && (seated[format] += 1))));
        }
      }
      await Promise.all(seatings);
      this.finishedRounds++;
      this.observe({
        entries: entries.map((e) => {
          const state = states.get(e)!;
          return { format: e.format, status: state.status, reason: state.reason, waiting: state.available && !picked.has(e.botId) };
        }),
        seated,
      });
      return seatings.length;
    } finally {
      this.busy = false;
    }
  }

  private candidate(entry: EntryWithFacts): Candidate {
    return {
      botId: entry.botId,
      developerId: entry.developerId,
      rating: entry.rating,
      waitingSince: this.freeSince.get(entry.botId) ?? this.deps.clock.now(),
      matchesPlayed: entry.matchesPlayed,
    };
  }

  /**
   * A ladder table for the group, each bot seated by its owner's buy-in; if one cannot sit, the
   * table is closed (every seat refunded). `duplicate`: two hosted bots heads-up play a duplicate
   * match, two matches of the ladder's length at twin tables (the join at copy 1 seats each bot at
   * both, seats swapped, each copy its own contexts: docs/LADDER.md), rated once as a pair.
   */
  private async seat(format: LadderFormat, group: Candidate[], duplicate: boolean): Promise<boolean> {
    const { settings, tables, host } = this.deps;
    const config: TableConfig = {
      buyIn: settings.buyIn,
      smallBlind: settings.smallBlind,
      bigBlind: settings.bigBlind,
      maxPlayers: SEATS[format],
      maxHands: settings.hands,
      actionTimeoutMs: settings.actionTimeoutMs,
      ...(duplicate ? { duplicate: true } : {}),
    };
    const tableId = await tables.createLadderTable(format, this.house!, config);
    this.meetings![format].met(group.map((c) => c.botId));
    for (const member of group) this.freeSince.delete(member.botId);
    try {
      for (const member of group) await host.execute(tableId, { op: "join", developerId: member.developerId, botId: member.botId });
      return true;
    } catch (error) {
      // A bot seated meanwhile elsewhere, a balance spent meanwhile: the next round sees it and pauses or skips the entry.
      this.deps.log(`ladder table ${tableId} could not be filled (${(error as Error).message}): closed, seats refunded`);
      await host.execute(tableId, { op: "close", developerId: this.house! }).catch((closing) => this.deps.log(`closing ladder table ${tableId} failed`, closing));
      return false;
    }
  }

  /**
   * A ladder table still waiting well after it was made was stranded: its matchmaker died between
   * making it and seating everyone (a takeover adopted it half full). Closed, every seat refunded,
   * so no bot waits in it forever.
   */
  private async closeStrandedTables(house: string): Promise<void> {
    const stranded = await queryRows<{ id: string }>(
      this.deps.db,
      sql`select id from tables where ladder is not null and status = 'waiting' and copy is distinct from 2 and created_at < now() - ${`${STRANDED_AFTER_MS} milliseconds`}::interval`,
    );
    for (const { id } of stranded) {
      await this.deps.tables.close(house, id).then(
        () => this.deps.log(`stranded ladder table ${id} closed, its seats refunded`),
        (error) => this.deps.log(`closing stranded ladder table ${id} failed (the next round retries)`, error),
      );
    }
  }

  private async claimHouseFaucet(house: string): Promise<void> {
    const now = this.deps.clock.now();
    if (now < this.houseFaucetAt) return;
    this.houseFaucetAt = now + HOUSE_FAUCET_EVERY_MS;
    await this.deps.accounts.claimFaucet(house).catch(() => {});
  }

  /** Every pair that met at a ladder table (finished, or seated now), per format. */
  private async loadMeetings(): Promise<Record<LadderFormat, MeetingCounts>> {
    const counts = { "heads-up": new MeetingCounts(), "six-max": new MeetingCounts() } satisfies Record<LadderFormat, MeetingCounts>;
    const groups = await queryRows<{ ladder: LadderFormat; bots: string[] }>(
      this.deps.db,
      sql`select t.ladder, array_agg(distinct s.bot_id) as bots from seats s join tables t on t.id = s.table_id
          where t.ladder is not null and s.bot_id is not null and t.copy is distinct from 2 group by t.id, t.ladder`,
    );
    for (const group of groups) counts[group.ladder].met(group.bots);
    return counts;
  }
}
