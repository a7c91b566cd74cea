import { BusTimeoutError, NoResponderError, type Json, type Subscription } from "../../lib/bus/bus";
import { AppError, type ErrorCode } from "../../lib/errors";
import { NO_TRACING, type TraceCarrier, type Tracing } from "../../lib/tracing";
import type { ServerMessage } from "../protocol/gateway";
import type { ClusterNode } from "./node";
import type { RemoteWatchers } from "./remote-watchers";

/** A command about one table, executed by the node that hosts it (MatchHost.execute). */
export type HostCommand =
  // viaCompetition: the command comes from a challenge or a tournament (competitions/), the only way onto their tables.
  | { op: "join" | "leave"; developerId: string; botId: string; viaCompetition?: boolean }
  | { op: "close"; developerId: string; viaCompetition?: boolean }
  | { op: "get"; viewerId: string | null };

/** What a table's host does for commands that arrived on other nodes. */
export interface HostedTables {
  execute(tableId: string, command: HostCommand): Promise<unknown>;
}

/**
 * Told which tables this node holds (tables/held-tables.ts tells it): a notification, so the table
 * module depends on no relay, and a node alone needs none.
 */
export interface HoldingListener {
  /** `adopted`: taken over from another node (or this node's restart). */
  held(tableId: string, adopted: boolean): void;
  /** `lost`: the node lost its lease (another node holds the table now), not the table's end. */
  released(tableId: string, lost: boolean): void;
}

/** Where the relay hears which tables this node holds. */
export interface Holdings {
  listen(listener: HoldingListener): void;
}

/** Watcher side: where a remote table's public messages go on this node. */
export interface LocalSpectators {
  deliver(tableId: string, message: ServerMessage): void;
  /** Sockets on this node watching the table. */
  watchingHere(tableId: string): number;
}

const WATCH_RENEW_MS = 3_000;

/** Retries of a command nobody answered, while the table still looks hosted elsewhere (≈ 0.75 s in all). */
const UNANSWERED_RETRIES_MS = [50, 100, 200, 400];
/**
 * How long a forwarded join or leave may wait for its host: a busy host (its buy-ins queue behind
 * database retries) answers late rather than never, and a late answer beats an ambiguous 503. A
 * dead host is known at once (nobody answers); only a paused one costs the whole wait.
 */
const COMMAND_TIMEOUT_MS = 15_000;
const RELEASE_LINGER_MS = 2_000;

/** `forwardWhileElsewhere` found the table no longer hosted by another node: answer it here. */
export const ANSWER_HERE = Symbol("answer here");

/** What another node asks a table's host: a command about the table, or to relay its messages (watch). */
export type TableCommand = HostCommand | { op: "watch" | "unwatch"; node: string };

/**
 * Tables live on one node each; any node serves any request for them. The host subscribes to each
 * of its tables' command subject (so after a takeover the new host simply subscribes), answers
 * joins, leaves, reads and watch requests with the same bodies and status codes as a local call,
 * and publishes the table's public messages while another node has spectators for it.
 */
export class TableRelay implements HoldingListener {
  private readonly commandSubscriptions = new Map<string, Subscription>();
  /** Tables released but still answered for a moment (see releaseTable). */
  private readonly lingering = new Map<string, ReturnType<typeof setTimeout>>();
  private keepalive: ReturnType<typeof setInterval> | undefined;
  /** Watcher side: the tables this node relays to its own spectators. */
  private readonly watched = new Map<string, Subscription>();

  constructor(
    private readonly node: ClusterNode,
    private readonly hosted: HostedTables,
    /** The tables this node holds: the relay answers their commands from other nodes while they are held. */
    holdings: Holdings,
    private readonly spectators: LocalSpectators,
    /** Host side: the nodes watching each table hosted here (the spectators publish to them). */
    private readonly watchers: RemoteWatchers,
    /** A forwarded command carries the caller's trace context (W3C traceparent); the host continues that trace. */
    private readonly tracing: Tracing = NO_TRACING,
  ) {
    holdings.listen(this);
  }

  held(tableId: string, adopted: boolean): void {
    this.hostTable(tableId, adopted);
  }

  released(tableId: string, lost: boolean): void {
    this.releaseTable(tableId);
    // The lease is lost: spectators here follow the table to its new host, as a peer's spectators do.
    if (lost && this.spectators.watchingHere(tableId) > 0) void this.watch(tableId).catch(() => {});
  }

  /**
   * Watcher side: every few seconds each watched table's host hears again that this node watches,
   * so a host that took the table over (or a watcher node that died) is known within seconds.
   */
  start(): void {
    this.keepalive = setInterval(() => {
      for (const tableId of this.watched.keys()) this.forward(tableId, { op: "watch", node: this.node.hostId }).catch(() => {});
    }, WATCH_RENEW_MS);
    (this.keepalive as { unref?: () => void }).unref?.();
  }

  /** With NATS: tables hosted by other nodes are reached; alone, there are none. */
  get reachesOtherNodes(): boolean {
    return this.node.bus.kind !== "local";
  }

  /**
   * This node hosts the table now. `adopted`: taken over from another node, whose watchers still
   * listen on the table's events subject: the new host publishes there at once (no gap) until they
   * renew their watch with it (their keepalive, within seconds). Its own spectators, if it watched
   * the table as a peer until now, get the host's messages directly: not also through the bus.
   */
  hostTable(tableId: string, adopted = false): void {
    clearTimeout(this.lingering.get(tableId));
    this.lingering.delete(tableId);
    this.watched.get(tableId)?.unsubscribe();
    this.watched.delete(tableId);
    if (adopted) this.watchers.adopted(tableId);
    if (this.commandSubscriptions.has(tableId)) return;
    this.commandSubscriptions.set(
      tableId,
      this.node.bus.subscribe(this.node.subjects.tableCommand(tableId), (message) => this.executeTraced(tableId, message)),
    );
  }

