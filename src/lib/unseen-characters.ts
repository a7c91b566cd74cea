/**
 * Characters that text others read (bot names, descriptions, developer names) may not carry,
 * besides the C0/C1 controls: bidirectional controls (U+061C, U+200E/F, U+202A–E, U+2066–9),
 * which reorder what a reader sees (U+202E spoofs names), and invisible ones: zero-width
 * characters (U+200B–D), word joiners and invisible operators (U+2060–4), the byte-order mark
 * (U+FEFF), and the line and paragraph separators (U+2028/9). With them `my-bot` and
 * `my\u200d-bot` would be two names that look the same on the leaderboard (impersonation).
 * A regular-expression character class body, written as \u escapes so it reads the same in OpenAPI.
 */
export const UNSEEN_CHARACTERS = "\\u061C\\u200B-\\u200F\\u2028\\u2029\\u202A-\\u202E\\u2060-\\u2064\\u2066-\\u2069\\uFEFF";
