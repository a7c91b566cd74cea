/**
 * Deepest nesting of arrays/objects in a JSON text, stopping as soon as it passes `limit`.
 * One linear pass that skips string contents (brackets inside strings, and escaped quotes,
 * do not count), so a hostile body is refused before JSON.parse builds it and before any
 * validator walks it (their cost grows with depth squared).
 */
export function jsonNestingExceeds(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c /* \ */) i++;
      else if (c === 0x22 /* " */) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x5b /* [ */ || c === 0x7b /* { */) {
      if (++depth > limit) return true;
    } else if (c === 0x5d /* ] */ || c === 0x7d /* } */) {
      depth--;
    }
  }
  return false;
}

/** Deepest nesting a request body (or a bot's message) may have; real bodies use 2 or 3. */
export const MAX_JSON_DEPTH = 32;