  /**
   * Stop answering for a table, after a moment: a command another node sent just before (it read
   * the table as live) may still be on its way, and NATS would hand it to a subscription that is
   * closing, which drops it and leaves its sender waiting out the timeout. Meanwhile commands are
   * answered as any node answers a table nobody hosts (e.g. 409: the table is finished).
   */
  releaseTable(tableId: string): void {
    this.watchers.forget(tableId);
    if (!this.commandSubscriptions.has(tableId) || this.lingering.has(tableId)) return;
    const timer = setTimeout(() => {
      this.lingering.delete(tableId);
      this.commandSubscriptions.get(tableId)?.unsubscribe();
      this.commandSubscriptions.delete(tableId);
    }, RELEASE_LINGER_MS);
    (timer as { unref?: () => void }).unref?.();
    this.lingering.set(tableId, timer);
  }

  /** A command for a table hosted on another node; its error comes back as the same AppError. */
  async forward(tableId: string, command: TableCommand, timeoutMs?: number): Promise<unknown> {
    let reply: Json;
    try {
      reply = await this.node.bus.request(this.node.subjects.tableCommand(tableId), this.tracing.carry(command), timeoutMs);
    } catch (error) {
      if (error instanceof NoResponderError) {
        throw new AppError(503, "TABLE_HOST_UNAVAILABLE", "The node hosting this table is not answering; a live node takes its tables over within seconds: retry", { tableId, unanswered: true }, { "Retry-After": "2" });
      }
      if (error instanceof BusTimeoutError) {
        // The host may have applied it: a retried join answers BOT_ALREADY_SEATED, a retried leave BOT_NOT_SEATED.
        throw new AppError(503, "TABLE_HOST_UNAVAILABLE", "The node hosting this table did not answer in time (it may have applied the request): check the table, then retry", { tableId }, { "Retry-After": "2" });
      }
      throw error;
    }
    const failure = reply.error as { status: number; code: ErrorCode; message: string; details?: unknown } | undefined;
    if (failure) throw new AppError(failure.status, failure.code, failure.message, failure.details);
    return reply.ok;
  }

  /**
   * A join or leave for a table another node hosts. Nobody answering is often a moment, not a
   * failure: the host is just now releasing the table (its match ended) or a peer is taking it
   * over. So re-read where it lives (`elsewhere`) and retry briefly; 503 only if it stays so.
   */
  async forwardWhileElsewhere(tableId: string, command: TableCommand, elsewhere: () => Promise<boolean>): Promise<unknown> {
    for (const waitMs of [...UNANSWERED_RETRIES_MS, null]) {
      try {
        return await this.forward(tableId, command, COMMAND_TIMEOUT_MS);
      } catch (error) {
        if (!(error instanceof AppError && error.code === "TABLE_HOST_UNAVAILABLE" && (error.details as { unanswered?: boolean })?.unanswered) || waitMs === null) throw error;
      }
      await Bun.sleep(waitMs);
      if (!(await elsewhere())) return ANSWER_HERE;
    }
  }

  /** Watcher side: relay a remote table's messages to this node's spectators; answers the table's view. */
  async watch(tableId: string): Promise<unknown> {
    if (!this.watched.has(tableId)) {
      this.watched.set(
        tableId,
        this.node.bus.subscribe(this.node.subjects.tableEvents(tableId), (message) => this.spectators.deliver(tableId, message as ServerMessage)),
      );
    }
    try {
      return await this.forward(tableId, { op: "watch", node: this.node.hostId });
    } catch (error) {
      this.unwatch(tableId);
      throw error;
    }
  }

  unwatch(tableId: string): void {
    const subscription = this.watched.get(tableId);
    if (!subscription) return;
    subscription.unsubscribe();
    this.watched.delete(tableId);
    this.forward(tableId, { op: "unwatch", node: this.node.hostId }).catch(() => {});
  }

  stop(): void {
    clearInterval(this.keepalive);
    for (const timer of this.lingering.values()) clearTimeout(timer);
    this.lingering.clear();
    for (const subscription of [...this.commandSubscriptions.values(), ...this.watched.values()]) subscription.unsubscribe();
    this.commandSubscriptions.clear();
    this.watched.clear();
    this.watchers.clear();
  }

  /** A command that came with a trace context runs in a span of that trace, on this (the host's) node. */
  private executeTraced(tableId: string, message: Json): Promise<Json> {
    const { traceparent, tracestate, ...rest } = message as TraceCarrier & Json;
    const command = rest as TableCommand;
    if (!traceparent) return this.execute(tableId, command);
    return this.tracing.span(`table ${command.op}`, { "poker.table_id": tableId, "poker.node": this.node.hostId }, () => this.execute(tableId, command), {
      kind: "server",
      parent: { traceparent, tracestate },
    });
  }

  private async execute(tableId: string, command: TableCommand): Promise<Json> {
    try {
      switch (command.op) {
        case "join":
        case "leave":
        case "close":
        case "get":
          return { ok: (await this.hosted.execute(tableId, command)) as Json };
        case "watch": {
          this.watchers.watchedBy(tableId, command.node);
          return { ok: (await this.hosted.execute(tableId, { op: "get", viewerId: null })) as Json };
        }
        case "unwatch":
          this.watchers.unwatchedBy(tableId, command.node);
          return { ok: true };
      }
    } catch (error) {
      if (error instanceof AppError) return { error: { status: error.status, code: error.code, message: error.message, details: error.details } };
      throw error;
    }
  }
}
