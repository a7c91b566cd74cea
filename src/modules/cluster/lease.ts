import { sql } from "drizzle-orm";
import { queryRows, type Queryable } from "../../db";
import { isConnectionLost } from "../../db/retry";
import { invariant } from "../../lib/assert";

export const LEASE_TTL_MS = 6_000;
export const LEASE_RENEW_MS = 2_000;
/**
 * A node deals and broadcasts only while its lease has at least this long left, counted from when
 * its last successful renewal was *sent* (the database's expiry is later than that): so it has
 * stopped well before a peer may claim its tables, whatever its own clock says about the wall time.
 * Two renewals may fail in a row before it pauses (TTL 6 s − margin 2 s = 4 s after a renewal).
 */
export const LEASE_DEAL_MARGIN_MS = 2_000;

/** Whether this node may deal and broadcast now (its lease is provably current). */
export type LeaseStanding = () => boolean;

/** A lease (or role) whose last successful renewal was sent at `sentAt` (performance.now()) provably stands, with the margin. */
export function standsSince(sentAt: number): boolean {
  return performance.now() < sentAt + LEASE_TTL_MS - LEASE_DEAL_MARGIN_MS;
}

/** Who may write about the tables a node hosts: its HOST_ID and the epoch of its current lease. */
export interface FenceToken {
  hostId: string;
  epoch: number;
}

/** The node's lease was taken over (it was paused or cut off): it must not write about its tables. */
export class FencedError extends Error {
  constructor(readonly token: FenceToken) {
    super(`node ${token.hostId} (lease epoch ${token.epoch}) lost its lease: its writes are refused`);
  }
}

/**
 * A SQL condition, true while the token's lease still stands (for one-statement writes). The row
 * is share-locked, as in assertLease: without it, a takeover committing while the statement runs
 * could claim the table and read its seats before this write lands (a seat it would never see).
 */
export function leaseHolds(token: FenceToken | null, tableId?: string | null) {
  // No lease (a single app in tests): nothing to fence.
  if (!token) return sql`true`;
  return leaseCondition(token.hostId, token.epoch, tableId ?? null);
}

/** leaseHolds for a hot statement's template: the values are its placeholders fenceHost, fenceEpoch and tableId. */
export const leaseHoldsTemplate = () => leaseCondition(sql.placeholder("fenceHost"), sql.placeholder("fenceEpoch"), sql.placeholder("tableId"));

function leaseCondition(hostId: unknown, epoch: unknown, tableId: unknown) {
  return sql`(exists (select 1 from node_leases where host_id = ${hostId} and epoch = ${epoch}::bigint for key share)
    and (${tableId}::text is null or exists (select 1 from tables where id = ${tableId} and host_id = ${hostId} for share)))`;
}

/**
 * Inside a transaction, before its writes: the lease row is key-share-locked, so a takeover (which
 * deletes it) waits for this transaction, and a transaction after the takeover is refused. A key
 * share lock, not a share lock: renewals (which update expires_at only) must never wait for writers.
 */
export async function assertLease(tx: Queryable, token: FenceToken | null, tableIds: string[] = []): Promise<void> {
  const ids = [...new Set(tableIds)];
  const owned = await ownedTables(tx, token, ids);
  if (owned.size !== ids.length) throw new FencedError(token!);
}

/**
 * The lease check, then which of these tables are still ours: a peer may have claimed one (a
 * restart racing a takeover). Their rows are share-locked, so a claim (an update of host_id) waits
 * for this transaction, and a write after a claim leaves that table out.
 */
export async function ownedTables(tx: Queryable, token: FenceToken | null, tableIds: string[]): Promise<Set<string>> {
  if (!token) return new Set(tableIds);
  const rows = await queryRows(tx, sql`select 1 from node_leases where host_id = ${token.hostId} and epoch = ${token.epoch}::bigint for key share`);
  if (rows.length === 0) throw new FencedError(token);
  if (tableIds.length === 0) return new Set();
  const owned = await queryRows<{ id: string }>(
    tx,
    sql`select id from tables where id = any(${sql.param(tableIds)}::text[]) and host_id = ${token.hostId} order by id for share`,
  );
  const ours = new Set(owned.map((row) => row.id));
  invariant(owned.length === ours.size && owned.every((row) => tableIds.includes(row.id)), "the tables found ours are among those asked, once each");
  return ours;
}

