/**
 * How a match begins on this node, and why a duplicate pair's two copies begin together.
 *
 * A duplicate match is two ordinary matches at two twin tables (docs/FAIRNESS.md): copy 2 seats
 * every bot at the other position and deals hand n from copy 1's hand-n deck. The pair shares
 * exactly what makes it one duplicate match, drawn here once for both: the deck secret (one
 * commitment), the start time and each copy's match id (each record names the other). Everything
 * else is each copy's own: seats, stacks, time banks, its own hosted contexts (their failures, log
 * budgets and match clocks). Both copies' contexts are opened before either copy plays a hand, and
 * their match clocks start at one origin drawn after that, so nothing either context sees depends
 * on what the other copy did.
 */
import type { Clock } from "../../lib/clock";
import { invariant } from "../../lib/assert";
import { newId } from "../../lib/ids";
import { deckCommitment } from "../../poker/fair-deck";
import type { MatchPlayers } from "../hosted/players";
import { drawDeckSecret } from "./round-decks";
import { mirroredPosition, seatsInOrder, type TableRuntime } from "../tables/runtime";

/** What one table's match begins with. */
export interface MatchStart {
  /** Its hosted seats (null: none). */
  players: MatchPlayers | null;
  /** Whether it resumes a match begun before (a pair's copies begin, or resume, together). */
  resuming: boolean;
}

export interface MatchStartsDeps {
  clock: Clock;
  /** New matches' rows, in one transaction (HandJournal.started). */
  recordStart(tables: TableRuntime[]): Promise<void>;
  /** The other copy of a pair, if this node hosts it. */
  twinOf(table: TableRuntime): TableRuntime | undefined;
  /** The secret a table must deal from, when it is not its own (a hosted round robin's round: round-decks.ts); null: draw one. */
  sharedSecret(table: TableRuntime): Promise<string | null>;
  /** Opens a table's hosted seats in a sandbox worker group (undefined: the match's own). */
  openHosted(table: TableRuntime, resuming: boolean, group: string | undefined): Promise<MatchPlayers | null>;
}

export class MatchStarts {
  /** Pairs starting now, by copy 1's table id: the start both copies wait for, and which have taken theirs. */
  private readonly pairs = new Map<string, { started: Promise<Map<string, MatchStart>>; waiting: Set<string> }>();

  constructor(private readonly deps: MatchStartsDeps) {}

  /**
   * The start of the match at `table`: alone, or with its twin (the first copy to ask starts both,
   * and its `resuming` is the pair's: by the time the other asks, its match id is drawn already).
   */
  async start(table: TableRuntime, resuming: boolean): Promise<MatchStart> {
    if (!table.twin) return this.startAlone(table, resuming);
    const key = table.twin.copy === 1 ? table.tableId : table.twin.tableId;
    let pair = this.pairs.get(key);
    if (!pair) {
      const copies = [table, this.deps.twinOf(table)].filter((t): t is TableRuntime => t !== undefined && (t.status === "waiting" || t.status === "running"));
      pair = { started: this.startPair(copies, resuming, `pair-${key}`), waiting: new Set(copies.map((t) => t.tableId)) };
      this.pairs.set(key, pair);
    }
    pair.waiting.delete(table.tableId);
    if (pair.waiting.size === 0) this.pairs.delete(key);
    const started = (await pair.started).get(table.tableId);
    invariant(started !== undefined, `table ${table.tableId} starts with its pair`);
    return started;
  }

  private async startAlone(table: TableRuntime, resuming: boolean): Promise<MatchStart> {
    // A resumed match keeps the secret it committed to at its start.
    if (!resuming && table.config.seed === undefined) commitTo(table, (await this.deps.sharedSecret(table)) ?? drawDeckSecret());
    const players = await this.deps.openHosted(table, resuming, undefined);
    players?.start(this.deps.clock.now());
    return { players, resuming };
  }

  /**
   * The copies of a pair that this node hosts and that have not ended (both, unless one ended
   * before a resumption), started together: shared secret and start, each its own contexts.
   */
  private async startPair(copies: TableRuntime[], resuming: boolean, group: string): Promise<Map<string, MatchStart>> {
    // Both rows are written together (below): a pair is started, or resumed, as one.
    invariant(copies.every((t) => (t.matchId !== null) === resuming), `the copies of pair ${group} begin, or resume, together`);
    if (!resuming) {
      invariant(copies.length === 2, "a duplicate pair's two copies start together");
      assertSeatsSwapped(copies[0], copies[1]);
      const secret = copies[0].config.seed === undefined ? ((await this.deps.sharedSecret(copies[0])) ?? drawDeckSecret()) : null;
      const startedAt = this.deps.clock.now();
      for (const t of copies) {
        t.beginMatch(newId("m", startedAt), startedAt);
        if (secret !== null) commitTo(t, secret);
      }
      for (const t of copies) t.linkTwinMatch(copies.find((other) => other !== t)!.matchId);
      // Both rows in one transaction: no crash leaves one copy started and the other not.
      await this.deps.recordStart(copies);
    }
    if (copies.length === 2) {
      invariant(copies[0].deckCommitment === copies[1].deckCommitment, "a duplicate pair's copies share one commitment");
      invariant(copies[0].twin!.tableId === copies[1].tableId && copies[1].twin!.tableId === copies[0].tableId, "twins name each other");
    }
    const players = await Promise.all(copies.map((t) => this.deps.openHosted(t, resuming, group)));
    // One origin for every context of the pair, drawn once all are open and before any hand.
    const origin = this.deps.clock.now();
    for (const p of players) p?.start(origin);
    return new Map(copies.map((t, i) => [t.tableId, { players: players[i], resuming }]));
  }
}

/**
 * Tables a node adopts (its own at a restart, or a dead node's): a claim takes every table of a dead
 * host in one statement (cluster/takeover.ts `claimOrphanedTables`), so a waiting pair moves as one
 * and its two copies are always hosted by one node.
 */
export function assertTwinsTogether(rows: Array<{ id: string; status: string; twinId: string | null }>, hostedHere: (tableId: string) => boolean): void {
  const adopted = new Set(rows.map((row) => row.id));
  for (const row of rows) {
    if (row.status === "waiting" && row.twinId !== null) invariant(adopted.has(row.twinId) || hostedHere(row.twinId), `waiting twins ${row.id} and ${row.twinId} are hosted together`);
  }
}

/** Copy 2 seats each bot of copy 1 at the other position. */
function assertSeatsSwapped(a: TableRuntime, b: TableRuntime): void {
  const seated = seatsInOrder(a);
  invariant(seated.length === b.seats.size, `twins ${a.tableId} and ${b.tableId} seat the same bots`);
  for (const seat of seated) {
    invariant(b.seats.get(mirroredPosition(a, seat.position))?.botId === seat.botId, `twin ${b.tableId} seats bot ${seat.botId} at the other position`);
  }
}

function commitTo(table: TableRuntime, secret: string): void {
  table.commitToDeck(secret, deckCommitment(secret));
}
