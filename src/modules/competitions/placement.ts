/**
 * Where a round robin's matches are hosted: spread over the live nodes, least loaded first (the
 * ladder's rule, ladder/placement.ts `leastLoadedNodes`), instead of all on the director's node. A
 * table is hosted by the node that creates it, so the director asks the chosen node over the bus to
 * create the match's table (a duplicate pair's two together) and answer its id; the seats are then
 * taken through the ordinary routing (`Tables.joinVia` reaches the host). Nobody answering that
 * node: the table is made here. No answer in time: the match stays scheduled and the next pass
 * makes it again (a table made there meanwhile stays empty and expires, no money moved).
 */
import type { Db } from "../../db";
import type { TableConfig } from "../../db/schema";
import { NoResponderError, type Json, type Subscription } from "../../lib/bus/bus";
import type { ClusterNode } from "../cluster/node";
import { leastLoadedNodes } from "../ladder/placement";
import type { Tables } from "../tables/service";

const PLACEMENT_TIMEOUT_MS = 5_000;

export class CompetitionPlacement {
  private subscription: Subscription | undefined;

  constructor(
    private readonly db: Db,
    private readonly cluster: ClusterNode,
    private readonly tables: Tables,
    private readonly log: (message: string, error?: unknown) => void,
  ) {}

  /** Answers the director's requests: any node hosts a round robin's matches. */
  start(): void {
    if (this.cluster.bus.kind === "local" || this.subscription) return;
    this.subscription = this.cluster.bus.subscribe(this.cluster.subjects.competitionTable(this.cluster.hostId), async (message) => {
      const { creator, config } = message as unknown as { creator: string; config: TableConfig };
      return { tableId: await this.tables.createCompetitionTable(creator, config) };
    });
  }

  stop(): void {
    this.subscription?.unsubscribe();
    this.subscription = undefined;
  }

  /**
   * The node for each of `count` matches. A round's matches usually start on idle nodes (equal
   * loads), where the ladder's tie-break would give the same nodes the extra matches every round:
   * the first `skip` picks (the round number) are dropped, so the extra ones rotate over the nodes.
   */
  async nodesFor(count: number, skip = 0): Promise<string[]> {
    const picks = await leastLoadedNodes(this.db, this.cluster, count + skip);
    return picks.slice(picks.length - count);
  }

  /** The match's table made on `node` (here directly, elsewhere by asking it): its id. */
  async openAt(node: string, creator: string, config: TableConfig): Promise<string> {
    if (node === this.cluster.hostId) return this.tables.createCompetitionTable(creator, config);
    try {
      const reply = await this.cluster.bus.request(this.cluster.subjects.competitionTable(node), { creator, config } as unknown as Json, PLACEMENT_TIMEOUT_MS);
      return reply.tableId as string;
    } catch (error) {
      if (!(error instanceof NoResponderError)) throw error;
      this.log(`node ${node} did not take a round robin's table (nobody answers it): made here instead`);
      return this.tables.createCompetitionTable(creator, config);
    }
  }
}
