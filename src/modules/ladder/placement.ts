/**
 * Where the ladder's tables are hosted (docs/LADDER.md, "Where ladder tables live"): spread over the
 * live nodes, least loaded first, instead of all on the matchmaker's. A table is hosted by the node
 * that creates it, so the matchmaker asks the chosen node (over the bus) to create the table and
 * seat the group; a duplicate pair is one request, so its twins are created, and hosted, together.
 *
 * Live: a node whose lease stands (node_leases) and that this node hears on the bus (its heartbeat),
 * or this node itself. Load: its waiting and running tables (a duplicate pair counts once), read
 * from the database each round and counted up as the round places more.
 *
 * If the chosen node cannot be asked (nobody answers its subject: it died, or it is shutting down),
 * nothing was made there and the table is made here instead. If it was asked but did not answer in
 * time, it may have made the table and seated part of the group: the stranded-table rule
 * (matchmaker.ts) closes a ladder table still waiting 10 s after it was made, its seats refunded.
 */
import { sql } from "drizzle-orm";
import { queryRows, type Db } from "../../db";
import { BusTimeoutError, NoResponderError, type Json, type Subscription } from "../../lib/bus/bus";
import type { LadderFormat, TableConfig } from "../../db/schema";
import type { ClusterNode } from "../cluster/node";

/** How long the matchmaker waits for a node to make and fill a table (a few buy-ins): past it, the stranded-table rule. */
const PLACEMENT_TIMEOUT_MS = 8_000;

/** What a node is asked to do: make a ladder table and seat these bots. */
export interface PlacementRequest {
  format: LadderFormat;
  config: TableConfig;
  /** The house: the tables' creator. */
  creator: string;
  group: Array<{ developerId: string; botId: string }>;
}

/**
 * `count` tables over the live nodes by load, least loaded first (ties: this node, then by name),
 * each placed table counting toward its node's load.
 */
export function chooseNodes(loads: Map<string, number>, count: number, self: string): string[] {
  const load = new Map(loads);
  if (!load.has(self)) load.set(self, 0);
  const order = (a: string, b: string) => load.get(a)! - load.get(b)! || Number(b === self) - Number(a === self) || a.localeCompare(b);
  const chosen: string[] = [];
  for (let i = 0; i < count; i++) {
    const node = [...load.keys()].sort(order)[0];
    chosen.push(node);
    load.set(node, load.get(node)! + 1);
  }
  return chosen;
}

/**
 * The node for each of `count` new tables: the live nodes (lease standing, heard on the bus, or this
 * one) by their waiting and running tables (a duplicate pair once), least loaded first. Ladder
 * tables and a round robin's matches (competitions/placement.ts) are spread by it.
 */
export async function leastLoadedNodes(db: Db, cluster: ClusterNode, count: number): Promise<string[]> {
  const self = cluster.hostId;
  if (count === 0) return [];
  const reachable = new Set([self, ...cluster.livePeers().map((peer) => peer.hostId)]);
  if (reachable.size === 1) return Array<string>(count).fill(self);
  const rows = await queryRows<{ host_id: string; tables: number }>(
    db,
    sql`select l.host_id, (select count(*) from tables t where t.status in ('waiting', 'running') and t.host_id = l.host_id and t.copy is distinct from 2)::int as tables
        from node_leases l where l.expires_at > now()`,
  );
  const loads = new Map(rows.filter((row) => reachable.has(row.host_id)).map((row) => [row.host_id, Number(row.tables)]));
  return chooseNodes(loads, count, self);
}

export class LadderPlacement {
  private subscription: Subscription | undefined;

  constructor(
    private readonly db: Db,
    private readonly cluster: ClusterNode,
    /** Makes the table here and seats the group: whether every seat was taken. */
    private readonly openHere: (request: PlacementRequest) => Promise<boolean>,
    private readonly log: (message: string, error?: unknown) => void,
  ) {}

  /** Answers other nodes' matchmakers: any node hosts ladder tables, whichever pairs. */
  start(): void {
    if (this.cluster.bus.kind === "local" || this.subscription) return;
    this.subscription = this.cluster.bus.subscribe(this.cluster.subjects.ladderPlacement(this.cluster.hostId), async (message) => ({
      filled: await this.openHere(message as unknown as PlacementRequest).catch((error) => {
        this.log("making a ladder table asked for by the matchmaker failed", error);
        return false;
      }),
    }));
  }

  stop(): void {
    this.subscription?.unsubscribe();
    this.subscription = undefined;
  }

  /** The node for each of `count` new tables. */
  nodesFor(count: number): Promise<string[]> {
    return leastLoadedNodes(this.db, this.cluster, count);
  }

  /** Makes and fills the table on `node`: here directly, elsewhere by asking that node. */
  async openAt(node: string, request: PlacementRequest): Promise<boolean> {
    if (node === this.cluster.hostId) return this.openHere(request);
    try {
      const reply = await this.cluster.bus.request(this.cluster.subjects.ladderPlacement(node), request as unknown as Json, PLACEMENT_TIMEOUT_MS);
      return reply.filled === true;
    } catch (error) {
      if (error instanceof NoResponderError) {
        // Nothing was made there: make it here.
        this.log(`node ${node} did not take a ladder table (nobody answers it): made here instead`);
        return this.openHere(request);
      }
      if (error instanceof BusTimeoutError) {
        this.log(`node ${node} did not answer in time for a ladder table: if it made one, the stranded-table rule closes it`);
        return false;
      }
      throw error;
    }
  }
}
