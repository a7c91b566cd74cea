import { eq } from "drizzle-orm";
import type { Db } from "../../db";
import { isLive, tables } from "../../db/schema";
import { ANSWER_HERE, type HostCommand, type TableRelay } from "./table-relay";


/**
 * The one place that decides where a table's command is executed: here, if this node hosts the
 * table (or no other node can be reached), else at its host through the bus, with the same status
 * codes and bodies either way.
 */
export class TableRouting {
  constructor(
    private readonly db: Db,
    private readonly hostId: string,
    private readonly hostsHere: (tableId: string) => boolean,
    /** Reaches the tables other nodes host (alone, on an in-process bus, it reaches none). */
    private readonly relay: TableRelay,
  ) {}

  /** `here` runs the command on this node; otherwise the host runs it and its answer comes back. */
  async run<T>(tableId: string, command: HostCommand, here: () => Promise<T>): Promise<T> {
    const elsewhere = async () => !this.hostsHere(tableId) && (await this.hostedElsewhere(tableId));
    if (!(await elsewhere())) return here();
    const reply = await this.relay.forwardWhileElsewhere(tableId, command, elsewhere);
    return reply === ANSWER_HERE ? here() : (reply as T);
  }

  /** A live table another node hosts, with a cluster to reach it (else requests are answered here). */
  async hostedElsewhere(tableId: string): Promise<boolean> {
    // Without NATS, processes sharing a database are not one service: another's table is refused (409).
    if (!this.relay.reachesOtherNodes) return false;
    const [row] = await this.db.select({ status: tables.status, hostId: tables.hostId }).from(tables).where(eq(tables.id, tableId));
    return row !== undefined && isLive(row.status) && row.hostId !== this.hostId;
  }

  /** The host's live view of a table it hosts elsewhere (null: no answer in time). */
  liveView(tableId: string, viewerId: string | null): Promise<unknown> {
    if (!this.relay.reachesOtherNodes) return Promise.resolve(null);
    return this.relay.forward(tableId, { op: "get", viewerId }, 1_000).catch(() => null);
  }

  /** A spectator here of a table another node hosts: its messages are relayed here; answers the table's view. */
  watch(tableId: string): Promise<unknown> {
    return this.relay.watch(tableId);
  }

  /** The last spectator here of a table hosted elsewhere has gone. */
  unwatch(tableId: string): void {
    this.relay.unwatch(tableId);
  }
}
