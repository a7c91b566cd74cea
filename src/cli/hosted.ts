/**
 * Hosted bots in the CLI: `play`/`eval` with `hosted:./file.ts` run the file exactly as the service
 * would (bundled with bundleBot, run in a sandbox seat, asked with the action clock's budget, the
 * no-answer fallback on failure), and the validation errors of an upload, readable.
 */
import { extname, resolve } from "node:path";
import type { ServerMessage } from "@poker-bots/sdk/messages";
import { MatchClock, onMatchClock } from "../modules/hosted/match-clock";
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
 * A hosted seat at a local table, behind a socket of the table's gateway: every message goes to
 * the seat in order; an action_request is decided with the budget the action clock gives (until
 * its deadline, plus the time bank) and the seat's answer, or its fallback, is sent back.
 */
export async function openHostedSocket(code: string, botId: string, answer: (message: unknown) => void, origin: number): Promise<{ send: (data: string) => void; seat: HostedSeat }> {
  let seat: HostedSeat;
  try {
    seat = await sandboxForLocalPlay().open(code, { botId });
  } catch (error) {
    if (!(error instanceof SandboxOpenError)) throw error;
    throw new Error([`${botId} does not load in the sandbox:`, ...validationLines({ stage: "load", kind: error.kind, error: error.message, logs: error.logs })].join("\n"));
  }
  let queue = Promise.resolve();
  // The time the bot reads is its match clock, as on the service (hosted/match-clock.ts).
  const clock = new MatchClock(origin);
  const deliver = async (message: ServerMessage) => {
    const nowMs = clock.next();
    if (message.type !== "action_request") {
      await seat.notify(message, { nowMs });
      return;
    }
    const budgetMs = Math.max(1, Date.parse(message.deadline) - Date.now()) + message.timeBankMs;
    const decision = await seat.decide(onMatchClock(message, nowMs, budgetMs), { budgetMs, nowMs });
    answer({ type: "action", requestId: message.requestId, ...decision.action });
  };
  return { seat, send: (data) => void (queue = queue.then(() => deliver(JSON.parse(data) as ServerMessage))) };
}

/** A hosted seat's log as lines to print: its console, then what failed and what the sandbox did. */
export function hostedLogLines(name: string, lines: HostedLogLine[]): string[] {
  return lines.map((line) => `${name} ${line.handNumber === null ? "(load)" : `hand ${line.handNumber}`} [${line.source === "host" ? `sandbox ${line.level}` : line.level}] ${line.text}`);
}
