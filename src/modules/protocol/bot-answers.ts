import type { ServerMessage } from "@poker-bots/protocol";

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

/** What a message that is not an `action` gets back: a pong, or the error that says why it was dropped. */
export function replyToNonAnswer(message: Record<string, unknown> | null, now: number): ServerMessage {
  if (!message) return { type: "error", code: "BAD_MESSAGE", message: "Messages are JSON objects with a type" };
  if (message.type === "ping") return { type: "pong", at: new Date(now).toISOString() };
  return { type: "error", code: "UNKNOWN_TYPE", message: `Unknown message type "${String(message.type)}"` };
}
