/**
 * The ratings applier's worker thread: a match's adjusted results (luck.ts `matchResultsOf`) are
 * computed here, so the equity enumeration (7–30 ms for a heads-up preflop all-in) never blocks the
 * event loop that deals the hands; so are its hands decoded from their stored form. Messages: { id, botIds, parts
 * (store.ts `StoredMatchPart`: a duplicate pair has two) } in, { id, ms (time spent), results | error } out.
 */
import { setThreadNice } from "../../lib/thread-priority";
import { RATINGS_WORKER_NICE } from "../../config";
import { decodeParts, type StoredMatchPart } from "../match-host/recorded-hands";
import { matchResultsOf } from "./luck";

declare const self: Worker;

// Off the event loop is not enough on a busy machine: the thread would still take a core from the
// tables. At the lowest priority it runs on the cycles they leave (Linux; elsewhere it keeps the
// process's priority).
setThreadNice(RATINGS_WORKER_NICE);

self.onmessage = (event: MessageEvent<{ id: number; botIds: string[]; parts: StoredMatchPart[] }>) => {
  const { id, botIds, parts } = event.data;
  const started = performance.now();
  try {
    const results = matchResultsOf(botIds, decodeParts(parts));
    self.postMessage({ id, ms: performance.now() - started, results });
  } catch (error) {
    self.postMessage({ id, ms: performance.now() - started, error: error instanceof Error ? error.message : String(error) });
  }
};
