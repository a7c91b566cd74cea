/** CLI: a hosted bot's code and logs — bots upload, bots unhost, bots logs (the service plays an uploaded file itself). */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { ApiError } from "../api";
import { str, UsageError } from "../args";
import { botIdOf, SERVER_FLAG, type Command } from "../command";
import { languageOf, validationLines } from "../hosted";
import { SOURCE_MEDIA_TYPE } from "../../modules/hosted/model";
import type { HostedLogView } from "../../modules/hosted/service";
import { JSON_FLAG, query, show } from "./records";

export const botsUpload: Command = {
  name: "upload",
  summary: "Upload a bot file: from then on the service plays it itself, sandboxed (a hosted bot). Prints its version.",
  usage: "bots upload <name|botId> <file.ts|file.js>",
  details: [
    "The file you run locally (`export default defineBot({ decide })`), unchanged: TypeScript or JavaScript by",
    "its extension, at most 256 KiB. The service builds it, loads it in its sandbox and plays a sample hand;",
    "if any of that fails nothing is stored and the errors are printed. Each match plays the version current",
    "at its start. Try it first locally in the same sandbox: play --players hosted:<file>,tight.",
  ].join("\n"),
  flags: SERVER_FLAG,
  async run(ctx, parsed) {
    const [given, file] = parsed.positionals;
    if (!given || !file) throw new UsageError("bots upload <name|botId> <file>");
    const botId = botIdOf(ctx, given);
    let source: string;
    try {
      source = readFileSync(resolve(ctx.io.cwd, file), "utf8");
    } catch (error) {
      throw new UsageError(`cannot read ${file}: ${(error as Error).message}`);
    }
    try {
      const uploaded = await ctx.api(parsed).request("PUT", `/api/bots/${encodeURIComponent(botId)}/code`, source, { auth: true, contentType: SOURCE_MEDIA_TYPE[languageOf(file)] });
      ctx.out(`uploaded ${file} as version ${uploaded.version} of ${given} (${botId}) · ${uploaded.bytes} bytes · sha256 ${uploaded.sha256}`);
      ctx.out(`it is hosted: its next match plays version ${uploaded.version}, not a process you run (a socket of it waits idle). Its logs: bun run cli -- bots logs ${given}`);
      ctx.out(`to play it through its socket again: bun run cli -- bots unhost ${given}`);
      return 0;
    } catch (error) {
      if (!(error instanceof ApiError) || error.code !== "VALIDATION_ERROR") throw error;
      ctx.err(`error: ${error.message} (VALIDATION_ERROR): nothing was stored`);
      for (const line of validationLines((error.body as { error?: { details?: unknown } })?.error?.details)) ctx.err(line);
      return 1;
    }
  },
};

export const botsUnhost: Command = {
  name: "unhost",
  summary: "Turn hosting off: your uploaded code stops playing the bot, and the process you run (its socket) plays its next match.",
  usage: "bots unhost <name|botId>",
  details: "A match in play finishes with the version it began with. The versions stay (the service keeps them for you); the next bots upload turns hosting on again.",
  flags: SERVER_FLAG,
  async run(ctx, parsed) {
    const given = parsed.positionals[0];
    if (!given) throw new UsageError("which bot? bots unhost <name|botId>");
    const botId = botIdOf(ctx, given);
    const result = await ctx.api(parsed).request<{ versions: number }>("DELETE", `/api/bots/${encodeURIComponent(botId)}/code`, undefined, { auth: true });
    ctx.out(`${given} (${botId}) is no longer hosted: its next match seats it as a remote bot. Run it: bun examples/starter-bot.ts --bot ${given}`);
    ctx.out(`its ${result.versions} uploaded version(s) stay; bots upload turns hosting on again`);
    return 0;
  },
};

export const botsLogs: Command = {
  name: "logs",
  summary: "What your hosted bot logged in a match (its console.log) and every decision that failed, with the hand number.",
  usage: "bots logs <name|botId> [--match <matchId>] [--limit 500] [--json]",
  details: "Without --match: the newest match the bot logged in.",
  flags: {
    match: { kind: "string", value: "matchId", help: "this match (default: the newest)" },
    limit: { kind: "string", value: "n", help: "lines at most (default 500)" },
    ...JSON_FLAG,
    ...SERVER_FLAG,
  },
  async run(ctx, parsed) {
    const given = parsed.positionals[0];
    if (!given) throw new UsageError("which bot? bots logs <name|botId>");
    const botId = botIdOf(ctx, given);
    const lines = await ctx
      .api(parsed)
      .request<HostedLogView[]>("GET", `/api/bots/${encodeURIComponent(botId)}/logs${query({ matchId: str(parsed, "match"), limit: str(parsed, "limit") ?? 500 })}`, undefined, { auth: true });
    const match = str(parsed, "match");
    return show(ctx, parsed, lines, () => [], (l) => {
      if (l.length === 0) return [match ? `no log lines of ${given} in match ${match}` : `${given} has no log lines yet (it logs once it plays hosted)`];
      return [
        `match ${l[0].matchId} · ${given} (code version ${l[0].version}) · ${l.length} line(s)`,
        ...l.map((line) => {
          const where = line.handNumber === null ? "load  " : `hand ${String(line.handNumber).padEnd(2)}`;
          const what = line.kind === "failure" ? `FAILED (${line.failure})` : line.kind === "host" ? `sandbox ${line.level ?? ""}`.trim() : (line.level ?? "log");
          return `  ${where} [${what}] ${line.message}`;
        }),
      ];
    });
  },
};
