import { fromPromise, setup } from "xstate";
import type { TableRuntime } from "./runtime";
import { isFull } from "./runtime";

/**
 * A table's lifecycle: waiting → running → finished | aborted.
 * Joins and leaves change the runtime's seats and then send SEATS_CHANGED; a full table starts
 * its match. The match itself is an invoked promise (the imperative shell around the engine);
 * its failure aborts the table, which cashes every open seat out from what was last written.
 */
export function createTableMachine(actors: {
  playMatch: (table: TableRuntime) => Promise<void>;
  abort: (table: TableRuntime, error: unknown) => Promise<void>;
}) {
  return setup({
    types: {
      context: {} as { table: TableRuntime },
      input: {} as { table: TableRuntime },
      events: {} as { type: "SEATS_CHANGED" },
    },
    actors: {
      playMatch: fromPromise<void, TableRuntime>(({ input }) => actors.playMatch(input)),
      abort: fromPromise<void, { table: TableRuntime; error: unknown }>(({ input }) => actors.abort(input.table, input.error)),
    },
    guards: {
      tableFull: ({ context }) => isFull(context.table),
      // Taken over (or restarted) mid-match: the match resumes at once, whoever has busted meanwhile.
      resuming: ({ context }) => context.table.status === "running",
    },
  }).createMachine({
    id: "table",
    initial: "waiting",
    context: ({ input }) => ({ table: input.table }),
    states: {
      waiting: {
        always: [
          { guard: "resuming", target: "running" },
          { guard: "tableFull", target: "running" },
        ],
        on: { SEATS_CHANGED: { guard: "tableFull", target: "running" } },
      },
      running: {
        invoke: {
          src: "playMatch",
          input: ({ context }) => context.table,
          onDone: "finished",
          onError: { target: "aborting" },
        },
      },
      aborting: {
        invoke: {
          src: "abort",
          input: ({ context, event }) => ({ table: context.table, error: (event as { error?: unknown }).error }),
          onDone: "aborted",
          onError: "aborted",
        },
      },
      finished: { type: "final" },
      aborted: { type: "final" },
    },
  });
}
