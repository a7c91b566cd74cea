import { fromPromise, setup } from "xstate";
import type { TableStatus } from "../../db/schema";
import type { TableRuntime } from "./runtime";
import { isFull } from "./runtime";

/** What a table's lifecycle hears from outside its match. */
export type TableEvent =
  /** Its seats changed (a join or a leave): a full table starts its match. */
  | { type: "SEATS_CHANGED" }
  /** Its match's record is written (the match end's transaction committed): the table reads as finished from now on. */
  | { type: "MATCH_RECORDED" }
  /** Its creator closed it while waiting (every seat refunded, the row marked closed). */
  | { type: "CLOSED" }
  /** Nobody sat at it for its time: it expired unplayed (the row marked aborted). */
  | { type: "EXPIRED" };

/** How an aborted match ends here: written off (its seats cashed out), or only dropped here, resumable elsewhere. */
export type AbortOutcome = "aborted" | "released";

/**
 * A table's lifecycle, the one place its status is decided (`table.status` is written by this
 * machine's entry actions only, and the database row follows the same transitions):
 *
 *   waiting → running → finished
 *                     ↘ aborting → aborted   (the match failed: every open seat cashed out)
 *                                ↘ released  (a shutdown, a lost lease or a stalled deal: resumable elsewhere, status as stored)
 *   waiting → closed   (its creator closed it)
 *   waiting → expired  (nobody sat at it; status aborted)
 *
 * Joins and leaves change the runtime's seats and then send SEATS_CHANGED; a full table (or one
 * resumed with its match under way) starts its match. The match itself is an invoked promise (the
 * imperative shell around the engine); its failure aborts the table.
 */
export function createTableMachine(actors: {
  playMatch: (table: TableRuntime) => Promise<void>;
  abort: (table: TableRuntime, error: unknown) => Promise<AbortOutcome>;
}) {
  return setup({
    types: {
      context: {} as { table: TableRuntime },
      input: {} as { table: TableRuntime },
      events: {} as TableEvent,
    },
    actors: {
      playMatch: fromPromise<void, TableRuntime>(({ input }) => actors.playMatch(input)),
      abort: fromPromise<AbortOutcome, { table: TableRuntime; error: unknown }>(({ input }) => actors.abort(input.table, input.error)),
    },
    actions: {
      // The one writer of `table.status`: every state says what the table reads as.
      readAs: ({ context }, params: { status: TableStatus }) => {
        context.table.readAs(params.status);
      },
    },
    guards: {
      tableFull: ({ context }) => isFull(context.table),
      // Taken over (or restarted) mid-match: the match resumes at once, whoever has busted meanwhile.
      resuming: ({ context }) => context.table.matchId !== null,
      released: ({ event }) => (event as { output?: AbortOutcome }).output === "released",
    },
  }).createMachine({
    id: "table",
    initial: "waiting",
    context: ({ input }) => ({ table: input.table }),
    states: {
      waiting: {
        entry: { type: "readAs", params: { status: "waiting" } },
        always: [
          { guard: "resuming", target: "running" },
          { guard: "tableFull", target: "running" },
        ],
        on: {
          SEATS_CHANGED: { guard: "tableFull", target: "running" },
          CLOSED: "closed",
          EXPIRED: "expired",
        },
      },
      running: {
        entry: { type: "readAs", params: { status: "running" } },
        invoke: {
          src: "playMatch",
          input: ({ context }) => context.table,
          onDone: "finished",
          onError: "aborting",
        },
        initial: "playing",
        states: {
          playing: { on: { MATCH_RECORDED: "recorded" } },
          // The record is written; the match's contexts are closing: it reads as finished already.
          recorded: { entry: { type: "readAs", params: { status: "finished" } } },
        },
      },
      aborting: {
        invoke: {
          src: "abort",
          input: ({ context, event }) => ({ table: context.table, error: (event as { error?: unknown }).error }),
          onDone: [{ guard: "released", target: "released" }, { target: "aborted" }],
          onError: "aborted",
        },
      },
      finished: { type: "final", entry: { type: "readAs", params: { status: "finished" } } },
      aborted: { type: "final", entry: { type: "readAs", params: { status: "aborted" } } },
      released: { type: "final" },
      closed: { type: "final", entry: { type: "readAs", params: { status: "closed" } } },
      expired: { type: "final", entry: { type: "readAs", params: { status: "aborted" } } },
    },
  });
}
