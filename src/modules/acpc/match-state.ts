import type { ServerMessage, TableConfig } from "@poker-bots/protocol";

type Message<T extends ServerMessage["type"]> = Extract<ServerMessage, { type: T }>;
type ActionRequest = Message<"action_request">;
type AcpcAnswer = { requestId: string; action: "fold" | "check" | "call" | "raise"; amount?: number };

/**
 * The ACPC dealer's view of one seat (protocol 2.0.0): the gateway's messages for the bot become
 * `MATCHSTATE:<position>:<handNumber>:<betting>:<cards>` lines, one after every action and at the
 * hand's end, and an answer line becomes the bot's action. Pure: no socket, no clock.
 *
 * Positions follow the ACPC's game definitions: heads-up (reverse blinds) position 0 is the big
 * blind and 1 the button; three and more, position 0 is the small blind and the button the last.
 * Both are `(index − buttonIndex − 1) mod n` over the seats in table order.
 */
export class AcpcMatchState {
  private hand: HandModel | null = null;
  /** States rendered but not yet sent: the closing action of a street is sent once, with the new board. */
  private pending: string[] = [];
  private sentLast = "";
  /** The state the bot must answer (its exact text) and the request it answers. */
  private awaited: { state: string; request: ActionRequest } | null = null;
  /**
   * An answer line to the current state that came before its request. The ACPC player works out
   * its turn from the state line alone, so it may answer before the request reaches this node
   * (a relayed table sends the opponent's action and the request as separate messages).
   */
  private early: string | null = null;

  /**
   * Folds one message into the hand (`take` gives the lines to send). For a request that an early
   * answer line already answered, returns that answer.
   */
  receive(message: ServerMessage): AcpcAnswer | null {
    if (message.type === "hand_started") {
      this.hand = newHand(message);
      this.awaited = null;
      this.early = null;
      this.push();
      return null;
    }
    const hand = this.hand;
    if (!hand || !("handNumber" in message) || message.handNumber !== hand.number) {
      if (message.type === "action_request") this.awaited = null;
      return null;
    }
    if (message.type === "action") {
      if (message.action === "small_blind" || message.action === "big_blind" || message.action === "ante") return null;
      const position = hand.positionOfSeat.get(message.seat);
      if (position === undefined) return null;
      if (message.action === "fold") hand.rounds.at(-1)!.push("f");
      else if (message.action === "raise") {
        hand.committed[position] = hand.committedBeforeRound[position]! + message.amount;
        hand.rounds.at(-1)!.push(`r${hand.committed[position]}`);
      } else {
        hand.committed[position] = hand.committed[position]! + message.amount;
        hand.rounds.at(-1)!.push("c");
      }
      this.push();
    } else if (message.type === "street") {
      if (message.street === "preflop") return null;
      hand.rounds.push([]);
      hand.board.push(message.cards.join(""));
      hand.committedBeforeRound = [...hand.committed];
      this.amend();
    } else if (message.type === "hand_ended") {
      for (const shown of message.showdown) {
        const position = hand.positionOfSeat.get(shown.seat);
        if (position !== undefined) hand.holes[position] = shown.cards.join("");
      }
      this.amend();
    } else if (message.type === "action_request") {
      this.awaited = { state: this.render(), request: message };
      const early = this.early;
      this.early = null;
      if (early !== null) return this.answer(early);
    }
    return null;
  }

  /** The lines to write now (at the end of a burst of messages). */
  take(): string[] {
    const lines = this.pending;
    this.pending = [];
    if (lines.length > 0) this.sentLast = lines.at(-1)!;
    return lines;
  }

