/**
 * Every subject of a cluster, namespaced by CLUSTER_NAME so several clusters (and parallel test
 * files) share one NATS server. Ids are [A-Za-z0-9_], safe as subject tokens. Payloads: docs/SCALING.md.
 */
export type Subjects = ReturnType<typeof subjectsFor>;

export function subjectsFor(cluster: string) {
  return {
    /** Request/reply to whichever node hosts the table: join, leave, get, watch, unwatch. */
    tableCommand: (tableId: string) => `${cluster}.table.${tableId}.cmd`,
    /** The table's public messages, published by its host while another node has spectators. */
    tableEvents: (tableId: string) => `${cluster}.table.${tableId}.events`,
    /** Messages for a bot, delivered by the node holding its socket. */
    botOut: (botId: string) => `${cluster}.bot.${botId}.out`,
    /** A bot's answers and disconnects, for the host of its table. */
    botIn: (botId: string) => `${cluster}.bot.${botId}.in`,
    /** A bot connected on some node: others close their socket for it; its table's host re-sends the state. */
    botConnected: (botId: string) => `${cluster}.bot.${botId}.connected`,
    anyBotConnected: `${cluster}.bot.*.connected`,
    /** Request/reply to one node: make a ladder table and seat a group there (ladder/placement.ts). */
    ladderPlacement: (hostId: string) => `${cluster}.node.${hostId}.ladder`,
    /** Request/reply to one node: make a round robin's match table there (competitions/placement.ts). */
    competitionTable: (hostId: string) => `${cluster}.node.${hostId}.competition`,
    /** Every node every 2 s: who is alive, and how loaded. */
    heartbeat: `${cluster}.nodes.heartbeat`,
  };
}
