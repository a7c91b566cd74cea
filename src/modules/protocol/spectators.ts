import type { TableInPlay } from "./table-in-play";
import type { BotSocket, ServerMessage } from "./gateway";
import { snapshotMessage } from "./messages";

/**
 * What a spectator who opens a table mid-hand gets right after `watching`: the hand in play as a
 * `snapshot` with no seat's hole cards (those are public only at showdown); null between hands.
 */
export function spectatorSnapshot(table: TableInPlay): ServerMessage | null {
  if (!table.hand || table.hand.finished) return null;
  return snapshotMessage(table, null);
}

/** Spectators of a table hosted here who sit on other nodes (see TableRelay). */
export interface RemoteSpectators {
  watchedElsewhere(tableId: string): boolean;
  publish(tableId: string, message: ServerMessage): void;
}

/** A spectator's socket: Bun's can join a pub/sub topic, so one publish reaches every watcher. */
export interface SpectatorSocket extends BotSocket {
  subscribe?(topic: string): unknown;
  /** The client's address (caps per address). */
  remoteAddress?: string;
}

export interface SpectatorLimits {
  perTable: number;
  perAddress: number;
}

/** Why a watcher was refused, or null. */
export type WatchRefusal = { code: "TOO_MANY_SPECTATORS"; message: string } | null;

/**
 * Sockets watching tables (`/api/tables/:tableId/watch`), by table. Each message is serialized
 * once and fanned out by Bun's pub/sub (`publishTopic`, the server's): the
 * per-socket work is native, so hundreds of watchers cost the match little.
 */
export class Spectators {
  private readonly byTable = new Map<string, Map<string, SpectatorSocket>>();
  private readonly byAddress = new Map<string, number>();
  /** Tables with a watcher that cannot join a topic (not a Bun socket): those get a send each. */
  private readonly plainSockets = new Set<string>();

  constructor(
    private readonly limits: SpectatorLimits = { perTable: 500, perAddress: 20 },
    /** Spectators of this node's tables on other nodes (absent: one process alone, as `cli play`). */
    private readonly remote?: RemoteSpectators,
    /**
     * Bun's pub/sub of the server this node listens with (server.ts: a no-op until it listens, when
     * nobody watches yet). Absent (an app that never listens through server.ts: tests, `cli play`):
     * every watcher gets a send of its own.
     */
    private readonly publishTopic?: (topic: string, text: string) => unknown,
  ) {}

  /** Anonymous watchers are capped per table and per address, so they cannot multiply a match's CPU. */
  admit(tableId: string, socket: SpectatorSocket): WatchRefusal {
    if (this.watchingHere(tableId) >= this.limits.perTable) {
      return { code: "TOO_MANY_SPECTATORS", message: `This table has ${this.limits.perTable} watchers on this node already` };
    }
    if ((this.byAddress.get(socket.remoteAddress ?? "") ?? 0) >= this.limits.perAddress) {
      return { code: "TOO_MANY_SPECTATORS", message: `At most ${this.limits.perAddress} watching sockets per address` };
    }
    return null;
  }

  watching(tableId: string): boolean {
    return (this.byTable.get(tableId)?.size ?? 0) > 0 || (this.remote?.watchedElsewhere(tableId) ?? false);
  }

  /** Sockets on this node only. */
  watchingHere(tableId: string): number {
    return this.byTable.get(tableId)?.size ?? 0;
  }

  add(tableId: string, socket: SpectatorSocket): void {
    let sockets = this.byTable.get(tableId);
    if (!sockets) this.byTable.set(tableId, (sockets = new Map()));
    sockets.set(socket.id, socket);
    const address = socket.remoteAddress ?? "";
    this.byAddress.set(address, (this.byAddress.get(address) ?? 0) + 1);
    if (socket.subscribe) socket.subscribe(topicOf(tableId));
    else this.plainSockets.add(tableId);
  }

  remove(tableId: string, socket: SpectatorSocket): void {
    const sockets = this.byTable.get(tableId);
    if (!sockets?.delete(socket.id)) return;
    if (sockets.size === 0) {
      this.byTable.delete(tableId);
      this.plainSockets.delete(tableId);
    }
    const address = socket.remoteAddress ?? "";
    const left = (this.byAddress.get(address) ?? 1) - 1;
    if (left > 0) this.byAddress.set(address, left);
    else this.byAddress.delete(address);
  }

  /** The host's table messages: to its spectators here and on other nodes. */
  send(tableId: string, message: ServerMessage): void {
    this.remote?.publish(tableId, message);
    this.deliver(tableId, message);
  }

  /** To this node's spectators of the table. */
  deliver(tableId: string, message: ServerMessage): void {
    const sockets = this.byTable.get(tableId);
    if (!sockets) return;
    const text = JSON.stringify(message);
    if (this.publishTopic && !this.plainSockets.has(tableId)) {
      this.publishTopic(topicOf(tableId), text);
      return;
    }
    for (const socket of sockets.values()) {
      try {
        socket.send(text);
      } catch {}
    }
  }

  closeAll(): void {
    for (const sockets of this.byTable.values()) {
      for (const socket of sockets.values()) {
        try {
          socket.close(1001, "server shutting down");
        } catch {}
      }
    }
    this.byTable.clear();
  }
}

const topicOf = (tableId: string) => `watch:${tableId}`;
