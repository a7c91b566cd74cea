/**
 * The server's messages, built as the protocol's own types (@poker-bots/protocol): what a bot or a
 * spectator receives cannot drift from the schema, or from the SDK's types, without a type error.
 */
import { formatCard } from "@poker-bots/core/cards";
import { describeHand } from "@poker-bots/core/evaluator";
import type {
  ActionMessage,
  ActionName,
  ActionRequestMessage,
  Card,
  HandEndedMessage,
  HandStartedMessage,
  MatchResumedMessage,
  MatchStartedMessage,
  SnapshotMessage,
  Street,
  StreetMessage,
  WelcomeMessage,
} from "@poker-bots/protocol";
import { invariant } from "../../lib/assert";
import type { HandEvent, HandState, LegalActions } from "../../poker/hand-types";
import { isSeeded, publicConfig, type TableInPlay } from "./table-in-play";

/**
 * What a remote socket of a hosted bot is told (the welcome's `hosted`, or an `error` BOT_HOSTED
 * when code is uploaded while it is open): its code plays, this socket waits, and how to switch back.
 */
export function hostedNotice(botId: string, codeVersion: number): string {
  return `This bot is hosted: its uploaded code (version ${codeVersion}) plays its matches, so this connection is never seated and waits idle. To play through this socket instead, turn hosting off: bun run cli -- bots unhost ${botId} (DELETE /api/bots/${botId}/code); its next match then seats this socket. Its versions stay, and the next upload turns hosting on again.`;
}

/** The first message on a bot's socket; `hostedVersion`: the bot's uploaded code plays it (this socket waits). */
export function welcomeMessage(bot: { botId: string; name: string }, serverTime: Date, hostedVersion: number | undefined): WelcomeMessage {
  return {
    type: "welcome",
    botId: bot.botId,
    name: bot.name,
    protocolVersion: 1,
    serverTime: serverTime.toISOString(),
    ...(hostedVersion === undefined ? {} : { hosted: { codeVersion: hostedVersion, message: hostedNotice(bot.botId, hostedVersion) } }),
  };
}

/** Cards travel as strings ("As", "Td") in the protocol. */
const cards = (ids: number[]) => ids.map(formatCard);
/** A seat's two hole cards, the `index`-th pair of `ids`. */
const pair = (ids: number[], index = 0): [Card, Card] => [formatCard(ids[2 * index]), formatCard(ids[2 * index + 1])];

/** Every message of a match names it: a table between matches has no match to report on. */
function matchIdOf(table: TableInPlay): string {
  invariant(table.matchId !== null, `table ${table.tableId} has no match in play`);
  return table.matchId;
}

/** Bots are asked to act on a betting street only: a hand at showdown has no actor. */
function bettingStreet(street: HandState["street"]): Street {
  invariant(street !== "showdown", "no action is asked at showdown");
  return street;
}

function botAt(table: TableInPlay, position: number): string | null {
  return table.seats.get(position)?.botId ?? table.departed.find((s) => s.position === position)?.botId ?? null;
}

export function potOf(state: HandState): number {
  let pot = 0;
  for (const c of state.contributions) pot += c;
  return pot;
}

function seatStates(table: TableInPlay, state: HandState) {
  return state.seats.map((position, p) => ({
    seat: position,
    botId: botAt(table, position),
    stack: state.stacks[p],
    bet: state.bets[p],
    committed: state.contributions[p],
    folded: state.folded[p],
    allIn: state.stacks[p] === 0 && !state.folded[p],
  }));
}

/** `position` null: the spectators' version (no yourSeat). */
export function matchStartedMessage(table: TableInPlay, position: number | null): MatchStartedMessage {
  return {
    type: "match_started",
    tableId: table.tableId,
    matchId: matchIdOf(table),
    config: publicConfig(table.config),
    seeded: isSeeded(table.config),
    deckCommitment: table.deckCommitment,
    ...(position === null ? {} : { yourSeat: position }),
    seats: [...table.seats.values()].map((s) => ({ seat: s.position, botId: s.botId, stack: s.chips })),
  };
}

/** A match taken over after its host died: match_started's content, with what the resumption kept and voided. */
export function matchResumedMessage(table: TableInPlay, position: number | null, handsPlayed: number, voidedHands: number[]): MatchResumedMessage {
  return { ...matchStartedMessage(table, position), type: "match_resumed", handsPlayed, voidedHands };
}

