import { sql } from "drizzle-orm";
import { queryRows, type Db } from "../../db";
import { LADDER_FORMATS, type LadderFormat, type TableConfig } from "../../db/schema";
import type { Clock } from "../../lib/clock";
import type { LadderSettings } from "../../config";
import type { Bots } from "../bots/service";
import type { ClusterNode } from "../cluster/node";
import { RoleKeeper } from "../cluster/roles";
import type { Accounts } from "../credits/service";
import type { TableCommands } from "../tables/table-commands";
import type { Tables } from "../tables/service";
import { entryState, LADDER_SEATS, type PauseReason } from "./availability";
import { houseLimitsReached, type HouseLimitReached } from "./house";
import { MeetingCounts, pairings, type Candidate } from "./pairing";
import { LadderPlacement, type PlacementRequest } from "./placement";
import type { EntryWithFacts, Ladder } from "./service";
import { buyInsAffordable } from "./waiting";

export const MATCHMAKER_ROLE = "ladder-matchmaker";
/** A ladder table fills within milliseconds of being made: one still waiting after this was stranded. */
const STRANDED_AFTER_MS = 10_000;
/** The house's faucet is tried this often (the guarded UPDATE refuses until its cooldown is over). */
const HOUSE_FAUCET_EVERY_MS = 60_000;
/** Who has won the house's daily limit is read again this often (a query over the day's matches). */
const HOUSE_LIMITS_EVERY_MS = 2_000;

/** What one pairing round saw and did: for whoever watches the ladder from outside (metrics). */
export interface RoundReport {
  /** Every entry as the round read it; `waiting`: active and free, yet not seated by this round. */
  entries: Array<{ format: LadderFormat; status: "active" | "paused"; reason: PauseReason | null; waiting: boolean }>;
}

export interface MatchmakerDeps {
  db: Db;
  clock: Clock;
  ladder: Ladder;
  tables: Tables;
  /** Seats the group at the table it just made here (the ladder's joins are this node's own). */
  commands: TableCommands;
  bots: Bots;
  accounts: Accounts;
  settings: LadderSettings;
  hostId: string;
  /** This node in its cluster: the ladder's tables are placed over the live nodes (placement.ts). */
  cluster: ClusterNode;
  leaseStanding?: () => boolean;
  log: (message: string, error?: unknown) => void;
}

