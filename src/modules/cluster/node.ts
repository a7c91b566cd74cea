import type { Bus, Subscription } from "../../lib/bus/bus";
import type { Clock } from "../../lib/clock";
import { subjectsFor, type Subjects } from "./subjects";

const HEARTBEAT_MS = 2_000;
/** A peer not heard from for this long is no longer listed as live. */
const PEER_TTL_MS = 6_000;

export interface PeerInfo {
  hostId: string;
  tables: number;
  lastSeenMs: number;
}

/** This process as a member of its cluster: its bus, its name, the peers it has heard from. */
export class ClusterNode {
  readonly subjects: Subjects;
  private readonly peers = new Map<string, PeerInfo>();
  private timer: ReturnType<typeof setInterval> | undefined;
  private subscription: Subscription | undefined;

  constructor(
    readonly bus: Bus,
    readonly hostId: string,
    readonly clusterName: string,
    private readonly clock: Clock,
    private readonly load: () => number,
    /** Hears that a peer is leaving (a graceful stop, its lease already given up): its tables can be claimed at once. */
    private readonly peerLeft: (hostId: string) => void,
  ) {
    this.subjects = subjectsFor(clusterName);
  }

  start(): void {
    if (this.bus.kind === "local") return;
    this.subscription = this.bus.subscribe(this.subjects.heartbeat, (message) => {
      const hostId = String(message.hostId);
      if (hostId === this.hostId) return;
      if (message.leaving === true) {
        this.peers.delete(hostId);
        this.peerLeft(hostId);
      }
      else this.peers.set(hostId, { hostId, tables: Number(message.tables) || 0, lastSeenMs: this.clock.now() });
    });
    const beat = () => this.bus.publish(this.subjects.heartbeat, { hostId: this.hostId, tables: this.load() });
    beat();
    this.timer = setInterval(beat, HEARTBEAT_MS);
  }

  livePeers(): PeerInfo[] {
    // Cut off from the bus, no peer can be reached, however recently it was heard from.
    if (!this.bus.reachable) return [];
    const now = this.clock.now();
    return [...this.peers.values()].filter((p) => now - p.lastSeenMs <= PEER_TTL_MS).sort((a, b) => a.hostId.localeCompare(b.hostId));
  }

  health() {
    return {
      node: this.hostId,
      cluster: this.clusterName,
      role: this.bus.kind === "local" ? ("single" as const) : ("member" as const),
      peers: this.livePeers().map((p) => ({ node: p.hostId, tables: p.tables })),
    };
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    if (this.bus.kind !== "local") this.bus.publish(this.subjects.heartbeat, { hostId: this.hostId, leaving: true });
    this.subscription?.unsubscribe();
  }
}
