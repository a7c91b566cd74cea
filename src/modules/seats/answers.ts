import type { PlayerAction } from "../../poker/hand-types";

/**
 * A bot's answer in the protocol's shape (`{ action, amount }`: what a socket sends, what a hosted
 * bot's decide returns) as the engine's action; null when malformed.
 */
export function toPlayerAction(message: { action?: unknown; amount?: unknown }): PlayerAction | null {
  const { action, amount } = message;
  if (action === "fold" || action === "check" || action === "call") return { type: action };
  if (action === "raise" && typeof amount === "number" && Number.isSafeInteger(amount)) return { type: "raise", amount };
  return null;
}
