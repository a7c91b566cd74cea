import { sql } from "drizzle-orm";
import { queryRows, type Db } from "../../db";
import { LEASE_RENEW_MS, LEASE_TTL_MS, standsSince } from "./lease";

/**
 * A role exactly one node holds at a time across the cluster (the ladder's matchmaker), leased in
 * `cluster_roles` like a node's own lease: renewed every 2 s to now() + 6 s; when its holder stops
 * renewing (dead, paused, cut off), the first node to try after the expiry takes it, with a new
 * epoch. The holder acts only while `holds()` — a margin under the lease, as for dealing — so two
 * nodes never act in the role at once, whatever their clocks say.
 */
export class RoleKeeper {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private stopped = true;
  /** performance.now() when the last successful claim or renewal was sent; null: not held. */
  private heldSince: number | null = null;

  constructor(
    private readonly db: Db,
    readonly role: string,
    private readonly hostId: string,
    private readonly log: (message: string, error?: unknown) => void,
    /** This node's own lease stands (a node that lost it holds no role). */
    private readonly leaseStanding: () => boolean = () => true,
  ) {}

  holds(): boolean {
    return this.heldSince !== null && this.leaseStanding() && standsSince(this.heldSince);
  }

  start(): void {
    this.stopped = false;
    const tick = async () => {
      if (this.stopped) return;
      await this.claim().catch((error) => this.log(`claiming the ${this.role} role failed (retrying)`, error));
      if (!this.stopped) this.timer = setTimeout(tick, LEASE_RENEW_MS);
    };
    void tick();
  }

  /** Takes the role if it is free or expired, or renews it if this node holds it. */
  async claim(): Promise<boolean> {
    const sentAt = performance.now();
    const [row] = await queryRows<{ epoch: string }>(
      this.db,
      sql`insert into cluster_roles (role, host_id, epoch, expires_at) values (${this.role}, ${this.hostId}, 1, now() + ${`${LEASE_TTL_MS} milliseconds`}::interval)
          on conflict (role) do update set
            epoch = case when cluster_roles.host_id = excluded.host_id then cluster_roles.epoch else cluster_roles.epoch + 1 end,
            host_id = excluded.host_id, expires_at = excluded.expires_at
          where cluster_roles.host_id = excluded.host_id or cluster_roles.expires_at < now()
          returning epoch::text`,
    );
    const was = this.heldSince !== null;
    if (!row) {
      this.heldSince = null;
      if (was) this.log(`this node no longer holds the ${this.role} role`);
      return false;
    }
    if (!was) this.log(`this node holds the ${this.role} role (epoch ${row.epoch})`);
    this.heldSince = sentAt;
    return true;
  }

  /** A graceful stop: the role is given up at once, so another node takes it without waiting. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    if (this.heldSince === null) return;
    this.heldSince = null;
    await this.db.execute(sql`delete from cluster_roles where role = ${this.role} and host_id = ${this.hostId}`).catch(() => {});
  }
}
