import type { ActionRequestMessage } from "@poker-bots/protocol";
import { toPlayerAction } from "./answers";
import type { AskedSeat, Question, SeatAnswer } from "./model";

/** A hosted bot's decision as the sandbox reports it (hosted/players.ts). */
export type SandboxDecision =
  | { ok: true; action: { action: string; amount?: number }; ms: number }
  | {
      ok: false;
      ms: number;
      /** It ran past its budget (its own run time): no answer by the deadline, as a silent remote bot. */
      timedOut: boolean;
      /** Its failures are exhausted (seats/rules.ts FailureCount): it folds for the rest of the match. */
      foldedForMatch: boolean;
    };

/** What a hosted seat needs of the sandbox: one bot's decision within `budgetMs` of its own run time. Never rejects. */
export interface SandboxDecisions {
  decide(botId: string, request: ActionRequestMessage, budgetMs: number): Promise<SandboxDecision>;
}

/**
 * Uploaded code run in the sandbox here (the service's hosted bots, and `cli play`/`eval` with
 * `hosted:` — one and the same seat): it gets the request a remote bot gets, and its budget is the
 * same actionTimeoutMs plus time bank, counted in its own run time (queueing behind other bots does
 * not count), so a hosted bot is late only by computing.
 */
export class HostedSandboxSeat implements AskedSeat {
  readonly kind = "hosted";

  constructor(
    readonly botId: string,
    private readonly sandbox: SandboxDecisions,
    /** The requestId of the next request (one sequence per match: `local-1`, `local-2` …). */
    private readonly nextRequestId: () => string,
  ) {}

  async ask(question: Question): Promise<SeatAnswer> {
    const request = question.turn.request(this.nextRequestId(), question.deadlineMs);
    const decision = await this.sandbox.decide(this.botId, request, question.budgetMs);
    if (!decision.ok) return { answered: false, why: decision.timedOut ? "silent" : "failed", foldedForMatch: decision.foldedForMatch };
    const action = toPlayerAction(decision.action);
    if (action === null || question.illegality(action) !== null) return { answered: false, why: "failed", foldedForMatch: false };
    return { answered: true, action, tookMs: decision.ms };
  }
}

/** One requestId sequence for a match's hosted seats. */
export function hostedRequestIds(): () => string {
  let requests = 0;
  return () => `local-${++requests}`;
}