/** Player `p`'s own view with its hole cards; `p` null: the spectators' view, with none. */
export function handStartedMessage(table: TableInPlay, state: HandState, p: number | null): HandStartedMessage {
  return {
    type: "hand_started",
    tableId: table.tableId,
    matchId: matchIdOf(table),
    handNumber: table.handNumber,
    button: state.seats[state.button],
    smallBlind: state.config.smallBlind,
    bigBlind: state.config.bigBlind,
    ...(p === null ? {} : { yourSeat: state.seats[p], holeCards: pair(state.holeCards, p) }),
    seats: seatStates(table, state),
  };
}

/** Public events as protocol messages. Hole cards and showdown results are not here. */
export function publicEventMessage(table: TableInPlay, event: HandEvent): ActionMessage | StreetMessage | null {
  const base = { tableId: table.tableId, matchId: matchIdOf(table), handNumber: table.handNumber };
  switch (event.type) {
    case "ante":
    case "blind":
    case "action":
      return {
        type: "action",
        ...base,
        seat: event.seat,
        botId: botAt(table, event.seat),
        action: event.type === "action" ? event.action : event.type === "ante" ? "ante" : `${event.blind}_blind`,
        amount: event.amount,
        allIn: event.allIn,
      };
    case "street":
      if (event.street === "showdown") return null;
      return { type: "street", ...base, street: event.street, cards: cards(event.cards), board: cards(event.board) };
    default:
      return null;
  }
}

export function handEndedMessage(table: TableInPlay, state: HandState): HandEndedMessage {
  const result = state.result!;
  const uncalled = state.events.filter((e) => e.type === "uncalled_returned");
  return {
    type: "hand_ended",
    tableId: table.tableId,
    matchId: matchIdOf(table),
    handNumber: table.handNumber,
    board: cards(state.board),
    showdown: result.shown.map((s) => ({ seat: s.seat, botId: botAt(table, s.seat), cards: pair(s.cards), hand: describeHand(s.value) })),
    mucked: result.mucked,
    uncalledReturned: uncalled.map((e) => ({ seat: (e as { seat: number }).seat, amount: (e as { amount: number }).amount })),
    pots: result.pots.map((pot) => ({ amount: pot.amount, winners: pot.winners, shares: pot.shares })),
    stacks: state.seats.map((position, p) => ({ seat: position, botId: botAt(table, position), stack: result.stacks[p] })),
  };
}

export function actionRequestMessage(
  table: TableInPlay,
  state: HandState,
  legal: LegalActions,
  requestId: string,
  deadline: number,
  timeBankMs: number,
): ActionRequestMessage {
  const p = state.actor;
  const actions: ActionName[] = ["fold"];
  actions.push(legal.canCheck ? "check" : "call");
  if (legal.canRaise) actions.push("raise");
  return {
    type: "action_request",
    requestId,
    tableId: table.tableId,
    matchId: matchIdOf(table),
    handNumber: table.handNumber,
    street: bettingStreet(state.street),
    board: cards(state.board),
    holeCards: pair(state.holeCards, p),
    pot: potOf(state),
    seats: seatStates(table, state),
    yourSeat: legal.actor,
    toCall: legal.callAmount,
    minRaiseTo: legal.canRaise ? legal.minRaiseTo : null,
    maxRaiseTo: legal.canRaise ? legal.maxRaiseTo : null,
    legalActions: actions,
    deadline: new Date(deadline).toISOString(),
    timeBankMs,
  };
}

/** The state of a bot's table as it may see it, for a reconnecting bot; botId null: a spectator's (no hole cards). */
export function snapshotMessage(table: TableInPlay, botId: string | null): SnapshotMessage {
  const state = table.hand;
  const own = state && botId !== null ? state.seats.findIndex((position) => botAt(table, position) === botId) : -1;
  return {
    type: "snapshot",
    tableId: table.tableId,
    matchId: table.matchId,
    status: table.status,
    config: publicConfig(table.config),
    seeded: isSeeded(table.config),
    handNumber: table.handNumber,
    voidedHands: [...table.voidedHands],
    hand:
      state && !state.finished
        ? {
            street: state.street,
            button: state.seats[state.button],
            board: cards(state.board),
            pot: potOf(state),
            seats: seatStates(table, state),
            yourSeat: own >= 0 ? state.seats[own] : null,
            holeCards: own >= 0 ? pair(state.holeCards, own) : null,
            toAct: state.actor >= 0 ? state.seats[state.actor] : null,
          }
        : null,
  };
}
