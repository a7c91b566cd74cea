import type { ActionName } from "./messages.ts";

/** What decide() returns. `amount` only with raise: the street total to raise to. */
export interface Action {
  action: ActionName;
  amount?: number;
}

export const fold = (): Action => ({ action: "fold" });
export const check = (): Action => ({ action: "check" });
export const call = (): Action => ({ action: "call" });
/** Raise (or bet) to this street total. Clamped to [minRaiseTo, maxRaiseTo] when sent. */
export const raiseTo = (amount: number): Action => ({ action: "raise", amount });
