/**
 * @poker-bots/sdk — write a poker bot as one `decide(state)` function.
 *
 *   import { defineBot, call, check, fold, raiseTo, runBot } from "@poker-bots/sdk";
 *   const bot = defineBot({ decide: (s) => (s.legal.has("check") ? check() : call()) });
 *   export default bot;                    // `bun run cli -- play --players ./my-bot.ts,caller`
 *   if (import.meta.main) runBot(bot);     // `bun my-bot.ts --bot my-bot`
 */
export * from "./messages.ts";
export * from "./actions.ts";
export * from "./state.ts";
export * from "./helpers.ts";
export * from "./logger.ts";
export * from "./readable-logger.ts";
export { BotSession, defineBot, legalize, type BotDefinition, type DecideResult } from "./session.ts";
export { connect, backoffDelay, wsUrl, type BotClient, type ConnectOptions } from "./client.ts";
export { runBot, resolveRunOptions, RUN_HELP, type RunOptions } from "./run.ts";
export { configPath, readConfig, writeConfig, resolveServer, normalizeServer, profileOf, DEFAULT_SERVER, type PokerConfig, type ServerProfile, type Env } from "./config.ts";
