/** Plays the jobs of an evaluation: in this thread, or spread over worker threads (one per core) that pull jobs one at a time. */
import { availableParallelism } from "node:os";
import type { EvalJob } from "./evaluation";
import { EXEC_PREFIX, loadPlayers, playLocalMatch, type LocalPlayer } from "./local-match";
import { closeLocalSandbox } from "./hosted";
import { matchResultsOf } from "../modules/ratings/luck";
import type { StoredHand } from "../modules/match-host/hand-history";
import { decksOf } from "../modules/match-host/recorded-hands";
import { seededDeckSecret } from "../poker/fair-deck";

export interface EvalSettings {
  cwd: string;
  hands: number;
  timeoutMs: number;
  buyIn: number;
  smallBlind: number;
  bigBlind: number;
}

/** A played job: chips won by each seat (seat order of the job), the same adjusted (in big blinds), and the hands played. */
export interface EvalResult {
  job: EvalJob;
  profits: [number, number];
  /** Big blinds each seat won with the luck taken out (Σ estimatedBb of its hands: aivat-2, docs/RATINGS.md): an expectation, fractional. */
  adjustedBigBlinds: [number, number];
  hands: number;
}

/**
 * Σ of each bot's adjusted result over a match's hands (the ratings' matchResultsOf, with the
 * seed's decks: aivat-2), for the bots in `botIds` order. Runs where the match ran (a worker
 * thread): a heads-up preflop all-in takes milliseconds to enumerate, and the workers keep that parallel.
 */
export function adjustedBigBlinds(histories: StoredHand[], botIds: [string, string], seed: string): [number, number] {
  const [a, b] = matchResultsOf(botIds, histories, decksOfSeededMatch(seed, histories));
  return [a.hands.sumAdjustedBb, b.hands.sumAdjustedBb];
}

/**
 * The deck of every hand of a seeded local match (`playLocalMatch`: one copy, or both copies of a
 * duplicate pair, each numbered from 1 and dealt from the seed's decks), for the baseline; null
 * where the seed's decks do not deal the recorded cards.
 */
export function decksOfSeededMatch(seed: string, histories: StoredHand[]): Array<number[] | null> {
  const deal = { matchId: seed, smallBlind: 0, bigBlind: 0, legacyDuplicate: false, deckSecret: seededDeckSecret(seed), seatBots: [] };
  const restart = histories.findIndex((hand, i) => i > 0 && hand.handNumber <= histories[i - 1].handNumber);
  const copies = restart < 0 ? [histories] : [histories.slice(0, restart), histories.slice(restart)];
  return copies.flatMap((hands) => decksOf(deal, hands));
}

/** Plays one job; bot files are loaded once per thread. */
export function jobPlayer(settings: EvalSettings): (job: EvalJob) => Promise<EvalResult> {
  const loaded = new Map<string, LocalPlayer>();
  return async (job) => {
    for (const spec of job.seats) if (!loaded.has(spec)) loaded.set(spec, (await loadPlayers([spec], settings.cwd))[0]);
    // Two copies of one bot (a mirror match) need distinct names at the table.
    const seats = job.seats.map((spec, i) => ({ ...loaded.get(spec)!, name: `${loaded.get(spec)!.name}@${i}` }));
    const result = await playLocalMatch(seats, { ...settings, seed: job.seed, duplicate: true });
    const adjusted = adjustedBigBlinds(result.histories, [seats[0].name, seats[1].name], job.seed);
    return { job, profits: [result.players[0].profit, result.players[1].profit], adjustedBigBlinds: adjusted, hands: result.handsPlayed };
  };
}

/** One thread per core; with a hosted: player each thread also runs a sandbox worker, so one per two cores. */
export function defaultParallelism(jobs: number, hosted = false): number {
  const cores = hosted ? Math.floor(availableParallelism() / 2) : availableParallelism();
  return Math.max(1, Math.min(jobs, cores, 8));
}

