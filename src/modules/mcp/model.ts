import { Type as T } from "@sinclair/typebox";
import { botMessages, serverMessages } from "@poker-bots/protocol";

/**
 * The agents' tools that are the API's routes, called in-process with the agent's own token: the
 * route validates, decides and answers, so a tool and its route can never disagree (its input is
 * the route's params, query and body; its structured output the route's success schema).
 * `rename` maps a path parameter to the tool argument that carries it.
 */
export interface RouteTool {
  name: string;
  description: string;
  method: "GET" | "POST" | "DELETE";
  path: string;
  rename?: Record<string, string>;
  /** Route arguments a tool does not offer (its answer is always JSON). */
  omit?: string[];
}

export const ROUTE_TOOLS: RouteTool[] = [
  { name: "get_balance", method: "GET", path: "/api/me/balance", description: "Your credit balance: what buy-ins come out of." },
  { name: "claim_faucet", method: "POST", path: "/api/me/balance/faucet", description: "Claim the free credits (once per cooldown; FAUCET_COOLDOWN with the time to wait otherwise)." },
  { name: "list_my_bots", method: "GET", path: "/api/me/bots", description: "Your bots in service, oldest first (`items`), with whether the service plays them (strategy, hosted). An agent plays a bot with no strategy and no hosted code." },
  {
    name: "create_bot",
    method: "POST",
    path: "/api/bots",
    description: "Register a bot for you to play (leave `strategy` out: with one, the service plays it itself). Its api key is only for WebSocket bots; an agent plays it with wait_for_turn and act.",
  },
  {
    name: "create_table",
    method: "POST",
    path: "/api/tables",
    description: "Create a table; the match starts when every seat is taken. Give yourself time to think: actionTimeoutMs up to 120000 (per action, plus the time bank). Seat bots with join_table.",
  },
  {
    name: "join_table",
    method: "POST",
    path: "/api/tables/:tableId/join",
    description: "Seat one of your bots at a waiting table (its buy-in comes off your balance). Then call wait_for_turn with the bot's id until the match ends.",
  },
  { name: "leave_table", method: "POST", path: "/api/tables/:tableId/leave", description: "Take your bot off a table: at once on a waiting table, else it folds from now on and is cashed out after the hand." },
  {
    name: "ladder_enter",
    method: "POST",
    path: "/api/ladder/entries",
    description: "Enter your bot in the rated ladder: it is paired only while connected, i.e. while you are calling wait_for_turn for it (see the protocol resource). Ladder tables give each action the ladder's time, which is short for a language model.",
  },
  { name: "ladder_leave", method: "DELETE", path: "/api/ladder/entries/:botId", description: "Take your bot off the ladder (it finishes the match it is in)." },
  {
    name: "challenge",
    method: "POST",
    path: "/api/challenges",
    description:
      "Play a match of your bot against another developer's bot that is open to challenges (GET /api/bots/{botId}/challenges says whether, and the largest buy-in its owner accepts). Each owner pays their own buy-in; never rated. Then call wait_for_turn with your bot's id until the match ends.",
  },
  {
    name: "hand_history",
    method: "GET",
    path: "/api/matches/:id/hands",
    rename: { id: "matchId" },
    omit: ["format"],
    description: "The hand histories of a completed match (a page of hands: `limit`, `after`), hole cards as shown at the table plus your own bots'.",
  },
];

export const WaitForTurnInput = T.Object(
  {
    botId: T.String({ description: "One of your bots (no strategy, no hosted code)" }),
    timeoutMs: T.Optional(T.Integer({ minimum: 0, maximum: 600_000, description: "How long to wait at most; default 25000, capped by the server (MCP_MAX_WAIT_MS)" })),
  },
  { additionalProperties: false },
);

export const WaitForTurnOutput = T.Object({
  status: T.Union([T.Literal("your_turn"), T.Literal("match_ended"), T.Literal("idle")], {
    description: "your_turn: answer `request` with act before its deadline; match_ended: the last event is the match's end; idle: nothing to answer yet, call again",
  }),
  request: T.Union([serverMessages.action_request, T.Null()], { description: "The open action request (the same message a WebSocket bot gets), or null" }),
  events: T.Array(T.Object({ type: T.String() }, { additionalProperties: true }), {
    description: "What the bot was sent since the previous answer, oldest first: the protocol's messages (match_started, hand_started, action, street, hand_ended, match_ended, error)",
  }),
  droppedEvents: T.Integer({ description: "Oldest events left out (more than 1000 piled up between two calls)" }),
});

export const ActInput = T.Object(
  {
    botId: T.String({ description: "The bot the request was for" }),
    requestId: botMessages.action.properties.requestId,
    action: botMessages.action.properties.action,
    amount: T.Optional(T.Integer({ description: "With raise only: the street total to raise to, between request.minRaiseTo and request.maxRaiseTo" })),
  },
  { additionalProperties: false },
);

export const ActOutput = T.Object({ accepted: T.Literal(true), requestId: T.String() });

export const RULES_TEXT = `# Rules for agents

No-limit Texas hold'em, 2 to 10 seats. Every seat buys in with the table's buy-in; the match
ends after the table's maxHands, or when one bot has every chip.

- Your turn comes as an action request (wait_for_turn → status your_turn): \`legalActions\`,
  \`toCall\`, \`minRaiseTo\`/\`maxRaiseTo\` (street totals) and a \`deadline\`.
- Answer with act {botId, requestId, action, amount?}: fold, check, call, or raise with amount = the
  street total to raise to (a first bet is a raise too). An illegal answer is a tool error
  (ILLEGAL_ACTION) and the request stays open until its deadline; a late or repeated one is
  STALE_REQUEST.
- The action clock: each action gets the table's actionTimeoutMs (create_table: up to 120000) plus
  the seat's time bank. No answer by the deadline, or a bot that is no longer connected: check, else
  fold. The same clock and fallback apply to every remote bot, agent or WebSocket.
- Connected: while a wait_for_turn is open for the bot, and for AGENT_PRESENCE_MS (default 150 s)
  after your last wait_for_turn or act for it. The ladder pairs only connected bots (BOT_OFFLINE
  otherwise); its tables give each action LADDER_ACTION_TIMEOUT_MS, meant for programs.
`;
