import type { PlayerAction } from "../../poker/hand-types";

/**
 * What a bot sends, read: a JSON object with a `type` (a string of at most 4 KiB, or an object
 * already parsed), else null.
 */
export function parseMessage(raw: unknown): Record<string, unknown> | null {
  let value = raw;
  if (typeof raw === "string") {
    if (raw.length > 4096) return null;
    try {
      value = JSON.parse(raw);
    } catch {
      return null;
    }
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return null;
  return typeof (value as { type?: unknown }).type === "string" ? (value as Record<string, unknown>) : null;
}

/** A bot's answer (`{ action, amount }`, the protocol's shape) as the engine's action; null when malformed. */
export function toPlayerAction(message: Record<string, unknown>): PlayerAction | null {
  const { action, amount } = message;
  if (action === "fold" || action === "check" || action === "call") return { type: action };
  if (action === "raise" && typeof amount === "number" && Number.isSafeInteger(amount)) return { type: "raise", amount };
  return null;
}
