/** CLI: bots create, list, rotate-key, retire. */
import { BUILT_IN_STRATEGIES } from "../../modules/bots/model";
import { CONNECTION_IN_WORDS, type BotConnection } from "../../modules/bots/connection-words";
import { bool, str, UsageError, type Parsed } from "../args";
import { botIdOf, SERVER_FLAG, type Command, type Ctx } from "../command";

export const botsCreate: Command = {
  name: "create",
  summary: "Register a bot. Without --strategy it is your remote bot: its api key is printed once and saved in the config file.",
  usage: "bots create <name> [--strategy random|caller|tight|raiser] [--description <text>]",
  flags: {
    strategy: { kind: "string", value: "name", help: `a built-in the service plays itself: ${BUILT_IN_STRATEGIES.join(", ")} (sparring partners)` },
    description: { kind: "string", value: "text", help: "up to 500 characters" },
    ...SERVER_FLAG,
  },
  async run(ctx, parsed) {
    const name = parsed.positionals[0];
    if (!name) throw new UsageError("give the bot a name: bots create <name>");
    const body: Record<string, string> = { name };
    const strategy = str(parsed, "strategy");
    if (strategy) body.strategy = strategy;
    if (str(parsed, "description")) body.description = str(parsed, "description")!;
    const bot = await ctx.api(parsed).request("POST", "/api/bots", body, { auth: true });
    ctx.profile.bots = { ...ctx.profile.bots, [name]: { botId: bot.botId, strategy: bot.strategy, ...(bot.strategy ? {} : { apiKey: bot.apiKey }) } };
    ctx.save();
    if (bot.strategy) {
      ctx.out(`created ${name} (${bot.botId}) · built-in strategy ${bot.strategy}, played by the service`);
    } else {
      ctx.out(`created ${name} (${bot.botId}) · a remote bot`);
      ctx.out(`api key: ${bot.apiKey} (shown once; saved to ${ctx.configFile})`);
      ctx.out(`run it: bun examples/starter-bot.ts --bot ${name}`);
    }
    return 0;
  },
};

export const botsList: Command = {
  name: "list",
  summary: "List your bots (GET /api/me/bots), or every registered bot with --all.",
  usage: "bots list [--all]",
  flags: { all: { kind: "boolean", help: "every bot registered on the service" }, ...SERVER_FLAG },
  async run(ctx, parsed) {
    if (bool(parsed, "all")) {
      const bots = await ctx.api(parsed).request<Array<{ botId: string; name: string; description: string }>>("GET", "/api/bots");
      for (const bot of bots) ctx.out(`${bot.botId}  ${bot.name}${bot.description ? `  — ${bot.description}` : ""}`);
      if (bots.length === 0) ctx.out("no bots registered yet");
      return 0;
    }
    const mine = await ctx
      .api(parsed)
      .request<Array<{ botId: string; name: string; strategy: string | null; codeVersion: number | null; connection: BotConnection }>>("GET", "/api/me/bots?limit=500", undefined, { auth: true });
    if (mine.length === 0) ctx.out("no bots yet: bun run cli -- bots create my-bot");
    for (const bot of mine) {
      const keySaved = Boolean(ctx.profile.bots?.[bot.name]?.apiKey);
      const how = bot.strategy ? `built-in ${bot.strategy}` : bot.codeVersion ? `hosted (code version ${bot.codeVersion})` : `${keySaved ? "remote (api key saved)" : "remote"}, ${CONNECTION_IN_WORDS[bot.connection]}`;
      ctx.out(`${bot.botId}  ${bot.name}  ${how}`);
    }
    return 0;
  },
};

/** The bot a command names (a saved name or a bot id), and its name in the config file if it has one. */
function botArgument(ctx: Ctx, parsed: Parsed, command: string): { given: string; botId: string; name: string | undefined } {
  const given = parsed.positionals[0];
  if (!given) throw new UsageError(`which bot? bots ${command} <name|botId>`);
  const botId = botIdOf(ctx, given);
  return { given, botId, name: Object.entries(ctx.profile.bots ?? {}).find(([, b]) => b.botId === botId)?.[0] };
}

export const botsRetire: Command = {
  name: "retire",
  summary: "Retire your bot: it plays no more and its key stops working; its records stay and its name is free again.",
  usage: "bots retire <name|botId>",
  flags: SERVER_FLAG,
  async run(ctx, parsed) {
    const { given, botId, name } = botArgument(ctx, parsed, "retire");
    await ctx.api(parsed).request("DELETE", `/api/bots/${encodeURIComponent(botId)}`, undefined, { auth: true });
    if (name !== undefined) {
      const { [name]: _retired, ...rest } = ctx.profile.bots!;
      ctx.profile.bots = rest;
      ctx.save();
    }
    ctx.out(`retired ${name ?? given} (${botId}): its matches and statistics stay; the name is free for a new bot`);
    return 0;
  },
};

export const botsRotate: Command = {
  name: "rotate-key",
  summary: "Issue a new api key for your bot (the old one stops working); saved in the config file.",
  usage: "bots rotate-key <name|botId>",
  flags: SERVER_FLAG,
  async run(ctx, parsed) {
    const { given, botId, name = given } = botArgument(ctx, parsed, "rotate-key");
    const result = await ctx.api(parsed).request("POST", `/api/bots/${encodeURIComponent(botId)}/rotate-key`, undefined, { auth: true });
    ctx.profile.bots = { ...ctx.profile.bots, [name]: { ...ctx.profile.bots?.[name], botId, apiKey: result.apiKey } };
    ctx.save();
    ctx.out(`new api key for ${name} (${botId}): ${result.apiKey} (saved to ${ctx.configFile})`);
    return 0;
  },
};
