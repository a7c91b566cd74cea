/** How a bot plays now (the owner's `connection`): the service plays it, or it is connected (and how), or not. */
export type BotConnection = "built-in" | "hosted" | "socket" | "agent" | "acpc" | "offline";

/** The same words wherever an owner reads it: the CLI's `bots list`, the bot page signed in. */
export const CONNECTION_IN_WORDS: Record<BotConnection, string> = {
  "built-in": "played by the service (a built-in strategy)",
  hosted: "played by the service (its uploaded code)",
  socket: "connected by WebSocket",
  agent: "played by an LLM agent through /mcp",
  acpc: "an ACPC player on its TCP port",
  offline: "not connected: every turn is checked or folded for it",
};
