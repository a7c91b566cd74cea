/**
 * What the CLI prints, made safe for a terminal: control characters (C0 but newline and tab, DEL,
 * C1) and bidirectional controls are dropped. Names and descriptions come from other developers
 * through the server; an escape sequence in one would clear, retitle or rewrite the reader's
 * terminal, and U+202E would reverse what follows it.
 */
export function terminalSafe(text: string): string {
  return text.replace(/[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/g, "");
}