export class HostIdInUseError extends Error {}

/** The highest epoch this process has held per database and HOST_ID (tests open many databases in one process). */
const epochsHeld = new WeakMap<Queryable, Map<string, number>>();

/**
 * Where a new fence token is taken. Its epoch must exceed every epoch this process held for the
 * HOST_ID: a token that repeated or went below an older one would let writes of the older holder
 * (a paused process, a stopped node's late transaction) pass the fence again. The epochs come from
 * one sequence (node_lease_epochs), so this holds by construction; the check keeps it so.
 */
function newToken(db: Queryable, hostId: string, epoch: number): FenceToken {
  let held = epochsHeld.get(db);
  if (!held) epochsHeld.set(db, (held = new Map()));
  const highest = held.get(hostId) ?? 0;
  invariant(Number.isSafeInteger(epoch) && epoch > highest, `lease epoch of ${hostId} went from ${highest} to ${epoch}: fence epochs only grow`);
  held.set(hostId, epoch);
  return { hostId, epoch };
}

/**
 * Takes this node's lease: a fresh row, or the row of a previous process with this HOST_ID once
 * it has expired (a crash: wait for it); either way with a new epoch from node_lease_epochs. A lease seen renewed while we wait (its expiry moved)
 * means another process runs with this HOST_ID: refuse at once, within about one renewal period.
 */
export async function acquireLease(db: Queryable, hostId: string, log: (message: string) => void): Promise<{ token: FenceToken; sentAt: number }> {
  const deadline = Date.now() + 2 * LEASE_TTL_MS + LEASE_RENEW_MS;
  let firstSeen: string | undefined;
  for (;;) {
    let row: { epoch: string } | undefined;
    let held: { lease: string } | undefined;
    const sentAt = performance.now();
    try {
      [row] = await queryRows<{ epoch: string }>(
        db,
        sql`insert into node_leases (host_id, epoch, expires_at) values (${hostId}, nextval('node_lease_epochs'), now() + ${`${LEASE_TTL_MS} milliseconds`}::interval)
            on conflict (host_id) do update set epoch = excluded.epoch, expires_at = excluded.expires_at
            where node_leases.expires_at < now()
            returning epoch::text`,
      );
      if (row) return { token: newToken(db, hostId, Number(row.epoch)), sentAt };
      [held] = await queryRows<{ lease: string }>(db, sql`select epoch::text || '@' || expires_at::text as lease from node_leases where host_id = ${hostId}`);
    } catch (error) {
      // A peer taking the dead process's tables over ends the sessions named after this HOST_ID, ours too.
      if (!isConnectionLost(error)) throw error;
      await Bun.sleep(250);
      continue;
    }
    if (firstSeen === undefined) {
      firstSeen = held?.lease;
      log(`waiting for the lease of a previous process with HOST_ID ${hostId} to expire (up to ${LEASE_TTL_MS / 1000} s)`);
    }
    const renewed = held !== undefined && firstSeen !== undefined && held.lease !== firstSeen;
    if (renewed || Date.now() > deadline) {
      throw new HostIdInUseError(`HOST_ID ${hostId} is in use by a live process (its lease keeps being renewed): give each node its own HOST_ID`);
    }
    await Bun.sleep(250);
  }
}

/** Extends the lease while its epoch stands; false when another node took it over (fenced). */
export async function renewLease(db: Queryable, token: FenceToken): Promise<boolean> {
  const rows = await queryRows(
    db,
    sql`update node_leases set expires_at = now() + ${`${LEASE_TTL_MS} milliseconds`}::interval
        where host_id = ${token.hostId} and epoch = ${token.epoch}::bigint returning 1`,
  );
  // host_id is the key: one row renewed, or none (taken over).
  invariant(rows.length <= 1, `renewing ${token.hostId}'s lease touched ${rows.length} rows`);
  return rows.length > 0;
}

/** A graceful stop: the lease is given up at once, so peers take what is left without waiting. */
export async function releaseLease(db: Queryable, token: FenceToken): Promise<void> {
  await db.execute(sql`delete from node_leases where host_id = ${token.hostId} and epoch = ${token.epoch}::bigint`);
}
