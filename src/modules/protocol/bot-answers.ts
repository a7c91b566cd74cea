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