/**
 * The ladder's one matchmaker for the whole cluster: the node holding the role (cluster/roles.ts)
 * pairs available entries every LADDER_PAIR_EVERY_MS and seats them at ladder tables, placed over
 * the live nodes (placement.ts), through the ordinary join (each buy-in off its owner's balance,
 * guarded in SQL: a bot can never be seated twice, whatever runs twice). Another node takes the
 * role within seconds of its loss. Every node answers the matchmaker's requests to host a table.
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
  /** Developers who have won the house's daily limit (read every HOUSE_LIMITS_EVERY_MS). */
  private houseLimits = new Map<string, HouseLimitReached>();
  private houseLimitsAt = 0;
  readonly placement: LadderPlacement;
  /** Told after every round that read the entries (default: nobody). */
  observe: (report: RoundReport) => void = () => {};
  /** Bots of groups whose table is being made and filled now (on this node or another): not free, whatever the database says yet. */
  private readonly beingSeated = new Map<string, string>();
  /** Those seatings, for stop() to wait on. */
  private readonly seatings = new Set<Promise<void>>();
  /** Told of every ladder table this matchmaker filled, as its last seat is taken (default: nobody). */
  tableFilled: (format: LadderFormat) => void = () => {};
  private finishedRounds = 0;

  constructor(private readonly deps: MatchmakerDeps) {
    this.role = new RoleKeeper(deps.db, MATCHMAKER_ROLE, deps.hostId, deps.log, deps.leaseStanding);
    this.placement = new LadderPlacement(deps.db, deps.cluster, (request) => this.openHere(request), deps.log);
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
    this.placement.start();
    this.timer = setInterval(() => void this.round().catch((error) => this.deps.log("a ladder pairing round failed (the next one retries)", error)), this.deps.settings.pairEveryMs);
    (this.timer as { unref?: () => void }).unref?.();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.placement.stop();
    // Seatings in flight finish (a few ms each, usually) before the role is given up; a stuck one is left to the stranded-table rule.
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([Promise.allSettled([...this.seatings]), new Promise((resolve) => (timer = setTimeout(resolve, 2_000)))]);
    clearTimeout(timer);
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
      // Read before the entries: a seating that settles while they are read still counts as in flight (its seat may be missed by the read).
      const inFlight = new Map(this.beingSeated);
      let entries = await this.deps.ladder.withFacts();
      // Nobody entered yet: no house account, no house bots (a service nobody uses for the ladder stays as it was).
      if (entries.length === 0) {
        this.finishedRounds++;
        this.observe({ entries: [] });
        return 0;
      }
      if (this.house === null) {
        this.house = await this.deps.ladder.openHouse();
        entries = await this.deps.ladder.withFacts();
      }
      // A bot whose seating is in flight holds no open seat yet: it is busy all the same.
      entries = entries.map((e) => (inFlight.has(e.botId) && !e.facts.seated ? { ...e, facts: { ...e.facts, seated: true } } : e));
      // Their buy-ins may not be off the balances just read: counted as spent (at worst a table waits a round).
      const owedInFlight = new Map<string, number>();
      for (const developerId of inFlight.values()) owedInFlight.set(developerId, (owedInFlight.get(developerId) ?? 0) + 1);
      const hosted = new Set(entries.filter((e) => e.facts.hosted).map((e) => e.botId));
      const hostedInFlight = new Map<string, number>();
      for (const [botId, developerId] of inFlight) if (hosted.has(botId)) hostedInFlight.set(developerId, (hostedInFlight.get(developerId) ?? 0) + 1);
      this.meetings ??= await this.loadMeetings();
      await this.claimHouseFaucet(this.house);
      await this.closeStrandedTables(this.house);
      await this.readHouseLimits(this.house);
      const now = this.deps.clock.now();
      // The rule decided once per entry this round.
      const states = new Map(entries.map((e) => [e, entryState(e.facts, this.deps.settings.buyIn)]));
      const available = new Set(entries.filter((e) => states.get(e)!.available).map((e) => e.botId));
      for (const botId of this.freeSince.keys()) if (!available.has(botId)) this.freeSince.delete(botId);
      for (const botId of available) if (!this.freeSince.has(botId)) this.freeSince.set(botId, now);
      // One budget per developer for the whole round (both formats): a group is formed only if every member's owner can pay its buy-in.
      const balances = new Map(entries.map((e) => [e.developerId, e.facts.balance]));
      const hostedLeftAtRead = new Map(entries.map((e) => [e.developerId, e.facts.hostedSeatsLeft ?? Infinity]));
      const hostedSpent = new Map<string, number>();
      const spent = new Map<string, number>();
      const house = this.house;
      const rules = {
        house: house ?? undefined,
        // A developer past the house's daily limit does not meet the house's bots until it lifts.
        apart: (a: Candidate, b: Candidate) => (a.developerId === house && this.houseLimits.has(b.developerId)) || (b.developerId === house && this.houseLimits.has(a.developerId)),
        seatsAffordable: (developerId: string) => buyInsAffordable(balances.get(developerId) ?? 0, this.deps.settings.buyIn) - (spent.get(developerId) ?? 0) - (owedInFlight.get(developerId) ?? 0),
        // MAX_HOSTED_SEATS_PER_DEVELOPER across the round (the ladder's joins are the host's own, past the route's check).
        hostedSeatsLeft: (developerId: string) => (hostedLeftAtRead.get(developerId) ?? Infinity) - (hostedSpent.get(developerId) ?? 0) - (hostedInFlight.get(developerId) ?? 0),
      };
      const picked = new Set<string>();
      const groups: Array<{ format: LadderFormat; group: Candidate[]; duplicate: boolean }> = [];
      for (const format of LADDER_FORMATS) {
        const playing = entries.filter((e) => e.format === format && states.get(e)!.status === "active");
        const candidates = playing.filter((e) => !picked.has(e.botId) && !e.facts.seated).map((e) => this.candidate(e));
        const perDeveloper = new Map<string, number>();
        for (const e of playing) perDeveloper.set(e.developerId, (perDeveloper.get(e.developerId) ?? 0) + 1);
        const options = { population: playing.length, entriesOf: (d: string) => perDeveloper.get(d) ?? 1, now, patienceMs: this.deps.settings.patienceMs, ...rules };
        for (const group of pairings(candidates, LADDER_SEATS[format], this.meetings[format].get, options)) {
          for (const member of group) {
            picked.add(member.botId);
            spent.set(member.developerId, (spent.get(member.developerId) ?? 0) + 1);
            if (member.hosted) hostedSpent.set(member.developerId, (hostedSpent.get(member.developerId) ?? 0) + 1);
          }
          groups.push({ format, group, duplicate: format === "heads-up" && group.every((member) => hosted.has(member.botId)) });
        }
      }
      const nodes = await this.placement.nodesFor(groups.length);
      // The round does not wait for its tables to be made and filled (a node asked over the bus answers in its own time):
      // the next round, 250 ms on, pairs whoever is free meanwhile, and leaves these bots out until their seating settles.
      groups.forEach(({ format, group, duplicate }, i) => this.track(group, this.seat(nodes[i], format, group, duplicate).then((filled) => void (filled && this.tableFilled(format)))));
      this.finishedRounds++;
      this.observe({
        entries: entries.map((e) => {
          const state = states.get(e)!;
          return { format: e.format, status: state.status, reason: state.reason, waiting: state.available && !picked.has(e.botId) };
        }),
      });
      return groups.length;
    } finally {
      this.busy = false;
    }
  }

  /** The group's bots stay out of pairing until their seating settles, failed or not (a failure is logged where it happens). */
  private track(group: Candidate[], seating: Promise<void>): void {
    for (const member of group) this.beingSeated.set(member.botId, member.developerId);
    const settled: Promise<void> = seating
      .catch((error) => this.deps.log("seating a ladder table failed", error))
      .finally(() => {
        for (const member of group) this.beingSeated.delete(member.botId);
        this.seatings.delete(settled);
      });
    this.seatings.add(settled);
  }

  private candidate(entry: EntryWithFacts): Candidate {
    return {
      botId: entry.botId,
      developerId: entry.developerId,
      rating: entry.rating,
      waitingSince: this.freeSince.get(entry.botId) ?? this.deps.clock.now(),
      matchesPlayed: entry.matchesPlayed,
      hosted: entry.facts.hosted,
    };
  }

  /**
   * A ladder table for the group on `node` (placement.ts), each bot seated by its owner's buy-in.
   * `duplicate`: two hosted bots heads-up play a duplicate match, two matches of the ladder's
   * length at twin tables made together on one node (the join at copy 1 seats each bot at both,
   * seats swapped, each copy its own contexts: docs/LADDER.md), rated once as a pair.
   */
  private async seat(node: string, format: LadderFormat, group: Candidate[], duplicate: boolean): Promise<boolean> {
    const { settings } = this.deps;
    const config: TableConfig = {
      buyIn: settings.buyIn,
      smallBlind: settings.smallBlind,
      bigBlind: settings.bigBlind,
      maxPlayers: LADDER_SEATS[format],
      maxHands: settings.hands,
      actionTimeoutMs: settings.actionTimeoutMs,
      ...(duplicate ? { duplicate: true } : {}),
    };
    this.meetings![format].met(group.map((c) => c.botId));
    for (const member of group) this.freeSince.delete(member.botId);
    return this.placement.openAt(node, { format, config, creator: this.house!, group: group.map((c) => ({ developerId: c.developerId, botId: c.botId })) });
  }

  /**
   * Makes a ladder table on this node and seats the group (this node's matchmaker's choice, or
   * another's over the bus); if one cannot sit, the table is closed (every seat refunded).
   */
  private async openHere({ format, config, creator, group }: PlacementRequest): Promise<boolean> {
    const { tables, commands } = this.deps;
    // A bot that left the ladder since this round read its entries is not seated (DELETE /api/ladder/entries: no other match starts).
    const stillEntered = await enteredNow(this.deps.db, format, group.map((member) => member.botId));
    if (stillEntered.length < group.length) return false;
    const tableId = await tables.createLadderTable(format, creator, config);
    try {
      for (const member of group) await commands.execute(tableId, { op: "join", developerId: member.developerId, botId: member.botId });
      return true;
    } catch (error) {
      // A bot seated meanwhile elsewhere, a balance spent meanwhile: the next round sees it and pauses or skips the entry.
      this.deps.log(`ladder table ${tableId} could not be filled (${(error as Error).message}): closed, seats refunded`);
      await commands.execute(tableId, { op: "close", developerId: creator }).catch((closing) => this.deps.log(`closing ladder table ${tableId} failed`, closing));
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

  /** Who has won the house's daily limit (docs/LADDER.md, "The house's bankroll"), read again every few seconds. */
  private async readHouseLimits(house: string): Promise<void> {
    const now = this.deps.clock.now();
    if (now < this.houseLimitsAt) return;
    this.houseLimitsAt = now + HOUSE_LIMITS_EVERY_MS;
    this.houseLimits = await houseLimitsReached(this.deps.db, house, new Date(now), this.deps.settings.houseDailyLimit);
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

/** Which of these bots are entered in the format now (left_at null): read at the moment of seating, not at the round's start. */
async function enteredNow(db: Db, format: LadderFormat, botIds: string[]): Promise<string[]> {
  const rows = await queryRows<{ bot_id: string }>(db, sql`select bot_id from ladder_entries where format = ${format} and left_at is null and bot_id = any(${sql.param(botIds)}::text[])`);
  return rows.map((row) => row.bot_id);
}
