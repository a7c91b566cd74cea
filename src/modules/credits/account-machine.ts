import { assign, fromPromise, not, setup } from "xstate";

/**
 * One developer's account, in process. Two regions:
 * - faucet: claimable ⇄ cooldown, the brief's only shown state machine; the cooldown timer is
 *   computed from the last claim (read from the database when the actor is created).
 * - operations: a queue that runs one database operation at a time and replies to its caller.
 * Events a state does not handle are never lost: ENQUEUE is handled at the top level in every
 * state. After `idleMs` without work the actor retires (final) and is rebuilt from rows on demand.
 */

export type AccountOperation =
  | { kind: "claim" }
  | { kind: "buyIn"; amount: number; refs: import("./ledger").SeatRefs }
  | { kind: "cashout"; seatId: string; chips: number; refs: import("./ledger").LedgerRefs };

export interface QueuedOperation {
  operation: AccountOperation;
  resolve: (value: unknown) => void;
  reject: (reason: unknown) => void;
}

export interface OperationInput {
  developerId: string;
  operation: AccountOperation;
  lastFaucetAt: number | null;
}

/** What a finished operation tells the actor besides its reply. */
export interface OperationOutput {
  reply?: unknown;
  /** An expected refusal (e.g. faucet cooldown) that still updates the actor's view. */
  failure?: unknown;
  lastFaucetAt?: number | null;
}

export interface AccountContext {
  developerId: string;
  lastFaucetAt: number | null;
  queue: QueuedOperation[];
}

export interface AccountInput {
  developerId: string;
  lastFaucetAt: number | null;
}

export type AccountEvent = { type: "ENQUEUE"; item: QueuedOperation };

export interface AccountMachineOptions {
  now: () => number;
  cooldownMs: number;
  idleMs: number;
  runOperation: (input: OperationInput) => Promise<OperationOutput>;
}

export function createAccountMachine(options: AccountMachineOptions) {
  const cooldownLeft = (lastFaucetAt: number | null) =>
    lastFaucetAt === null ? 0 : Math.max(0, lastFaucetAt + options.cooldownMs - options.now());

  return setup({
    types: {
      context: {} as AccountContext,
      input: {} as AccountInput,
      events: {} as AccountEvent,
    },
    actors: {
      runOperation: fromPromise<OperationOutput, OperationInput>(({ input }) => options.runOperation(input)),
    },
    guards: {
      cooldownElapsed: ({ context }) => cooldownLeft(context.lastFaucetAt) === 0,
      hasQueuedWork: ({ context }) => context.queue.length > 0,
    },
    delays: {
      cooldownLeft: ({ context }) => cooldownLeft(context.lastFaucetAt),
      idle: () => options.idleMs,
    },
  }).createMachine({
    id: "account",
    initial: "active",
    context: ({ input }) => ({ developerId: input.developerId, lastFaucetAt: input.lastFaucetAt, queue: [] }),
    states: {
      active: {
        type: "parallel",
        on: {
          ENQUEUE: { actions: assign({ queue: ({ context, event }) => [...context.queue, event.item] }) },
        },
        states: {
          faucet: {
            initial: "deciding",
            states: {
              deciding: {
                always: [{ guard: "cooldownElapsed", target: "claimable" }, { target: "cooldown" }],
              },
              claimable: {
                always: { guard: not("cooldownElapsed"), target: "cooldown" },
              },
              cooldown: {
                after: { cooldownLeft: "deciding" },
              },
            },
          },
          operations: {
            initial: "idle",
            states: {
              idle: {
                always: { guard: "hasQueuedWork", target: "running" },
                after: { idle: "#account.retired" },
              },
              running: {
                invoke: {
                  src: "runOperation",
                  input: ({ context }) => ({
                    developerId: context.developerId,
                    operation: context.queue[0].operation,
                    lastFaucetAt: context.lastFaucetAt,
                  }),
                  onDone: {
                    target: "idle",
                    actions: [
                      ({ context, event }) => {
                        const waiting = context.queue[0];
                        if (event.output.failure !== undefined) waiting.reject(event.output.failure);
                        else waiting.resolve(event.output.reply);
                      },
                      assign({
                        queue: ({ context }) => context.queue.slice(1),
                        lastFaucetAt: ({ context, event }) =>
                          event.output.lastFaucetAt === undefined ? context.lastFaucetAt : event.output.lastFaucetAt,
                      }),
                    ],
                  },
                  onError: {
                    target: "idle",
                    actions: [
                      ({ context, event }) => context.queue[0].reject(event.error),
                      assign({ queue: ({ context }) => context.queue.slice(1) }),
                    ],
                  },
                },
              },
            },
          },
        },
      },
      retired: { type: "final" },
    },
  });
}
