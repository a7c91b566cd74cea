/**
 * The SDK as a hosted bot sees it: what `@poker-bots/sdk` exports, with everything that opens a
 * socket or touches files replaced by a stub that says so. Uploaded bots are bundled against
 * this file instead of the SDK's index, so `import { defineBot, runBot } from "@poker-bots/sdk"`
 * builds unchanged (runBot is only called under `import.meta.main`, which is false when hosted).
 * tests/hosted/bundle.test.ts checks that the names match the SDK's index, so the two cannot drift.
 */
export * from "@poker-bots/sdk/messages";
export * from "@poker-bots/sdk/actions";
export * from "@poker-bots/sdk/state";
export * from "@poker-bots/sdk/helpers";
export * from "@poker-bots/sdk/logger";
export * from "@poker-bots/sdk/readable-logger";
export { BotSession, defineBot, legalize, type BotDefinition, type DecideResult } from "@poker-bots/sdk/session";

function unavailable(name: string): () => never {
  return () => {
    throw new Error(`${name}() is not available to a hosted bot: the server runs it and talks to the table for it`);
  };
}

export const connect = unavailable("connect");
export const backoffDelay = unavailable("backoffDelay");
export const wsUrl = unavailable("wsUrl");
export const runBot = unavailable("runBot");
export const resolveRunOptions = unavailable("resolveRunOptions");
export const RUN_HELP = "";
export const configPath = unavailable("configPath");
export const readConfig = unavailable("readConfig");
export const writeConfig = unavailable("writeConfig");
export const resolveServer = unavailable("resolveServer");
export const normalizeServer = unavailable("normalizeServer");
export const profileOf = unavailable("profileOf");
export const DEFAULT_SERVER = "";