/** Does the evaluation have a bot given as a command (played on the service, one match at a time)? */
export const needsService = (specs: string[]) => specs.some((spec) => spec.startsWith(EXEC_PREFIX));

/**
 * Plays the jobs one at a time on the service started in this process. A command is a remote bot,
 * which the service seats at no duplicate table (it is one socket, it would remember the first copy):
 * each job's duplicate match is played as its two copies, two ordinary tables with the job's seed
 * (the same decks: a seeded match's decks depend on the seed alone, match-host/deals.ts), the second
 * with the seats swapped, and each copy's seats are bots of their own (one process per seat and
 * copy, kept connected across matches), so no copy can tell another anything.
 */
async function runOnService(jobs: EvalJob[], settings: EvalSettings, onResult: (result: EvalResult) => void, log: (line: string) => void): Promise<void> {
  // Loaded only here: the whole service is a large import that an evaluation of files does without.
  const { LocalService } = await import("./local-service");
  const service = await LocalService.start(settings.cwd, log);
  try {
    const loaded = new Map<string, LocalPlayer>();
    for (const job of jobs) {
      const copies: Array<Awaited<ReturnType<typeof service.bot>>[]> = [];
      for (const copy of [1, 2]) {
        const seats = [];
        for (const [i, spec] of job.seats.entries()) {
          if (!loaded.has(spec)) loaded.set(spec, (await loadPlayers([spec], settings.cwd))[0]);
          const player = loaded.get(spec)!;
          const name = copy === 1 ? `${player.name}@${i}` : `${player.name}@${i}/copy2`;
          seats.push(await service.bot(`${spec}@${i}/${copy}`, { ...player, name }));
        }
        copies.push(seats);
      }
      const [first, second] = await Promise.all([
        service.playMatch(copies[0], { ...settings, seed: job.seed }),
        service.playMatch([copies[1][1], copies[1][0]], { ...settings, seed: job.seed }),
      ]);
      const [a1, b1] = adjustedBigBlinds(first.histories, [copies[0][0].botId, copies[0][1].botId], job.seed);
      const [a2, b2] = adjustedBigBlinds(second.histories, [copies[1][0].botId, copies[1][1].botId], job.seed);
      onResult({
        job,
        profits: [first.players[0].profit + second.players[1].profit, first.players[1].profit + second.players[0].profit],
        adjustedBigBlinds: [a1 + a2, b1 + b2],
        hands: first.handsPlayed + second.handsPlayed,
      });
    }
  } finally {
    await service.close();
  }
}

/**
 * Runs every job, `parallel` at a time (worker threads when more than one); onResult after each.
 * With a bot given as a command, on the service, one at a time; `log` gets the commands' output.
 */
export async function runEvalJobs(jobs: EvalJob[], settings: EvalSettings, parallel: number, onResult: (result: EvalResult) => void, log: (line: string) => void = () => {}): Promise<void> {
  if (needsService(jobs.flatMap((job) => job.seats))) return runOnService(jobs, settings, onResult, log);
  if (parallel <= 1) {
    const play = jobPlayer(settings);
    try {
      for (const job of jobs) onResult(await play(job));
    } finally {
      await closeLocalSandbox();
    }
    return;
  }
  let next = 0;
  const workers: Worker[] = [];
  try {
    await Promise.all(
      Array.from({ length: parallel }, () =>
        new Promise<void>((resolve, reject) => {
          const worker = new Worker(new URL("./eval-worker.ts", import.meta.url).href);
          workers.push(worker);
          const feed = () => {
            if (next >= jobs.length) return resolve();
            worker.postMessage({ settings, job: jobs[next++] });
          };
          worker.onmessage = (event: MessageEvent) => {
            if (event.data.error) return reject(new Error(event.data.error));
            onResult(event.data as EvalResult);
            feed();
          };
          worker.onerror = (event) => reject(new Error((event as ErrorEvent).message ?? "an evaluation worker failed"));
          feed();
        }),
      ),
    );
  } finally {
    for (const worker of workers) worker.terminate();
  }
}
