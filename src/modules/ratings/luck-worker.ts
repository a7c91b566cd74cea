/**
 * The ratings applier's worker thread: a match's adjusted results (luck.ts `ratedMatchOf`) are
 * computed here, so the equity enumeration (7–30 ms for a heads-up preflop all-in) and the
 * reference's replays of every deal (the baseline) never block the event loop that deals the hands;
 * so are its hands decoded from their stored form and their decks derived. Messages: { id, botIds, parts
 * (store.ts `StoredMatchPart`: a duplicate pair has two) } in, { id, ms (time spent), rated | error } out.
 */
import { setThreadNice } from "../../lib/thread-priority";
import { RATINGS_WORKER_NICE } from "../../config";
import { decodePartsWithDecks, type StoredMatchPart } from "../match-host/recorded-hands";
import { ratedMatchOf } from "./luck";

declare const self: Worker;

// Off the event loop is not enough on a busy machine: the thread would still take a core from the
// tables. At the lowest priority it runs on the cycles they leave (Linux; elsewhere it keeps the
// process's priority).
setThreadNice(RATINGS_WORKER_NICE);

self.onmessage = (event: MessageEvent<{ id: number; botIds: string[]; parts: StoredMatchPart[] }>) => {
  const { id, botIds, parts } = event.data;
  const started = performance.now();
  try {
    const { hands, decks } = decodePartsWithDecks(parts);
    const rated = ratedMatchOf(botIds, hands, decks);
    self.postMessage({ id, ms: performance.now() - started, hands: hands.length, rated });
  } catch (error) {
    self.postMessage({ id, ms: performance.now() - started, error: error instanceof Error ? error.message : String(error) });
  }
};
