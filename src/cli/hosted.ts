/**
 * Hosted bots in the CLI: `play`/`eval` with `hosted:./file.ts` run the file exactly as the service
 * would (bundled with bundleBot, a fresh sandbox context per match, the service's MatchPlayers and
 * seat: asked by seats/decide.ts on the same CPU-time budget, fallback and failure rule), and the
 * validation errors of an upload, readable.
 */
import { extname, resolve } from "node:path";
import { HostedPlayer, MatchPlayers, type MatchPlayersHost } from "../modules/hosted/players";
import { bundleBot, createSandbox, SandboxOpenError, type BuildProblem, type HostedLogLine, type HostedSeat, type Sandbox, type SandboxOptions } from "../modules/hosted/sandbox";

/** A player given as `hosted:./my-bot.ts`: the file run in the sandbox, as the service runs it. */
export const HOSTED_PREFIX = "hosted:";

/** `hosted:` players play in local matches only: with an `exec:` player the match is the service's, which plays a hosted bot only once uploaded. */
export function refuseHostedWithExec(specs: string[], execPrefix: string): void {
  if (specs.some((spec) => spec.startsWith(HOSTED_PREFIX)) && specs.some((spec) => spec.startsWith(execPrefix))) {
    throw new Error("hosted: players play in local matches, not with exec: players (upload the file to the service instead: bots upload <bot> <file>)");
  }
}

/** A bot file's language by its extension (the upload's Content-Type and the build's loader). */
export function languageOf(file: string): "ts" | "js" {
  return [".js", ".mjs", ".cjs"].includes(extname(file).toLowerCase()) ? "js" : "ts";
}

/** Lines of a validation failure (an upload's 400 details, or a local build or load): stage, errors with positions, the bot's last log lines. */
export function validationLines(details: unknown): string[] {
  if (!details || typeof details !== "object") return [];
  const d = details as { stage?: string; kind?: string; error?: string; errors?: BuildProblem[]; logs?: Array<{ level?: string; text?: string }> };
  const lines: string[] = [];
  if (d.stage) lines.push(`  stage: ${d.stage}${d.kind ? ` (${d.kind})` : ""}`);
  for (const problem of d.errors ?? []) lines.push(`  ${problem.line !== undefined ? `line ${problem.line}${problem.column !== undefined ? `:${problem.column}` : ""}: ` : ""}${problem.message}`);
  if (d.error) lines.push(`  ${d.error}`);
  const logs = d.logs ?? [];
  if (logs.length > 0) lines.push("  the bot's last log lines:", ...logs.map((line) => `    [${line.level ?? "log"}] ${line.text ?? JSON.stringify(line)}`));
  return lines;
}

/** The spec's file bundled as the service bundles an upload; a build error is thrown with its lines. */
export async function bundleHostedFile(spec: string, cwd: string): Promise<string> {
  const file = spec.slice(HOSTED_PREFIX.length).trim();
  if (!file) throw new Error(`"${spec}" names no file: write hosted:<path>, e.g. hosted:./examples/starter-bot.ts`);
  let source: string;
  try {
    source = await Bun.file(resolve(cwd, file)).text();
  } catch (error) {
    throw new Error(`cannot read bot file ${file}: ${(error as Error).message}`);
  }
  const built = await bundleBot(source, languageOf(file));
  if (!built.ok) throw new Error([`${file} does not build for the sandbox:`, ...validationLines({ stage: "build", errors: built.errors })].join("\n"));
  return built.code;
}

/** The sandbox of this thread for local play: one pool, started at the first hosted seat, with the service's limits. */
let localSandbox: Sandbox | null = null;
let localSandboxOptions: SandboxOptions = { workers: 1 };
export function sandboxForLocalPlay(): Sandbox {
  return (localSandbox ??= createSandbox(localSandboxOptions));
}

/**
 * For tests only: other limits for the next local sandboxes (a machine shared by many test runs
 * can take longer than the service's 2 s to load a bot: its clock is the wall's).
 */
export function configureLocalSandbox(options: SandboxOptions): void {
  localSandboxOptions = { workers: 1, ...options };
}

export async function closeLocalSandbox(): Promise<void> {
  const sandbox = localSandbox;
  localSandbox = null;
  await sandbox?.close();
}

/**
 * What a local match's hosted seats report to: nothing is written (their logs are read from the
 * seats at the end, `hostedLogs`) and nothing counted; the match's own time stamps its lines.
 */
const LOCAL_PLAY: MatchPlayersHost = {
  onDecision: () => {},
  closed: () => {},
  timestamp: () => new Date(),
  writeLogs: () => Promise.resolve(),
};

/**
 * A local match's hosted seats, as the service opens them (hosted/players.ts): one fresh context per
 * seat in this thread's sandbox, their match clock started at `origin`. A file that does not load is
 * an error here (the service folds such a seat for the match; locally its author wants to know why).
 */
export async function openLocalHostedPlayers(
  seats: Array<{ botId: string; code: string }>,
  match: { tableId: string; matchId: () => string | null },
  origin: number,
): Promise<{ players: MatchPlayers; seats: Map<string, HostedSeat> }> {
  const opened = new Map<string, HostedSeat>();
  try {
    for (const { botId, code } of seats) opened.set(botId, await openLocalSeat(code, botId));
  } catch (error) {
    await Promise.all([...opened.values()].map((seat) => seat.close()));
    throw error;
  }
  const players = new MatchPlayers(
    LOCAL_PLAY,
    seats.map(({ botId, code }) => new HostedPlayer({ botId, code: { version: 0, bundled: code } }, opened.get(botId)!, [])),
    { tableId: match.tableId, matchId: match.matchId },
  );
  players.start(origin);
  return { players, seats: opened };
}

async function openLocalSeat(code: string, botId: string): Promise<HostedSeat> {
  try {
    return await sandboxForLocalPlay().open(code, { botId });
  } catch (error) {
    if (!(error instanceof SandboxOpenError)) throw error;
    throw new Error([`${botId} does not load in the sandbox:`, ...validationLines({ stage: "load", kind: error.kind, error: error.message, logs: error.logs })].join("\n"));
  }
}

/** A hosted seat's log as lines to print: its console, then what failed and what the sandbox did. */
export function hostedLogLines(name: string, lines: HostedLogLine[]): string[] {
  return lines.map((line) => `${name} ${line.handNumber === null ? "(load)" : `hand ${line.handNumber}`} [${line.source === "host" ? `sandbox ${line.level}` : line.level}] ${line.text}`);
}
