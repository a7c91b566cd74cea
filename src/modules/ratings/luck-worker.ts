/**
 * The ratings applier's worker thread: a match's adjusted results (luck.ts `matchResultsOf`) are
 * computed here, so the equity enumeration (7–30 ms for a heads-up preflop all-in) never blocks the
 * event loop that deals the hands; so are its hands decoded from their stored form. Messages: { id, botIds, deal, recorded
 * (match-host/recorded-hands.ts) } in, { id, ms (time spent), results | error } out.
 */
import { setThreadNice } from "../../lib/thread-priority";
import { RATINGS_WORKER_NICE } from "../../config";
import { decodeRecorded, type MatchDeal, type RecordedHands } from "../match-host/recorded-hands";
import { matchResultsOf } from "./luck";

declare const self: Worker;

// Off the event loop is not enough on a busy machine: the thread would still take a core from the
// tables. At the lowest priority it runs on the cycles they leave (Linux; elsewhere it keeps the
// process's priority).
setThreadNice(RATINGS_WORKER_NICE);

self.onmessage = (event: MessageEvent<{ id: number; botIds: string[]; deal: MatchDeal; recorded: RecordedHands }>) => {
  const { id, botIds, deal, recorded } = event.data;
  const started = performance.now();
  try {
    const results = matchResultsOf(botIds, decodeRecorded(deal, recorded));
    self.postMessage({ id, ms: performance.now() - started, results });
  } catch (error) {
    self.postMessage({ id, ms: performance.now() - started, error: error instanceof Error ? error.message : String(error) });
  }
};
