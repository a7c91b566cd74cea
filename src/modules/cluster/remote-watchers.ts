import type { ServerMessage } from "../protocol/gateway";
import type { RemoteSpectators } from "../protocol/spectators";
import type { ClusterNode } from "./node";

const WATCH_TTL_MS = 10_000;
/** Stands for the nodes that watched a table under its previous host, until they renew with this one. */
const PREVIOUS_HOSTS_WATCHERS = "(watchers of the previous host)";

/**
 * Host side of watching across nodes: which other nodes watch each table hosted here (each renews
 * every few seconds, see TableRelay), and the table's public messages published to them. It needs
 * only the node's bus, so the spectators are built with it before the table relay (which executes
 * commands at the match host, which sends to the spectators): no circle at construction.
 */
export class RemoteWatchers implements RemoteSpectators {
  /** The nodes watching each table, with when each last said so. */
  private readonly watcherNodes = new Map<string, Map<string, number>>();

  constructor(private readonly node: ClusterNode) {}

  /** A table taken over from another node: its watchers listen on the table's subject until they renew with this node. */
  adopted(tableId: string): void {
    this.watcherNodes.set(tableId, new Map([[PREVIOUS_HOSTS_WATCHERS, Date.now()]]));
  }

  watchedBy(tableId: string, node: string): void {
    let nodes = this.watcherNodes.get(tableId);
    if (!nodes) this.watcherNodes.set(tableId, (nodes = new Map()));
    nodes.set(node, Date.now());
  }

  unwatchedBy(tableId: string, node: string): void {
    this.watcherNodes.get(tableId)?.delete(node);
  }

  /** The table is no longer hosted here. */
  forget(tableId: string): void {
    this.watcherNodes.delete(tableId);
  }

  clear(): void {
    this.watcherNodes.clear();
  }

  /** Is any other node watching this table? */
  watchedElsewhere(tableId: string): boolean {
    const nodes = this.watcherNodes.get(tableId);
    if (!nodes) return false;
    const now = Date.now();
    for (const [node, seenAt] of nodes) if (now - seenAt > WATCH_TTL_MS) nodes.delete(node);
    return nodes.size > 0;
  }

  publish(tableId: string, message: ServerMessage): void {
    if (this.watchedElsewhere(tableId)) this.node.bus.publish(this.node.subjects.tableEvents(tableId), message);
  }
}
