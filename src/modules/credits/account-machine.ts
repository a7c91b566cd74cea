import { assign, fromCallback, sendTo, setup } from "xstate";
import { nextClaimAt } from "./faucet";

/**
 * One developer's account, in process. Two regions, and a worker:
 * - faucet: claimable ⇄ cooldown, the brief's only shown state machine; the cooldown timer is
 *   computed from the last claim (read from the database when the actor is created).
 * - lifetime: after `idleMs` without work the actor retires (final) and is rebuilt from rows on
 *   demand. One timer that re-arms itself checks this, so an operation costs no timer.
 * - the `operations` worker (an invoked callback actor) runs the queued database operations one at
 *   a time, in arrival order, and replies to each caller. ENQUEUE is handled in every active state,
 *   so no operation is ever dropped; an operation costs one event, not a child actor and two.
 */

export type AccountOperation =
  | { kind: "claim" }
  | { kind: "buyIn"; amount: number; refs: import("./ledger").SeatRefs }
  | { kind: "buyInPair"; amount: number; refs: import("./ledger").PairSeatRefs }
  | { kind: "cashout"; seatId: number; chips: number; refs: import("./ledger").LedgerRefs }
  | { kind: "cashoutPair"; seats: [import("./ledger").SeatCashout, import("./ledger").SeatCashout] };

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

/** The worker's queue, shared with the lifetime region (which may retire only an idle account). */
interface Worklist {
  items: QueuedOperation[];
  busy: boolean;
  lastActiveAt: number;
}

export interface AccountContext {
  developerId: string;
  lastFaucetAt: number | null;
  work: Worklist;
}

export interface AccountInput {
  developerId: string;
  lastFaucetAt: number | null;
}

export type AccountEvent = { type: "ENQUEUE"; item: QueuedOperation } | { type: "FAUCET_CLAIMED"; at: number };

export interface AccountMachineOptions {
  now: () => number;
  cooldownMs: number;
  idleMs: number;
  runOperation: (input: OperationInput) => Promise<OperationOutput>;
}

interface WorkerInput {
  developerId: string;
  lastFaucetAt: number | null;
  work: Worklist;
}

export function createAccountMachine(options: AccountMachineOptions) {
  const cooldownLeft = (lastFaucetAt: number | null) => Math.max(0, (nextClaimAt(lastFaucetAt, options.cooldownMs) ?? 0) - options.now());
  const idleFor = (work: Worklist) => (work.busy || work.items.length > 0 ? 0 : options.now() - work.lastActiveAt);

  const operations = fromCallback<AccountEvent, WorkerInput>(({ input, receive, sendBack }) => {
    const { developerId, work } = input;
    let lastFaucetAt = input.lastFaucetAt;
    const drain = async () => {
      work.busy = true;
      for (let item = work.items.shift(); item !== undefined; item = work.items.shift()) {
        try {
          const output = await options.runOperation({ developerId, operation: item.operation, lastFaucetAt });
          if (output.lastFaucetAt != null && output.lastFaucetAt !== lastFaucetAt) {
            lastFaucetAt = output.lastFaucetAt;
            sendBack({ type: "FAUCET_CLAIMED", at: lastFaucetAt });
          }
          if (output.failure !== undefined) item.reject(output.failure);
          else item.resolve(output.reply);
        } catch (error) {
          item.reject(error);
        }
      }
      work.busy = false;
      work.lastActiveAt = options.now();
    };
    receive((event) => {
      if (event.type !== "ENQUEUE") return;
      work.items.push(event.item);
      if (!work.busy) void drain();
    });
  });

  return setup({
    types: {
      context: {} as AccountContext,
      input: {} as AccountInput,
      events: {} as AccountEvent,
    },
    actors: { operations },
    actions: {
      recordClaim: assign({ lastFaucetAt: ({ event }) => (event.type === "FAUCET_CLAIMED" ? event.at : null) }),
    },
    guards: {
      cooldownElapsed: ({ context }) => cooldownLeft(context.lastFaucetAt) === 0,
      idleLongEnough: ({ context }) => idleFor(context.work) >= options.idleMs,
    },
    delays: {
      cooldownLeft: ({ context }) => cooldownLeft(context.lastFaucetAt),
      untilIdleLongEnough: ({ context }) => Math.max(1, options.idleMs - idleFor(context.work)),
    },
  }).createMachine({
    id: "account",
    initial: "active",
    context: ({ input }) => ({
      developerId: input.developerId,
      lastFaucetAt: input.lastFaucetAt,
      work: { items: [], busy: false, lastActiveAt: options.now() },
    }),
    states: {
      active: {
        type: "parallel",
        invoke: {
          id: "worker",
          src: "operations",
          input: ({ context }) => ({ developerId: context.developerId, lastFaucetAt: context.lastFaucetAt, work: context.work }),
        },
        on: {
          ENQUEUE: { actions: sendTo("worker", ({ event }) => event) },
        },
        states: {
          faucet: {
            initial: "deciding",
            states: {
              deciding: {
                always: [{ guard: "cooldownElapsed", target: "claimable" }, { target: "cooldown" }],
              },
              claimable: {
                on: { FAUCET_CLAIMED: { target: "deciding", actions: "recordClaim" } },
              },
              cooldown: {
                after: { cooldownLeft: "deciding" },
                on: { FAUCET_CLAIMED: { target: "deciding", actions: "recordClaim" } },
              },
            },
          },
          lifetime: {
            initial: "watching",
            states: {
              watching: {
                after: {
                  untilIdleLongEnough: [{ guard: "idleLongEnough", target: "#account.retired" }, { target: "watching", reenter: true }],
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
