/**
 * The one node that moves round robins along: the holder of the competitions role (cluster/roles.ts,
 * leased with an epoch as the ladder's matchmaker is), so a `startsAt` fires exactly once in a
 * cluster and one node opens each round. Every `tickMs` it starts the round robins that are due
 * and advances the running ones (round-robin.ts). Their tables are hosted where they are opened
 * (this node); their matches, like any, resume on another node if this one dies.
 */
import type { Clock } from "../../lib/clock";
import type { Db } from "../../db";
import { RoleKeeper } from "../cluster/roles";
import { roundRobinsToAct, type RoundRobins } from "./round-robin";
import type { CompetitionPlacement } from "./placement";

export const COMPETITIONS_ROLE = "competitions-director";

export class CompetitionsDirector {
  readonly role: RoleKeeper;
  private timer: ReturnType<typeof setInterval> | undefined;
  private busy: Promise<void> | null = null;

  constructor(
    private readonly deps: { db: Db; clock: Clock; roundRobins: RoundRobins; placement?: CompetitionPlacement; hostId: string; tickMs: number; log: (message: string, error?: unknown) => void; leaseStanding?: () => boolean },
  ) {
    this.role = new RoleKeeper(deps.db, COMPETITIONS_ROLE, deps.hostId, deps.log, deps.leaseStanding);
  }

  start(): void {
    this.role.start();
    // Every node makes a round robin's tables when the director asks it, whoever directs.
    this.deps.placement?.start();
    this.timer = setInterval(() => void this.tick(), this.deps.tickMs);
    (this.timer as { unref?: () => void }).unref?.();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.busy;
    this.deps.placement?.stop();
    await this.role.stop();
  }

  /** One pass (only on the role's holder, one at a time): due round robins started, running ones advanced. */
  tick(): Promise<void> {
    if (this.busy || !this.role.holds()) return this.busy ?? Promise.resolve();
    this.busy = this.act()
      .catch((error) => this.deps.log("a competitions pass failed (the next one retries)", error))
      .finally(() => (this.busy = null));
    return this.busy;
  }

  private async act(): Promise<void> {
    const { due, running } = await roundRobinsToAct(this.deps.db, new Date(this.deps.clock.now()));
    for (const id of due) await this.deps.roundRobins.start(id);
    for (const id of running) await this.deps.roundRobins.advance(id);
  }
}