  /**
   * An answer line: `<the state it answers>:<f|c|r<N>>`. Null when it answers no state the bot
   * must answer now (ignored, as the dealer does); else the action for the open request, repaired
   * to the nearest legal one when it is not legal (fold when checking is free: check; a raise out
   * of range: clamped; a raise where none is allowed: call). A line answering the current state
   * before its request has come is kept for the request (`early`).
   */
  answer(line: string): AcpcAnswer | null {
    const awaited = this.awaited;
    if (this.hand === null) return null;
    const cut = line.lastIndexOf(":");
    if (cut < 0) return null;
    const state = line.slice(0, cut);
    if (!awaited || awaited.state !== state) {
      if (state === this.render()) this.early = line;
      return null;
    }
    const move = line.slice(cut + 1);
    const request = awaited.request;
    const legal = new Set(request.legalActions);
    const passive = legal.has("check") ? ("check" as const) : ("call" as const);
    let answer: AcpcAnswer;
    if (move === "f") answer = { requestId: request.requestId, action: legal.has("check") ? "check" : "fold" };
    else if (move === "c" || move === "k") answer = { requestId: request.requestId, action: passive };
    else {
      const raise = /^r(\d{1,12})$/.exec(move);
      if (!raise) return null;
      if (!legal.has("raise") || request.minRaiseTo === null || request.maxRaiseTo === null) answer = { requestId: request.requestId, action: passive };
      else {
        const position = this.hand.myPosition;
        const streetTotal = Number(raise[1]) - this.hand.committedBeforeRound[position]!;
        answer = { requestId: request.requestId, action: "raise", amount: Math.min(request.maxRaiseTo, Math.max(request.minRaiseTo, streetTotal)) };
      }
    }
    this.awaited = null;
    return answer;
  }

  private render(): string {
    const hand = this.hand!;
    const betting = hand.rounds.map((round) => round.join("")).join("/");
    const cards = [hand.holes.join("|"), ...hand.board].join("/");
    return `MATCHSTATE:${hand.myPosition}:${hand.number - 1}:${betting}:${cards}`;
  }

  private push(): void {
    this.pending.push(this.render());
  }

  /** The state after the latest action changed (a new board, cards shown): re-rendered if not sent yet. */
  private amend(): void {
    if (this.pending.length > 0) this.pending[this.pending.length - 1] = this.render();
    else if (this.render() !== this.sentLast) this.push();
  }
}

interface HandModel {
  number: number;
  myPosition: number;
  positionOfSeat: Map<number, number>;
  holes: string[];
  board: string[];
  rounds: string[][];
  committed: number[];
  committedBeforeRound: number[];
}

function newHand(message: Message<"hand_started">): HandModel {
  const seats = message.seats.map((seat) => seat.seat).sort((a, b) => a - b);
  const buttonIndex = seats.indexOf(message.button);
  const positionOfSeat = new Map(seats.map((seat, index) => [seat, (index - buttonIndex - 1 + 2 * seats.length) % seats.length]));
  const myPosition = positionOfSeat.get(message.yourSeat ?? -1) ?? 0;
  const holes = new Array<string>(seats.length).fill("");
  holes[myPosition] = (message.holeCards ?? []).join("");
  const committed = new Array<number>(seats.length).fill(0);
  // The blinds are in: position 0 and 1 (three and more), or 1 (button, small) and 0 (big) heads-up.
  const small = seats.length === 2 ? 1 : 0;
  const big = seats.length === 2 ? 0 : 1;
  committed[small] = message.smallBlind;
  committed[big] = message.bigBlind;
  return { number: message.handNumber, myPosition, positionOfSeat, holes, board: [], rounds: [[]], committed, committedBeforeRound: new Array<number>(seats.length).fill(0) };
}

/**
 * The ACPC game definition of a reset-stacks table: no-limit, its players, every hand's stack,
 * its blinds by position, who acts first in each round, four rounds with 0/3/1/1 board cards.
 */
export function gameDefinition(config: Pick<TableConfig, "maxPlayers" | "smallBlind" | "bigBlind"> & { resetStacks: number }): string {
  const n = config.maxPlayers;
  const blinds = n === 2 ? [config.bigBlind, config.smallBlind] : [config.smallBlind, config.bigBlind, ...new Array<number>(n - 2).fill(0)];
  const firstPlayer = n === 2 ? "2 1 1 1" : "3 1 1 1";
  return [
    "GAMEDEF",
    "nolimit",
    `numPlayers = ${n}`,
    "numRounds = 4",
    `stack = ${new Array<number>(n).fill(config.resetStacks).join(" ")}`,
    `blind = ${blinds.join(" ")}`,
    `firstPlayer = ${firstPlayer}`,
    "numSuits = 4",
    "numRanks = 13",
    "numHoleCards = 2",
    "numBoardCards = 0 3 1 1",
    "END GAMEDEF",
    "",
  ].join("\n");
}
