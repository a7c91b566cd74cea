/** A worker thread of `cli eval`: plays the jobs it is sent, one at a time, and posts each result. */
import type { EvalJob } from "./evaluation";
import { jobPlayer, type EvalSettings } from "./eval-runner";

declare const self: Worker;
let play: ((job: EvalJob) => Promise<unknown>) | null = null;

self.onmessage = async (event: MessageEvent<{ settings: EvalSettings; job: EvalJob }>) => {
  try {
    play ??= jobPlayer(event.data.settings);
    self.postMessage(await play(event.data.job));
  } catch (error) {
    self.postMessage({ error: (error as Error).message ?? String(error) });
  }
};
