import { and, inArray, ne, sql } from "drizzle-orm";
import { queryRows, sessionNameOf, type Db } from "../../db/index";
import { tables } from "../../db/schema";
import { TABLE_COLUMNS } from "../../db/table-config";
import { invariant } from "../../lib/assert";
import { acquireLease, LEASE_RENEW_MS, renewLease, standsSince, type FenceToken } from "./lease";

/** The advisory lock that serialises claim rounds (an arbitrary constant of this service). */
const CLAIM_LOCK_KEY = 0x706f6b65;

/**
 * In one transaction: the leases that expired are removed (their nodes are dead: a paused one is
 * fenced from now on, see assertLease), and every live table whose host holds no lease is claimed
 * by this node. Two nodes claiming at once: row locks let one win each table. Every table of a
 * dead host goes in this one statement, under the claim lock, so the two tables of a duplicate pair
 * (always hosted together: match-host/twins.ts) move to one node together.
 */
export async function claimOrphanedTables(db: Db, hostId: string) {
  await endSessionsOfDeadNodes(db);
  return db.transaction(async (tx) => {
    // A paused node may hold its lease row share-locked in an open transaction: skip this round rather than wait.
    await tx.execute(sql`set local lock_timeout = '500ms'`);
    // Claim rounds run one at a time across the cluster. Without this, two nodes could claim one table:
    // the second UPDATE's re-check after the first committed reuses its stale anti-join with node_leases.
    await tx.execute(sql`select pg_advisory_xact_lock(${CLAIM_LOCK_KEY})`);
    await tx.execute(sql`delete from node_leases where expires_at < now()`);
    const claimed = await tx
      .update(tables)
      .set({ hostId })
      .where(
        and(
          inArray(tables.status, ["waiting", "running"]),
          ne(tables.hostId, hostId),
          sql`not exists (select 1 from node_leases l where l.host_id = ${tables.hostId})`,
        ),
      )
      .returning(TABLE_COLUMNS);
    // One host per table: this node adopts every row returned, so a row naming another host would
    // be a table run by two nodes at once (two decks, two ledgers of its chips).
    for (const row of claimed) invariant(row.hostId === hostId, `claimed table ${row.id} names host ${row.hostId}, not ${hostId}`);
    return claimed;
  });
}

/**
 * A node whose lease expired may only be paused (SIGSTOP, a frozen VM) with a statement half-sent:
 * Postgres then waits on it forever, holding its locks (no timeout applies while it reads from the
 * client). Its sessions, named after its HOST_ID, are ended so the takeover can proceed.
 */
async function endSessionsOfDeadNodes(db: Db): Promise<void> {
  const dead = await queryRows<{ host_id: string }>(db, sql`select host_id from node_leases where expires_at < now()`);
  if (dead.length === 0) return;
  const names = dead.map((row) => sessionNameOf(row.host_id));
  await db.execute(sql`select pg_terminate_backend(pid) from pg_stat_activity where application_name = any(${sql.param(names)}::text[]) and pid <> pg_backend_pid()`);
}

export type TableRow = Awaited<ReturnType<typeof claimOrphanedTables>>[number];

/**
 * The node's lease loop: renew every 2 s; a renewal refused means another node took this one's
 * tables over while it was paused or cut off — it must stop (`lost`). After each renewal, tables
 * of dead nodes are claimed and handed to `adopt`.
 */
export class LeaseKeeper {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private stopped = false;
  /** Claim rounds run one at a time (the timer's, and those a peer's departure asks for). */
  private claims: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: Db,
    /** Fixed for the keeper's life: renewals extend this epoch, never take another (a lost lease ends the node). */
    readonly token: FenceToken,
    /** performance.now() when the last successful acquisition or renewal was sent. */
    private renewalSentAt: number,
    private readonly adopt: (rows: TableRow[]) => Promise<unknown>,
    private readonly lost: () => void,
    private readonly log: (message: string, error?: unknown) => void,
  ) {}

  static async acquire(db: Db, hostId: string, adopt: (rows: TableRow[]) => Promise<unknown>, lost: () => void, log: (message: string, error?: unknown) => void) {
    const { token, sentAt } = await acquireLease(db, hostId, log);
    return new LeaseKeeper(db, token, sentAt, adopt, lost, log);
  }

  /**
   * True while the lease provably stands with a margin to spare: the database set its expiry at
   * least LEASE_TTL_MS after the last successful renewal was sent, and peers claim only after that
   * expiry. A node whose renewals are overdue (cut off from the database, paused) turns false
   * here 2 s before any peer may take its tables, and its tables stop dealing and broadcasting.
   */
  readonly standing = (): boolean => !this.stopped && standsSince(this.renewalSentAt);

  start(): void {
    const tick = async () => {
      if (this.stopped) return;
      try {
        const sentAt = performance.now();
        if (!(await renewLease(this.db, this.token))) {
          this.stopped = true;
          return this.lost();
        }
        this.renewalSentAt = sentAt;
        await this.claimNow();
      } catch (error) {
        // Lock timeouts are expected while a paused node's transaction still holds its lease row.
        if ((error as { cause?: { code?: string } })?.cause?.code === "55P03" || (error as { code?: string })?.code === "55P03") {
          this.log("takeover waits: a paused node still holds its lease row (Postgres ends its transaction within 10 s)");
        } else this.log("lease renewal or takeover failed (retrying)", error);
      }
      if (!this.stopped) this.timer = setTimeout(tick, LEASE_RENEW_MS);
    };
    void tick();
  }

  /** A claim round now: a peer said it is leaving (a drain), so its tables need not wait for the timer. */
  claimNow(): Promise<void> {
    const round = this.claims.then(async () => {
      if (this.stopped) return;
      const claimed = await claimOrphanedTables(this.db, this.token.hostId);
      if (claimed.length > 0) {
        this.log(`took over ${claimed.length} table(s) of dead or departed node(s): ${[...new Set(claimed.map((r) => r.id))].join(", ")}`);
        await this.adopt(claimed);
      }
    });
    this.claims = round.catch(() => {});
    return round;
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }
}
