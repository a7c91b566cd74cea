import type { Actor } from "xstate";
import { invariant } from "../../lib/assert";
import type { HoldingListener } from "../cluster/table-relay";
import type { ServerMessage } from "../protocol/gateway";
import { snapshotMessage } from "../protocol/messages";
import { spectatorSnapshot } from "../protocol/spectators";
import { viewOfRuntime, type TableView } from "./views";
import type { TableStatus } from "../../db/schema";
import type { TableRuntime } from "./runtime";
import type { createTableMachine, TableEvent } from "./table-machine";

export type TableActor = Actor<ReturnType<typeof createTableMachine>>;

/** A table this node holds: its live state, its lifecycle actor, its queue of commands. */
export interface HeldTable {
  table: TableRuntime;
  actor: TableActor;
  /** Joins and leaves, one at a time. */
  queue: Promise<unknown>;
  /** Resolves when the actor reaches a final state. */
  done: Promise<void>;
}

/**
 * Which tables this node holds, and at which table each bot sits here: the one registry of both
 * (the match host runs the matches; the gateway's snapshots, the metrics and the cluster's
 * heartbeat read it). Built before them, so none of them needs the match host.
 */
export class HeldTables {
  private readonly entries = new Map<string, HeldTable>();
  /** Which table each bot sits at, on this node. */
  readonly tableOfBot = new Map<string, string>();
  private readonly listeners: HoldingListener[] = [];

  /** Hears from now on which tables this node takes and gives up. */
  listen(listener: HoldingListener): void {
    this.listeners.push(listener);
  }

  get(tableId: string): HeldTable | undefined {
    return this.entries.get(tableId);
  }

  has(tableId: string): boolean {
    return this.entries.has(tableId);
  }

  count(): number {
    return this.entries.size;
  }

  all(): HeldTable[] {
    return [...this.entries.values()];
  }

  /** Its lifecycle hears what happened to a table held here (nothing, if it is not held here any more). */
  tell(table: TableRuntime, event: TableEvent): void {
    this.entries.get(table.tableId)?.actor.send(event);
  }

  /** The status of every table held here (metrics: tables by status). */
  statuses(): TableStatus[] {
    return this.all().map((entry) => entry.table.status);
  }

  hold(entry: HeldTable, adopted: boolean): void {
    invariant(!this.entries.has(entry.table.tableId), `table ${entry.table.tableId} is held once on a node`);
    this.entries.set(entry.table.tableId, entry);
    for (const listener of this.listeners) listener.held(entry.table.tableId, adopted);
  }

  /** The table is no longer held here (its actor ended, or it closed); false if it was not (any more). */
  release(table: TableRuntime): boolean {
    if (this.entries.get(table.tableId)?.table !== table) return false;
    this.entries.delete(table.tableId);
    for (const listener of this.listeners) listener.released(table.tableId, false);
    return true;
  }

  /**
   * Every table goes at once: at shutdown (nobody is told: the node stops answering altogether), or
   * when the lease is lost (the listeners are told: another node holds them now).
   */
  releaseAll(why: "shutdown" | "lost"): HeldTable[] {
    const entries = this.all();
    this.entries.clear();
    this.tableOfBot.clear();
    if (why === "lost") for (const { table } of entries) for (const listener of this.listeners) listener.released(table.tableId, true);
    return entries;
  }

  /**
   * A bot's seat at `table` is gone (its match ended, it left or busted): it is free, unless it still
   * plays the other copy of a duplicate pair here (a pair counts as one seating).
   */
  freeBot(botId: string, table: TableRuntime): void {
    if (this.tableOfBot.get(botId) !== table.tableId) return;
    const twin = table.twin ? this.entries.get(table.twin.tableId)?.table : undefined;
    if (twin && twin.status === "running" && [...twin.seats.values()].some((seat) => seat.botId === botId)) this.tableOfBot.set(botId, twin.tableId);
    else this.tableOfBot.delete(botId);
  }

  /** A duplicate pair's tables held here (copy 1 first), and the queue its commands share (copy 1's, or the one left). */
  pairOf(entry: HeldTable): { queue: { queue: Promise<unknown> }; tables: TableRuntime[] } {
    const twin = this.entries.get(entry.table.twin!.tableId);
    const entries = twin ? [entry, twin].sort((a, b) => a.table.twin!.copy - b.table.twin!.copy) : [entry];
    return { queue: entries[0], tables: entries.map((e) => e.table) };
  }

  /** The view of a table held here, for lists that mix held and stored tables (undefined: not here). */
  view(tableId: string, viewerId: string | null): TableView | undefined {
    const entry = this.entries.get(tableId);
    return entry ? viewOfRuntime(entry.table, viewerId) : undefined;
  }

  /** The hand in play at a table held here, for a spectator who just connected (null: none, or not here). */
  spectatorSnapshot(tableId: string): ServerMessage | null {
    const entry = this.entries.get(tableId);
    return entry ? spectatorSnapshot(entry.table) : null;
  }

  /** What a reconnecting bot's socket is told of its table (null: it sits at none here, or its uploaded code plays the seat). */
  snapshotFor(botId: string): ServerMessage | null {
    const tableId = this.tableOfBot.get(botId);
    const entry = tableId ? this.entries.get(tableId) : undefined;
    // A seat its uploaded code plays (pinned at the match's start) is not this socket's: it hears nothing of it.
    if (!entry || [...entry.table.seats.values()].some((seat) => seat.botId === botId && seat.codeVersion !== null)) return null;
    return snapshotMessage(entry.table, botId);
  }
}
