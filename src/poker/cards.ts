// Moved to packages/poker-core (shared with the SDK): the server imports it from there.
export * from "@poker-bots/core/cards";
