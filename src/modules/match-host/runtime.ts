/**
 * A table's live state moved to the table module (tables/runtime.ts). This re-export stays only for
 * the seat code (action-clock/, cli/local-match.ts, match-runner.ts, hosted-seats.ts) until that code
 * reads seats through its own interface.
 */
export * from "../tables/runtime";
